/**
 * The opt-in UTXO listing's access path (`chains.<CODE>.utxoList`, ADDRSUM_UTXO_LIST): secondary SQLite
 * indexes on utxos (script_key, height, outpoint), 16 partial ones sharded by the high nibble of
 * script_key (utxo-list-shards.ts). SQLite maintains them inside every transaction that touches
 * `utxos`, so they are exactly as consistent through blocks, reorgs and kills as the table itself, with
 * no code on the write path; each row is in exactly one shard, so a block costs what one index costs.
 * Their entries hold script_key, height and the outpoint (the table's key, stored once): about 55 bytes
 * per UTXO before page overhead (BENCHMARKS.md).
 *
 * Order of a script's entries: height, then the outpoint key's bytes, i.e. the txid in internal byte
 * order (the byte-reversed display hex), then the vout as its minimal big-endian bytes (outpoint.ts):
 * vouts 0–255 ascend numerically, and a vout ≥ 256 sorts by its leading byte (256 = 01 00 before 255 =
 * ff). The API pages in this order; it is total and stable, which is what keyset paging needs.
 *
 * meta `utxo_list` = 1 exactly when all 16 shards exist (set in the transaction that creates the last
 * one, removed with them), so the API knows whether it may list; meta `utxo_list_secret` keys the API's
 * cursor MACs (a per-index secret, so every API process behind one index accepts the others' cursors;
 * removed with the listing, so turning it off and on again voids old cursors).
 *
 * Building it over an existing index is one CREATE INDEX per shard (SQLite sorts the keys in bulk with
 * its external sorter), each in its own transaction: at 185M UTXOs the whole build takes many minutes,
 * so a kill loses at most the shard in progress, the next start builds only the missing shards, and
 * each shard built is a progress line. A snapshot bootstrap drops the shards before loading and the
 * indexer builds them after the load, in bulk, never row by row.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';
import { ALL_SHARDS, LEGACY_UTXO_LIST_INDEX, shardIndexName, shardIndexSql, shardTerms, UTXO_LIST_SHARDS } from './utxo-list-shards.js';
import type { UtxoListEvent } from '../index-model.js';

export const UTXO_LIST_KEY = 'utxo_list';
export const UTXO_LIST_SECRET_KEY = 'utxo_list_secret';

function indexExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) !== undefined;
}

/** The shards whose index exists, ascending. */
export function utxoListShards(db: Db): number[] {
  return ALL_SHARDS.filter((k) => indexExists(db, shardIndexName(k)));
}

/** All 16 shards exist. */
export function utxoListIndexExists(db: Db): boolean {
  return utxoListShards(db).length === UTXO_LIST_SHARDS;
}

export function legacyUtxoListIndexExists(db: Db): boolean {
  return indexExists(db, LEGACY_UTXO_LIST_INDEX);
}

export function utxoListRecorded(db: Db): boolean {
  return db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(UTXO_LIST_KEY) === 1;
}

function usedBytes(db: Db): number {
  const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
  return pages * (db.pragma('page_size', { simple: true }) as number);
}

/** UTXOs per shard, from the aggregates (a range of `scripts` each, no read of `utxos`). */
function shardUtxos(db: Db, shards: readonly number[]): number[] {
  return shards.map(
    (k) =>
      db
        .prepare(`SELECT COALESCE(SUM(utxo_count), 0) FROM scripts WHERE ${shardTerms(k)}`)
        .pluck()
        .get() as number,
  );
}

/**
 * Makes the listing on or off as the setting says; a no-op when it already is. Turning it on builds
 * the missing shards, each in its own transaction (a legacy single index is dropped first), with
 * events for the log; turning it off drops every shard and the legacy index.
 */
