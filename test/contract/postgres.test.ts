/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), what the engine refuses (postgres-refusals.ts), and what the
 * contract cannot see of its UTXO listing (postgres-listing.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: snapshot (bootstrap).
 * Run: apply and rollback with and without history, reorg with history, listing (the UTXO listing) in
 * full, mempool with and without history, feed in full (its mempool commits too), history-build, and
 * kill (seed 202 keeping history, seeds 101 and 303 with the listing on).
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresListing } from './postgres-listing.js';
import { postgresRefusals } from './postgres-refusals.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
describe('postgres UTXO listing', () => postgresListing(engine));
engineContract('postgres', engine);
