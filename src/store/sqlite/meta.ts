/** Reading the `meta` table of a chain's index: its key/value facts, and the one total that needs care. */
import type { Db } from './db.js';

type MetaRow = { key: string; value: unknown };

/**
 * meta utxo_amount exactly. Bound as a bigint, it is an INTEGER that safeIntegers reads back as a bigint;
 * a file written before holds a REAL (better-sqlite3 binds numbers as doubles and `meta.value` is ANY),
 * integral and below 2^53, which BigInt() takes exactly.
 */
export function readAmount(db: Db): bigint {
  const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().safeIntegers(true).get('utxo_amount');
  return BigInt((value as bigint | number | undefined) ?? 0n);
}

export function readMeta(db: Db): Map<string, unknown> {
  const rows = db.prepare('SELECT key, value FROM meta').all() as MetaRow[];
  return new Map(rows.map((r) => [r.key, r.value]));
}
