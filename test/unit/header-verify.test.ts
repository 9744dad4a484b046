/**
 * `addrsum-verify`'s header check (src/store/header-verify.ts) on a SQLite index: clean after blocks and
 * a rollback; a header that does not hash to its block, a broken link, a gap, or a run that stops below
 * the tip are each named.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { verifyChain } from '../../src/store/sqlite/verify.js';
import { ChainBuilder, Rng } from '../support/blocks.js';

let store: ChainStore;
let chain: ChainBuilder;

beforeEach(() => {
  chain = new ChainBuilder(new Rng(0x4ead));
  for (let h = 0; h <= 12; h++) chain.block([]);
  store = ChainStore.open(':memory:', { chain: 'LTC', network: 'regtest' });
  store.applyBlocks(chain.blocks);
  store.rollbackTip();
});
afterEach(() => store.close());

const set = (height: number, header: Buffer) => store.db.prepare('UPDATE headers SET header = ? WHERE height = ?').run(header, height);

it('finds nothing on an index whose headers blocks wrote and a rollback trimmed', () => {
  expect(store.db.prepare('SELECT COUNT(*) FROM headers').pluck().get()).toBe(12);
  expect(verifyChain(store.db)).toEqual([]);
});

it('names a header that does not hash to its block, and the link it breaks above it', () => {
  const other = Buffer.from(chain.blocks[5]!.header);
  other[79]! ^= 1;
  set(5, other);
  expect(verifyChain(store.db)).toEqual(['header 5 does not hash to the hash of block 5', 'header 6 does not name header 5 as its parent']);
});

it('names a header of the wrong size, a gap, and a run that ends below the tip', () => {
  set(3, Buffer.alloc(79));
  store.db.prepare('DELETE FROM headers WHERE height IN (7, 11)').run();
  expect(verifyChain(store.db)).toEqual([
    'header 3 is 79 bytes, not 80',
    'headers 7..7 are missing',
    'the stored headers end at 10, not at the tip 11',
  ]);
});

it('takes missing headers below the lowest as a backfill still to come, not a problem', () => {
  store.db.prepare('DELETE FROM headers WHERE height < 6').run();
  expect(verifyChain(store.db)).toEqual([]);
});
