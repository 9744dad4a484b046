/**
 * The header backfill (indexer/header-backfill.ts) against a real SQLite writer and a node made of a
 * synthetic chain: it fills every missing header down to genesis, refuses a node whose headers are not
 * those of the heights asked for (a bad hash, a broken link, another chain) without committing the run,
 * and goes on from the last committed run after an interruption.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toDisplayHex } from '../../src/chain/hash.js';
import type { BlockToApply } from '../../src/store/index-model.js';
import { openSqliteWriter, type SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { backfillHeaders, type HeaderSource } from '../../indexer/header-backfill.js';
import { ChainBuilder, Rng } from '../support/blocks.js';

const TIP = 40;
const CHUNK = 7;

interface Log {
  lines: { obj: object; msg: string }[];
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

function recordingLog(): Log {
  const lines: Log['lines'] = [];
  const add = (obj: object, msg: string) => void lines.push({ obj, msg });
  return { lines, info: add, warn: add };
}

/** A node serving `blocks`' hashes and headers, with what each call asked recorded and a hook to corrupt an answer. */
function node(blocks: readonly BlockToApply[], alter: (start: number, headers: Buffer[]) => Buffer[] = (_, h) => h) {
  const asked: number[] = [];
  const source: HeaderSource = {
    getBlockHash: (height) => Promise.resolve(toDisplayHex(blocks[height]!.hash)),
    getHeaders: (height, hash, count) => {
      expect(hash).toBe(toDisplayHex(blocks[height]!.hash));
      asked.push(height);
      return Promise.resolve(
        alter(
          height,
          blocks.slice(height, height + count).map((b) => Buffer.from(b.header)),
        ),
      );
    },
  };
  return { source, asked };
}

describe('header backfill', () => {
  let writer: SqliteIndexWriter;
  let chain: ChainBuilder;

  beforeEach(async () => {
    chain = new ChainBuilder(new Rng(0xbac7));
    for (let h = 0; h <= TIP; h++) chain.block([]);
    writer = openSqliteWriter(':memory:', { chain: 'BTC', network: 'regtest' });
    await writer.applyBlocks(chain.blocks);
    // An index whose headers below 33 were never stored (made before migration 0009, or a snapshot's).
    writer.store.db.prepare('DELETE FROM headers WHERE height < 33').run();
    expect(await writer.headersFrom()).toBe(33);
  });
  afterEach(() => writer.close());

  const stored = () => writer.store.db.prepare('SELECT header FROM headers ORDER BY height').pluck().all() as Buffer[];

  it('fills every missing header down to genesis, a run per commit, with progress lines', async () => {
    const { source, asked } = node(chain.blocks);
    const log = recordingLog();
    await backfillHeaders(writer, source, log, { chunk: CHUNK, progressEveryMs: 0 });
    expect(await writer.headersFrom()).toBe(0);
    expect(stored()).toEqual(chain.blocks.map((b) => b.header));
    expect(asked).toEqual([26, 19, 12, 5, 0]);
    expect(log.lines.at(-2)?.obj).toMatchObject({ headersFrom: 0, stored: 33, of: 33, percent: 100 });
    // Nothing missing: no call to the node at all.
    await backfillHeaders(writer, source, log, { chunk: CHUNK });
    expect(asked).toHaveLength(5);
  });

  it('refuses a header that does not hash to the hash the node gives for its height, committing nothing of the run', async () => {
    const { source } = node(chain.blocks, (start, h) => (start === 19 ? [Buffer.from(chain.blocks[18]!.header), ...h.slice(1)] : h));
    await expect(backfillHeaders(writer, source, recordingLog(), { chunk: CHUNK })).rejects.toMatchObject({ code: 'HEADER_MISMATCH' });
    expect(await writer.headersFrom()).toBe(26);
  });

  it('refuses a run whose links break, or that does not link to the stored headers (another chain)', async () => {
    const flipped = (h: Buffer) => Buffer.concat([h.subarray(0, 79), Buffer.from([h[79]! ^ 1])]);
    const broken = node(chain.blocks, (start, h) => (start === 19 ? h.map((x, i) => (i === 3 ? flipped(x) : x)) : h));
    await expect(backfillHeaders(writer, broken.source, recordingLog(), { chunk: CHUNK, attempts: 2, retryMs: 1 })).rejects.toMatchObject({
      code: 'BAD_HEADER',
    });
    expect(await writer.headersFrom()).toBe(26);

    // A node on another branch from height 20 up: its run below 26 does not end in the parent of 26.
    const other = new ChainBuilder(new Rng(0x07e4));
    for (const b of chain.blocks.slice(0, 20)) other.blocks.push(b);
    for (let h = 20; h <= TIP; h++) other.block([]);
    const log = recordingLog();
    await expect(backfillHeaders(writer, node(other.blocks).source, log, { chunk: CHUNK, attempts: 2, retryMs: 1 })).rejects.toMatchObject({
      code: 'BAD_HEADER',
    });
    expect(log.lines.filter((l) => l.msg.includes('fetching it again'))).toHaveLength(1);
    expect(await writer.headersFrom()).toBe(26);
  });

  it('goes on from the last committed run after an interruption', async () => {
    const failing = node(chain.blocks, (start, h) => {
      if (start === 12) throw new Error('killed');
      return h;
    });
    await expect(backfillHeaders(writer, failing.source, recordingLog(), { chunk: CHUNK })).rejects.toThrow('killed');
    expect(await writer.headersFrom()).toBe(19);
    expect(stored()).toEqual(chain.blocks.slice(19).map((b) => b.header));

    const { source, asked } = node(chain.blocks);
    await backfillHeaders(writer, source, recordingLog(), { chunk: CHUNK });
    expect(asked).toEqual([12, 5, 0]);
    expect(stored()).toEqual(chain.blocks.map((b) => b.header));
  });

  it('stores a run that reaches the tip when no header is stored at all', async () => {
    writer.store.db.prepare('DELETE FROM headers').run();
    expect(await writer.headersFrom()).toBe(TIP + 1);
    await backfillHeaders(writer, node(chain.blocks).source, recordingLog(), { chunk: CHUNK });
    expect(stored()).toEqual(chain.blocks.map((b) => b.header));
  });
});
