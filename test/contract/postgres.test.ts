/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), and what the engine refuses (postgres-refusals.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: listing (the UTXO listing), snapshot (bootstrap),
 * and within the cases run, the listing of kill (seeds 101, 303).
 * Run: apply and rollback with and without history, reorg with history, mempool with and without it,
 * feed in full (its mempool commits too), history-build, and kill (seed 202 keeping history).
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresRefusals } from './postgres-refusals.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
engineContract('postgres', engine);
