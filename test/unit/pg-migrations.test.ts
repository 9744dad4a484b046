/** The PostgreSQL engine's migrations (migrations/postgres/): the version the code knows is the highest file. */
import { expect, it } from 'vitest';
import { PG_SCHEMA_VERSION, chainSchema, listPgMigrations } from '../../src/store/postgres/chain-schema.js';

it('PG_SCHEMA_VERSION is the highest migration file, numbered from 1 without gaps', () => {
  expect(listPgMigrations().map((m) => m.version)).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1));
});

it('one schema per chain', () => {
  expect([chainSchema('BTC'), chainSchema('LTC')]).toEqual(['addrsum_btc', 'addrsum_ltc']);
});
