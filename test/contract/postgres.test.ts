/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), what the engine refuses (postgres-refusals.ts), and a
 * snapshot bootstrap seen from a standby (postgres-bootstrap-standby.ts).
 *
 * Not yet on PostgreSQL (issue 34), so not run here: apply and rollback with history, listing (the UTXO
 * listing), history-build; and within the cases run, the history of reorg, kill (seed 202) and mempool
 * (its history-kept run), and the listing of kill (seeds 101, 303) and of one snapshot per read.
 * Run: apply and rollback without history, reorg, mempool without history, feed in full (its mempool
 * commits too), one snapshot per read without the listing, bootstrap (the UTXO-snapshot load, its kill
 * and resume included) and kill without those features.
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresRefusals } from './postgres-refusals.js';
import { postgresBootstrapStandby } from './postgres-bootstrap-standby.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
describe('postgres bootstrap on a standby', () => postgresBootstrapStandby(engine));
engineContract('postgres', engine);
