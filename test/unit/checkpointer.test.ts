/**
 * The checkpoint thread (src/store/sqlite/checkpointer.ts): committed blocks reach the database file without
 * the writer checkpointing, the writer's own threshold (and the WAL size it keeps) is the raised bound
 * while the thread runs and the default again when the thread cannot run, and close() leaves no WAL behind.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpointer, WAL_KEEP_PAGES, WRITER_BOUND_PAGES } from '../../src/store/sqlite/checkpointer.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { DEFAULT_WAL_LIMIT_BYTES, openReaderDb, openWriterDb } from '../../src/store/sqlite/db.js';
import { randomChain } from '../support/blocks.js';

const dir = mkdtempSync(join(tmpdir(), 'addrsum-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  for (const start = Date.now(); !done(); await sleep(20)) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Frames in the WAL and frames of it already copied into the database, as a reader sees them. */
function walState(path: string): { log: number; checkpointed: number } {
  const db = openWriterDb(path);
  try {
    const [r] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    return r!;
  } finally {
    db.close();
  }
}

describe('checkpoint thread', () => {
  it('copies committed blocks into the database file while the writer only appends', async () => {
    const path = join(dir, 'copies.sqlite');
    const store = ChainStore.open(path, { chain: 'BTC', network: 'regtest' });
    try {
      expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(WRITER_BOUND_PAGES);
      // The WAL the bound lets grow keeps its disk blocks across restarts (checkpointer.ts).
      expect(store.db.pragma('journal_size_limit', { simple: true })).toBe(WAL_KEEP_PAGES * 4096);
      const before = statSync(path).size;
      for (const block of randomChain(7, { blocks: 40, txsPerBlock: 30, scripts: 500 })) store.applyBlocks([block]);
      await until('a checkpoint of the thread', () => store.checkpoints > 0);
      // The writer never reached its own bound: every page in the file got there through the thread.
      await until('the WAL folded into the file', () => {
        const s = walState(path);
        return s.log > 0 && s.checkpointed === s.log;
      });
      expect(statSync(path).size).toBeGreaterThan(before);
      // What the file holds now, read straight from it, is the tip the writer committed.
      const reader = openReaderDb(path);
      try {
        const tip = reader.prepare("SELECT value FROM meta WHERE key = 'tip_height'").pluck().get();
        expect(tip).toBe(store.tip()!.height);
      } finally {
        reader.close();
      }
    } finally {
      store.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('gives the writer back SQLite’s own checkpoints when the thread cannot run', async () => {
    const path = join(dir, 'fallback.sqlite');
    const writer = openWriterDb(path);
    const checkpointer = new Checkpointer(writer, join(dir, 'no-such-file.sqlite'));
    try {
      await until('the thread to fail', () => checkpointer.failed !== null);
      expect(checkpointer.failed).toMatch(/no-such-file|unable to open|does not exist/i);
      await until('the default threshold', () => writer.pragma('wal_autocheckpoint', { simple: true }) === 1000);
      expect(writer.pragma('journal_size_limit', { simple: true })).toBe(DEFAULT_WAL_LIMIT_BYTES);
    } finally {
      checkpointer.stop();
      writer.close();
    }
  });
});
