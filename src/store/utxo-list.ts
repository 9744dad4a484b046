/**
 * The opt-in UTXO listing's access path (`chains.<CODE>.utxoList`, ADDRSUM_UTXO_LIST): a secondary
 * SQLite index on utxos (script_key, height, outpoint). SQLite maintains it inside every transaction
 * that touches `utxos`, so it is exactly as consistent through blocks, reorgs and kills as the table
 * itself, with no code on the write path. Its entries hold script_key, height and the outpoint (the
 * table's key, stored once): about 55 bytes per UTXO before page overhead (BENCHMARKS.md).
 *
 * Order of a script's entries: height, then the outpoint key's bytes, i.e. the txid in internal byte
 * order (the byte-reversed display hex), then the vout as its minimal big-endian bytes (outpoint.ts):
 * vouts 0–255 ascend numerically, and a vout ≥ 256 sorts by its leading byte (256 = 01 00 before 255 =
 * ff). The API pages in this order; it is total and stable, which is what keyset paging needs.
 *
 * meta `utxo_list` = 1 exactly when the index exists (both change in one transaction), so the API knows
 * whether it may list; meta `utxo_list_secret` keys the API's cursor MACs (a per-index secret, so every
 * API process behind one index accepts the others' cursors; removed with the listing, so turning it off
 * and on again voids old cursors).
 *
 * Building it over an existing index is one CREATE INDEX (SQLite sorts the keys in bulk with its
 * external sorter) in one transaction: a kill mid-build rolls it back whole, the index stays consistent
 * without it, and the next start builds it again. A snapshot bootstrap drops it before loading and the
 * indexer builds it after the load, in bulk, never row by row.
 */
import { randomBytes } from 'node:crypto';
import type { ParsedTx } from '../chain/block-parser.js';
import type { Db } from './db.js';

export const UTXO_LIST_INDEX = 'utxos_by_script';
export const UTXO_LIST_KEY = 'utxo_list';
export const UTXO_LIST_SECRET_KEY = 'utxo_list_secret';

export type UtxoListEvent =
  | { readonly kind: 'building'; readonly utxos: number }
  | { readonly kind: 'built'; readonly utxos: number; readonly seconds: number; readonly indexBytes: number }
  | { readonly kind: 'removed' };

/** The coinbase txid of a block's transactions (blocks.coinbase_txid), null when the first is no coinbase. */
export function coinbaseTxid(txs: readonly ParsedTx[]): Buffer | null {
  const first = txs[0];
  return first?.coinbase === true ? first.txid : null;
}

export function utxoListIndexExists(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(UTXO_LIST_INDEX) !== undefined;
}

export function utxoListRecorded(db: Db): boolean {
  return db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(UTXO_LIST_KEY) === 1;
}

function usedBytes(db: Db): number {
  const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
  return pages * (db.pragma('page_size', { simple: true }) as number);
}

/**
 * Makes the listing on or off as the setting says; a no-op when it already is. Turning it on builds the
 * index in one transaction (events before and after, for the log); turning it off drops it.
 */
export function setUtxoList(db: Db, on: boolean, onEvent: (e: UtxoListEvent) => void = () => undefined): void {
  const exists = utxoListIndexExists(db);
  if (on === exists && on === utxoListRecorded(db)) return;
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const delMeta = db.prepare('DELETE FROM meta WHERE key = ?');
  if (!on) {
    db.transaction(() => {
      db.exec(`DROP INDEX IF EXISTS ${UTXO_LIST_INDEX}`);
      delMeta.run(UTXO_LIST_KEY);
      delMeta.run(UTXO_LIST_SECRET_KEY);
    }).immediate();
    onEvent({ kind: 'removed' });
    return;
  }
  const utxos = db.prepare('SELECT COALESCE(SUM(utxo_count), 0) FROM scripts').pluck().get() as number;
  if (!exists) onEvent({ kind: 'building', utxos });
  const started = performance.now();
  const before = usedBytes(db);
  db.transaction(() => {
    db.exec(`CREATE INDEX IF NOT EXISTS ${UTXO_LIST_INDEX} ON utxos (script_key, height, outpoint)`);
    setMeta.run(UTXO_LIST_KEY, 1);
    if (db.prepare('SELECT 1 FROM meta WHERE key = ?').get(UTXO_LIST_SECRET_KEY) === undefined)
      setMeta.run(UTXO_LIST_SECRET_KEY, randomBytes(32));
  }).immediate();
  if (!exists) onEvent({ kind: 'built', utxos, seconds: (performance.now() - started) / 1000, indexBytes: usedBytes(db) - before });
}

/**
 * verify: the flag and the index agree, and the index holds exactly each script's UTXO count (read
 * from the index alone, in its own key order, merge-joined with `scripts`). Human-readable problems.
 */
export function verifyUtxoList(db: Db): string[] {
  return db.transaction(() => {
    const exists = utxoListIndexExists(db);
    const recorded = utxoListRecorded(db);
    if (exists !== recorded)
      return [`the UTXO listing index ${exists ? 'exists' : 'is missing'} but meta utxo_list says ${recorded ? 'on' : 'off'}`];
    if (!exists) return [];
    const counted = db
      .prepare(`SELECT script_key, COUNT(*) AS n FROM utxos INDEXED BY ${UTXO_LIST_INDEX} GROUP BY script_key ORDER BY script_key`)
      .iterate() as IterableIterator<{ script_key: Buffer; n: number }>;
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
