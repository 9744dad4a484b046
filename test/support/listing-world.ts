/**
 * An API world (api-world.ts) whose chain serves the UTXO listing (or the history) of a real index file:
 * a store with the listing (or history) on, filled by the test, and a reader on the same file as the
 * fake index's lister (or historian).
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
  /** The reader on the index file (the fake index's lister or historian). */
  readonly reader: ChainReader;
  /** Checks no response broke the OpenAPI document, then closes and deletes everything. */
  close(): void;
}

/** `fill` writes the index's blocks before the reader opens; `serve`: what the real index answers for the fake. */
export function listingWorld(chain: ChainCode, fill: (store: ChainStore) => void, serve: 'listing' | 'history' = 'listing'): ListingWorld {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-listing-'));
  const file = path.join(dir, `${chain.toLowerCase()}.sqlite`);
  const world = buildWorld();
  const caller = new Caller(world.app);
  const key = world.createKey('private').key;
  const store = ChainStore.open(file, { chain, network: 'mainnet' });
  if (serve === 'listing') store.setUtxoList(true);
  else store.setHistory(true);
  fill(store);
  const reader = ChainReader.open(file);
  if (serve === 'listing') world.index[chain].lister = reader;
  else world.index[chain].historian = reader;
  return {
    world,
    caller,
    key,
    store,
    reader,
    close() {
      expect(caller.problems).toEqual([]);
      reader.close();
      store.close();
      world.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
