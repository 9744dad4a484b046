/**
 * An indexer whose index file is replaced or deleted under it (issue 22, item 3) stops with REPLACED
 * at its next write, instead of writing on into the unlinked file and saying nothing.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { BlockToApply } from '../../src/store/index-model.js';
import { linkedBlock } from '../support/blocks.js';

let dir: string;
let file: string;
let store: ChainStore;

const chain = [linkedBlock(0, Buffer.alloc(32), [])];
const block = (height: number): BlockToApply => {
  while (chain.length <= height) chain.push(linkedBlock(chain.length, chain[chain.length - 1]!.hash, []));
  return chain[height]!;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-replaced-'));
  file = path.join(dir, 'ltc.sqlite');
  store = ChainStore.open(file, { chain: 'LTC', network: 'regtest' });
  store.applyBlocks([block(0), block(1)]);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('stops at the next write when the file was renamed over (a restore)', () => {
  copyFileSync(file, `${file}.restore`);
  renameSync(`${file}.restore`, file);
  expect(() => store.applyBlocks([block(2)])).toThrow(expect.objectContaining({ code: 'REPLACED' }));
  expect(() => store.setNodeHeight(5, new Date())).toThrow(/ltc\.sqlite was replaced .*delete .*ltc\.sqlite-wal/);
  expect(() => store.rollbackTip()).toThrow(expect.objectContaining({ code: 'REPLACED' }));
});

it('stops at the next write when the file was deleted', () => {
  unlinkSync(file);
  expect(() => store.setNodeHeight(5, new Date())).toThrow(/ltc\.sqlite was deleted/);
});

it('writes on while the file is the one it opened', () => {
  store.applyBlocks([block(2)]);
  store.setNodeHeight(5, new Date());
  expect(store.tip()?.height).toBe(2);
});
