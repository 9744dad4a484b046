/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: apply and rollback with history, listing (the UTXO
 * listing), mempool, snapshot (bootstrap), history-build, kill (its children keep history or the
 * listing). Run: apply and rollback without history, reorg without history, feed without its mempool
 * commits.
 */
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';

engineContract('postgres', postgresEngine());
