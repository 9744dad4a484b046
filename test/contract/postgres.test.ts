/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), and what the engine refuses (postgres-refusals.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: apply and rollback with history, listing (the UTXO
 * listing), mempool, snapshot (bootstrap), history-build, kill (its children keep history or the
 * listing). Run: apply and rollback without history, reorg without history, feed without its mempool
 * commits.
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresRefusals } from './postgres-refusals.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
engineContract('postgres', engine);
