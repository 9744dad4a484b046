/** Whole-table dumps of a chain database, for before/after comparisons in store tests. */
import type Database from 'better-sqlite3';
import { decodeOutpoint } from '../../src/store/outpoint.js';

type Row = Record<string, unknown>;

const hex = (v: unknown): unknown => (Buffer.isBuffer(v) ? v.toString('hex') : v);

function table(db: Database.Database, sql: string): string[] {
  return (db.prepare(sql).all() as Row[]).map((r) => Object.values(r).map(hex).join(' '));
}

/** Every table, rows in key order; meta without the keys that change without a block (node_*, writer_*). */
export function dumpTables(db: Database.Database): Record<string, string[]> {
  return {
    utxos: table(db, 'SELECT * FROM utxos ORDER BY outpoint'),
    scripts: table(db, 'SELECT * FROM scripts ORDER BY script_key'),
    blocks: table(db, 'SELECT * FROM blocks ORDER BY height'),
    undo: table(db, 'SELECT * FROM undo ORDER BY height'),
    meta: table(db, "SELECT * FROM meta WHERE key NOT LIKE 'node\\_%' ESCAPE '\\' AND key NOT LIKE 'writer\\_%' ESCAPE '\\' ORDER BY key"),
  };
}

/** UTXO rows in the model's format (`txidhex:vout scriptkeyhex value height`), sorted. */
export function utxoRows(db: Database.Database): string[] {
  const rows = db.prepare('SELECT outpoint, script_key, value, height FROM utxos').all() as {
    outpoint: Buffer;
    script_key: Buffer;
    value: number;
    height: number;
  }[];
  return rows
    .map((r) => {
      const { txid, vout } = decodeOutpoint(r.outpoint);
      return `${txid.toString('hex')}:${vout} ${r.script_key.toString('hex')} ${r.value} ${r.height}`;
    })
    .sort();
}

export function scriptRows(db: Database.Database): string[] {
  return table(db, 'SELECT script_key, balance, utxo_count FROM scripts').sort();
}