export function setUtxoList(db: Db, on: boolean, onEvent: (e: UtxoListEvent) => void = () => undefined): void {
  const present = utxoListShards(db);
  const legacy = legacyUtxoListIndexExists(db);
  const recorded = utxoListRecorded(db);
  const whole = present.length === UTXO_LIST_SHARDS;
  if (!legacy && on === whole && on === recorded && (on || present.length === 0)) return;
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const delMeta = db.prepare('DELETE FROM meta WHERE key = ?');
  if (!on) {
    db.transaction(() => {
      for (const k of ALL_SHARDS) db.exec(`DROP INDEX IF EXISTS ${shardIndexName(k)}`);
      db.exec(`DROP INDEX IF EXISTS ${LEGACY_UTXO_LIST_INDEX}`);
      delMeta.run(UTXO_LIST_KEY);
      delMeta.run(UTXO_LIST_SECRET_KEY);
    }).immediate();
    onEvent({ kind: 'removed' });
    return;
  }
  // The flag must never stand while a shard is missing: the API would prepare a shard that is not there.
  if (legacy || (recorded && !whole))
    db.transaction(() => {
      db.exec(`DROP INDEX IF EXISTS ${LEGACY_UTXO_LIST_INDEX}`);
      delMeta.run(UTXO_LIST_KEY);
    }).immediate();
  const record = (): void => {
    setMeta.run(UTXO_LIST_KEY, 1);
    if (db.prepare('SELECT 1 FROM meta WHERE key = ?').get(UTXO_LIST_SECRET_KEY) === undefined)
      setMeta.run(UTXO_LIST_SECRET_KEY, randomBytes(32));
  };
  const missing = ALL_SHARDS.filter((k) => !present.includes(k));
  if (missing.length === 0) {
    db.transaction(record).immediate();
    return;
  }
  const sizes = shardUtxos(db, missing);
  const total = sizes.reduce((a, b) => a + b, 0);
  onEvent({ kind: 'building', utxos: total, shards: missing.length, of: UTXO_LIST_SHARDS });
  const started = performance.now();
  const before = usedBytes(db);
  let done = 0;
  missing.forEach((k, i) => {
    const last = i === missing.length - 1;
    db.transaction(() => {
      db.exec(shardIndexSql(k));
      if (last) record();
    }).immediate();
    done += sizes[i]!;
    const seconds = (performance.now() - started) / 1000;
    const etaSeconds = done > 0 ? (seconds * (total - done)) / done : 0;
    onEvent({ kind: 'shard', shard: k, built: present.length + i + 1, of: UTXO_LIST_SHARDS, utxos: done, total, seconds, etaSeconds });
  });
  onEvent({ kind: 'built', utxos: total, seconds: (performance.now() - started) / 1000, indexBytes: usedBytes(db) - before });
}

/** Each script's entry count, read from the shards alone in their key order (the shards are ascending key ranges). */
function* countedByShard(db: Db): Generator<{ script_key: Buffer; n: number }> {
  for (const k of ALL_SHARDS) {
    yield* db
      .prepare(
        `SELECT script_key, COUNT(*) AS n FROM utxos INDEXED BY ${shardIndexName(k)} WHERE ${shardTerms(k)} GROUP BY script_key ORDER BY script_key`,
      )
      .iterate() as IterableIterator<{ script_key: Buffer; n: number }>;
  }
}

/**
 * verify: the flag and the shards agree, and the shards hold exactly each script's UTXO count
 * (merge-joined with `scripts`). Human-readable problems.
 */
export function verifyUtxoList(db: Db): string[] {
  return db.transaction(() => {
    const present = utxoListShards(db);
    const recorded = utxoListRecorded(db);
    const problems: string[] = [];
    if (legacyUtxoListIndexExists(db)) problems.push(`the legacy UTXO listing index ${LEGACY_UTXO_LIST_INDEX} is still there`);
    if (present.length === UTXO_LIST_SHARDS && !recorded) problems.push('all 16 UTXO listing shards exist but meta utxo_list says off');
    if (present.length < UTXO_LIST_SHARDS && recorded)
      problems.push(`meta utxo_list says on but only ${present.length} of the 16 UTXO listing shards exist`);
    if (problems.length > 0 || present.length < UTXO_LIST_SHARDS) return problems;
    const counted = countedByShard(db);
    const stored = db.prepare('SELECT script_key, utxo_count AS n FROM scripts ORDER BY script_key').iterate() as IterableIterator<{
      script_key: Buffer;
      n: number;
    }>;
    let differences = 0;
    let c = counted.next();
    let s = stored.next();
    while (!c.done || !s.done) {
      const cmp = c.done ? 1 : s.done ? -1 : Buffer.compare(c.value.script_key, s.value.script_key);
      if (cmp !== 0 || c.value!.n !== s.value!.n) differences++;
      if (cmp <= 0) c = counted.next();
      if (cmp >= 0) s = stored.next();
    }
    return differences === 0 ? [] : [`the UTXO listing index disagrees with scripts.utxo_count for ${differences} scripts`];
  })();
}
