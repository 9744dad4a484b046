/**
 * An API world (api-world.ts) whose chain serves the UTXO listing of a real index file: a store with the
 * listing on, filled by the test, and a reader on the same file as the fake index's lister.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { ChainCode } from '../../src/chain/params.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { buildWorld, Caller, type World } from './api-world.js';

export interface ListingWorld {
  readonly world: World;
  readonly caller: Caller;
  /** A private-tier key of the world's key store. */
  readonly key: string;
  readonly store: ChainStore;
  /** Checks no response broke the OpenAPI document, then closes and deletes everything. */
  close(): void;
}

/** `fill` writes the index's blocks before the reader opens. */
export function listingWorld(chain: ChainCode, fill: (store: ChainStore) => void): ListingWorld {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-listing-'));
  const file = path.join(dir, `${chain.toLowerCase()}.sqlite`);
  const world = buildWorld();
  const caller = new Caller(world.app);
  const key = world.createKey('private').key;
  const store = ChainStore.open(file, { chain, network: 'mainnet' });
  store.setUtxoList(true);
  fill(store);
  const reader = ChainReader.open(file);
  world.index[chain].lister = reader;
  return {
    world,
    caller,
    key,
    store,
    close() {
      expect(caller.problems).toEqual([]);
      reader.close();
      store.close();
      world.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
