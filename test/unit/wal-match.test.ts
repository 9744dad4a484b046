/**
 * An older index restored by rename beside the newer file's `-wal` (issue 22, item 3). SQLite would
 * replay that WAL onto the restored file and read a mixture of both: the newer tip row over older coins.
 * The index must be refused instead: walMismatch names the files to delete, the indexer does not open
 * it, and the API answers 503 rather than a balance labelled with a block it is not the balance of.
 */
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApi } from '../../harness/api-process.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { walGenerations, walMismatch } from '../../src/store/sqlite/wal-match.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { ADDRESS, apiEnv, request, ROUTE } from '../support/limits-world.js';
import type { BlockToApply } from '../../src/store/index-model.js';
import { linkedBlock } from '../support/blocks.js';

const decoded = addressToScript(chainParams('LTC', 'regtest'), ADDRESS);
if (!decoded.ok) throw new Error('test address does not decode');
const SCRIPT = Buffer.from(decoded.script);
/** Each block's coinbase pays the address this much: the balance at height h is h × REWARD. */
const REWARD = 1000;

const chain: BlockToApply[] = [];
function block(height: number): BlockToApply {
  while (chain.length <= height) chain.push(makeBlock(chain.length, chain[chain.length - 1]?.hash ?? Buffer.alloc(32)));
  return chain[height]!;
}
function makeBlock(height: number, prevHash: Buffer): BlockToApply {
  return linkedBlock(
    height,
    prevHash,
    height === 0
      ? []
      : [
          {
            txid: Buffer.alloc(32, height % 256)
              .fill(height >> 8, 0, 1)
              .fill(7, 31),
            inputs: [{ prevTxid: Buffer.alloc(32, 0), vout: 0xffffffff }],
            outputs: [{ value: BigInt(REWARD), script: SCRIPT }],
            coinbase: true,
            hogEx: false,
            mweb: false,
          },
        ],
  );
}
const blocks = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => block(from + i));

/** Folds the WAL into the file and empties it, as the checkpoint thread does between blocks. */
function restartWal(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

let dir: string;
let file: string;
let store: ChainStore | null;
const open = () => ChainStore.open(file, { chain: 'LTC', network: 'regtest' });

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-walmatch-'));
  file = path.join(dir, 'ltc.sqlite');
  store = null;
});

afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The operator's mistake, step by step: a backup of the index at height 5, the indexer goes on to 12
 * (its WAL cycle restarts after 8), and the backup is renamed over the file with the live `-wal` beside
 * it. Returns the restored file's path with the stale WAL in place.
 */
function restoreBesideStaleWal(): void {
  store = open();
  store.applyBlocks(blocks(0, 5));
  store.setNodeHeight(5, new Date());
  store.close();
  copyFileSync(file, `${file}.backup`);
  store = open();
  store.applyBlocks(blocks(6, 8));
  restartWal(file);
  store.applyBlocks(blocks(9, 12));
  // The indexer's WAL as it lies on disk while it runs (closing would fold it into the file and delete it).
  copyFileSync(`${file}-wal`, `${file}.live-wal`);
  store.close();
  store = null;
  renameSync(`${file}.backup`, file);
  renameSync(`${file}.live-wal`, `${file}-wal`);
}

describe('a -wal beside a file it was not written on', () => {
  it('is named, with the files to delete, and neither the indexer nor a reader opens it', () => {
    restoreBesideStaleWal();
    const g = walGenerations(file);
    expect(g).not.toBeNull();
    expect(g!.file).toBeLessThan(g!.first - 1);
    expect(walMismatch(file)).toMatch(/ltc\.sqlite-wal does not belong to .*ltc\.sqlite.*delete .*ltc\.sqlite-wal and .*ltc\.sqlite-shm/);
    expect(() => open()).toThrow(expect.objectContaining({ code: 'WAL_MISMATCH' }));
    expect(() => ChainReader.open(file)).toThrow(expect.objectContaining({ code: 'WAL_MISMATCH' }));
    // What the check prevents: SQLite alone reads the newer tip row out of the stale WAL.
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.prepare("SELECT value FROM meta WHERE key = 'tip_height'").pluck().get()).toBe(12);
    } finally {
      raw.close();
    }
  });

  it('opens again, at the backup tip, once the stale -wal and -shm are deleted as the message says', () => {
    restoreBesideStaleWal();
    rmSync(`${file}-wal`);
    rmSync(`${file}-shm`, { force: true });
    store = open();
    expect(store.tip()?.height).toBe(5);
    store.applyBlocks(blocks(6, 7));
    expect(Number(store.totals().amount)).toBe(7 * REWARD);
  });

  it('refuses a newer file beside an older cycle of its WAL', () => {
    store = open();
    store.applyBlocks(blocks(0, 3));
    restartWal(file);
    store.applyBlocks(blocks(4, 6));
    copyFileSync(`${file}-wal`, `${file}.old-wal`);
    store.applyBlocks(blocks(7, 9));
    store.close();
    store = null;
    renameSync(`${file}.old-wal`, `${file}-wal`);
    expect(walMismatch(file)).toMatch(/does not belong/);
  });
});

describe('a -wal that belongs to its file', () => {
  it('is accepted while the indexer writes, across WAL restarts', () => {
    store = open();
    for (let h = 0; h <= 30; h++) {
      store.applyBlocks([block(h)]);
      if (h % 7 === 0) restartWal(file);
      expect(existsSync(`${file}-wal`) ? walMismatch(file) : null).toBeNull();
    }
  });

  it('is accepted when copied together with its file, and the copy reads at its own tip', () => {
    store = open();
    store.applyBlocks(blocks(0, 4));
    restartWal(file);
    store.applyBlocks(blocks(5, 9));
    const copy = path.join(dir, 'copy.sqlite');
    copyFileSync(file, copy);
    copyFileSync(`${file}-wal`, `${copy}-wal`);
    expect(walMismatch(copy)).toBeNull();
    const reader = ChainReader.open(copy);
    try {
      expect(reader.summary(SCRIPT)).toMatchObject({ tipHeight: 9, balanceSats: BigInt(9 * REWARD), utxoCount: 9 });
    } finally {
      reader.close();
    }
  });
});

it('the API never labels the restored file with the stale WAL tip: it answers 503 until the WAL is deleted', async () => {
  restoreBesideStaleWal();
  const keys = KeyStore.open(path.join(dir, 'keys.sqlite'));
  const { key } = keys.create('private', 'wal-match test');
  keys.close();
  const api = await startApi(apiEnv(dir));
  try {
    const answer = async () => {
      const a = await request(api.url + ROUTE, { 'x-api-key': key });
      const body = JSON.parse(a.body) as { data?: { blockHeight?: number; balanceSatoshi?: number }; code?: string; message?: string };
      if (a.status === 200) {
        // Whatever it answers must be the balance of the block it names.
        expect(body.data?.balanceSatoshi).toBe((body.data?.blockHeight ?? -1) * REWARD);
        return `200 ${body.data?.blockHeight}`;
      }
      return `${a.status} ${body.code} ${/does not belong/.test(body.message ?? '')}`;
    };
    await expect.poll(answer, { timeout: 20_000 }).toBe('503 INDEX_DAMAGED true');
    rmSync(`${file}-wal`);
    rmSync(`${file}-shm`, { force: true });
    // The restored file alone is whole: it answers at its own tip once the stale WAL is gone.
    await expect.poll(answer, { timeout: 20_000 }).toBe('200 5');
  } finally {
    await api.stop();
  }
}, 90_000);
