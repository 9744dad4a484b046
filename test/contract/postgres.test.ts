/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), and what the engine refuses (postgres-refusals.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: apply and rollback with history, listing (the UTXO
 * listing), mempool, snapshot (bootstrap), history-build; and within the cases run, the history of
 * reorg and kill (seed 202), the listing of kill (seeds 101, 303) and the mempool commits of feed.
 * Run: apply and rollback without history, reorg, feed and kill without those features.
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresRefusals } from './postgres-refusals.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
engineContract('postgres', engine);
