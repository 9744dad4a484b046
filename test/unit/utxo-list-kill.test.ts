/**
 * Turning the UTXO listing on over an existing index, SIGKILLed mid-build: each shard is built in its
 * own transaction, so a kill between two shards keeps every shard built, a kill inside a shard loses
 * that shard alone, the flag stays off until the last shard commits (verify clean after every kill),
 * and the next start builds only the missing shards, ending with exactly what a fresh build holds.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { utxoListRecorded, utxoListShards, verifyUtxoList } from '../../src/store/sqlite/utxo-list.js';
import { UTXO_LIST_SHARDS } from '../../src/store/sqlite/utxo-list-shards.js';
import { verifyAggregates } from '../../src/store/sqlite/verify.js';
import { exited, killAll, linesUntil, startStoreChild } from '../support/store-child-run.js';
import { listedEntries, tableEntries } from '../support/utxo-listing.js';

const UTXOS = 600_000;
const SCRIPTS = 5000;
/** Attempts at a kill inside a shard (each restarts the build and kills it as soon as a shard commits). */
const INSIDE_KILLS = 4;

function digest(rows: Iterable<[Buffer, number, Buffer]>): string {
  const h = createHash('sha256');
  for (const r of rows) h.update(r[0]).update(String(r[1])).update(r[2]);
  return h.digest('hex');
}

describe('UTXO listing build killed midway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'addrsum-listkill-'));
  const path = join(dir, 'ltc.sqlite');
  const children: ChildProcess[] = [];
  afterAll(() => {
    killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a build, kills it once `stop` says so, and checks what the kill left; returns the shards present. */
  async function killedBuild(args: string[], stop: (line: string) => boolean): Promise<{ shards: number[]; lines: string[] }> {
    const child = startStoreChild(['list', path, ...args]);
    children.push(child);
    const lines = await linesUntil(child, stop);
    child.kill('SIGKILL');
    await exited(child);
    const db = new Database(path);
    try {
      expect(verifyUtxoList(db as never)).toEqual([]);
      const shards = utxoListShards(db as never);
      expect(utxoListRecorded(db as never)).toBe(shards.length === UTXO_LIST_SHARDS);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      return { shards, lines };
    } finally {
      db.close();
    }
  }

  it('keeps every shard built across kills between and inside shards, and the next start completes it', { timeout: 180_000 }, async () => {
    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    // A UTXO set made straight in SQL (the build reads only utxos and scripts), random script keys so
    // that every shard gets its share, aggregates derived from it.
    store.db.exec(`
      CREATE TEMP TABLE k (i INTEGER PRIMARY KEY, key BLOB);
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${SCRIPTS - 1}) INSERT INTO k SELECT i, randomblob(16) FROM n;
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${UTXOS - 1})
      INSERT INTO utxos (outpoint, script_key, value, height) SELECT randomblob(33), (SELECT key FROM k WHERE k.i = n.i % ${SCRIPTS}), 546 + i, i / 500 FROM n;
      INSERT INTO scripts (script_key, balance, utxo_count) SELECT script_key, SUM(value), COUNT(*) FROM utxos GROUP BY script_key;`);
    store.close();

    // Between shards: the child blocks after its 5th shard commits, and is killed there.
    const between = await killedBuild(['5'], (l) => l === 'shard 4');
    expect(between.shards).toEqual([0, 1, 2, 3, 4]);

    // Inside a shard: killed as soon as a shard commits, so almost always within the next shard's
    // CREATE INDEX (tens of ms) rather than in the instant between the two. Each restart builds only the
    // missing shards (its first line names the first missing one).
    let inside = 0;
    let present = between.shards;
    for (let i = 0; i < INSIDE_KILLS && present.length < UTXO_LIST_SHARDS - 1; i++) {
      const { shards, lines } = await killedBuild([], (l) => l.startsWith('shard '));
      const firstBuilt = Number(lines.find((l) => l.startsWith('shard '))!.slice(6));
      expect(firstBuilt).toBe(present.length);
      expect(shards.slice(0, present.length)).toEqual(present);
      // Shards are built in order: what the kill left is a prefix, one past what the line announced unless the next one committed too.
      expect(shards).toEqual(Array.from({ length: shards.length }, (_, k) => k));
      if (shards.length === firstBuilt + 1) inside++;
      present = shards;
    }
    expect(inside).toBeGreaterThan(0);

    const child = startStoreChild(['list', path]);
    children.push(child);
    const lines = await linesUntil(child, (l) => l === 'done');
    child.kill('SIGKILL');
    await exited(child);
    // Only the missing shards were built.
    expect(lines.filter((l) => l.startsWith('shard '))).toEqual(
      Array.from({ length: UTXO_LIST_SHARDS - present.length }, (_, i) => `shard ${present.length + i}`),
    );
    const db = new Database(path, { readonly: true });
    try {
      expect(utxoListShards(db as never)).toHaveLength(UTXO_LIST_SHARDS);
      expect(utxoListRecorded(db as never)).toBe(true);
      expect(verifyUtxoList(db as never)).toEqual([]);
      expect(verifyAggregates(db as never).differences).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(digest(listedEntries(db))).toBe(digest(tableEntries(db)));
    } finally {
      db.close();
    }
  });
});
