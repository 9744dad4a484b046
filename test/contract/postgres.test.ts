/**
 * The engine contract (engine-contract.ts) on the PostgreSQL engine, each index a database on one
 * throwaway primary (postgres-engine.ts), what the engine refuses (postgres-refusals.ts), what the
 * contract cannot see of its UTXO listing (postgres-listing.ts), and a snapshot bootstrap seen from a
 * standby (postgres-bootstrap-standby.ts). Every case of the contract runs, kills included.
 */
import { describe } from 'vitest';
import { engineContract } from './engine-contract.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresListing } from './postgres-listing.js';
import { postgresRefusals } from './postgres-refusals.js';
import { postgresBootstrapStandby } from './postgres-bootstrap-standby.js';

const engine = postgresEngine();
// First: the contract's afterAll stops the cluster.
describe('postgres engine refusals', () => postgresRefusals(engine));
describe('postgres UTXO listing', () => postgresListing(engine));
describe('postgres bootstrap on a standby', () => postgresBootstrapStandby(engine));
engineContract('postgres', engine);
