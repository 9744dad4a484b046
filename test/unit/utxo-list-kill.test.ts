/**
 * Turning the UTXO listing on over an existing index, SIGKILLed mid-build: the build is one transaction,
 * so each kill leaves either no listing or a whole one (flag and index agreeing, verify clean), and the
 * next start builds it to exactly what a fresh build holds.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database, { type SqliteDatabase } from '../../src/store/sqlite-driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/chain-store.js';
import { UTXO_LIST_INDEX, utxoListIndexExists, utxoListRecorded, verifyUtxoList } from '../../src/store/utxo-list.js';
import { verifyAggregates } from '../../src/store/verify.js';
import { exited, firstLine, killAll, startStoreChild } from '../support/store-child-run.js';

const UTXOS = 600_000;
const KILLS = 3;

/** Lines of a child's stdout until one equals `line`. */
function lineSeen(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').includes(line)) resolve();
    });
    child.on('exit', (code, signal) => reject(new Error(`child exited (${String(code ?? signal)}) before "${line}"`)));
  });
}

function digest(db: SqliteDatabase, sql: string): string {
  const h = createHash('sha256');
  for (const r of db.prepare(sql).raw().iterate() as IterableIterator<[Buffer, number, Buffer]>)
    h.update(r[0]).update(String(r[1])).update(r[2]);
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

  it(`leaves a consistent index after ${KILLS} SIGKILLs mid-build, and the next start completes it`, { timeout: 180_000 }, async () => {
    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    // A UTXO set made straight in SQL (the build reads only utxos), aggregates derived from it.
    store.db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${UTXOS - 1})
      INSERT INTO utxos (outpoint, script_key, value, height) SELECT randomblob(33), CAST(printf('%016d', i % 5000) AS BLOB), 546 + i, i / 500 FROM n;
      INSERT INTO scripts (script_key, balance, utxo_count) SELECT script_key, SUM(value), COUNT(*) FROM utxos GROUP BY script_key;`);
    store.close();
    let midBuild = 0;
    for (let i = 0; i < KILLS; i++) {
      const child = startStoreChild(['list', path]);
      children.push(child);
      expect(await firstLine(child)).toBe('building');
      await sleep(Math.floor(Math.random() * 100));
      child.kill('SIGKILL');
      await exited(child);
      const db = new Database(path);
      try {
        expect(verifyUtxoList(db as never)).toEqual([]);
        const built = utxoListIndexExists(db as never);
        expect(utxoListRecorded(db as never)).toBe(built);
        if (built) db.exec(`DROP INDEX ${UTXO_LIST_INDEX}; DELETE FROM meta WHERE key LIKE 'utxo_list%'`);
        else midBuild++;
      } finally {
        db.close();
      }
    }
    expect(midBuild).toBeGreaterThan(0);
    const child = startStoreChild(['list', path]);
    children.push(child);
    await lineSeen(child, 'built');
    child.kill('SIGKILL');
    await exited(child);
    const db = new Database(path, { readonly: true });
    try {
      expect(verifyUtxoList(db as never)).toEqual([]);
      expect(verifyAggregates(db as never).differences).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const listed = digest(
        db,
        `SELECT script_key, height, outpoint FROM utxos INDEXED BY ${UTXO_LIST_INDEX} ORDER BY script_key, height, outpoint`,
      );
      const fresh = digest(db, 'SELECT script_key, height, outpoint FROM utxos NOT INDEXED ORDER BY script_key, height, outpoint');
      expect(listed).toBe(fresh);
    } finally {
      db.close();
    }
  });
});
