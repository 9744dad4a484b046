/**
 * The read path (the API's only door to a chain database). Opened `{ readonly: true, fileMustExist:
 * true }`: it never creates, migrates or writes (STYLE habit 7), and WAL lets it read while the indexer
 * commits.
 *
 * Consistency: each answer is ONE SQL statement, and a statement reads one snapshot (SQLite wraps it in
 * an implicit read transaction), so the balance and the tip it is reported at always belong to the
 * same commit. The balance is one primary-key lookup in `scripts` (WITHOUT ROWID: the row lives in the
 * key's b-tree leaf), however many UTXOs the script has.
 */
import { toDisplayHex } from '../chain/hash.js';
import type { ChainCode, NetworkName } from '../chain/params.js';
import { openReaderDb, type Db, type ReaderDbOptions } from './db.js';
import { StoreError } from './errors.js';
import { checkSchemaVersion } from './migrate.js';
import { scriptKey } from './script-key.js';
import type Database from 'better-sqlite3';

export { StoreError, type StoreErrorCode } from './errors.js';

export interface ScriptSummary {
  balanceSats: number;
  utxoCount: number;
  tipHeight: number;
  /** Display (byte-reversed) hex. */
  tipHash: string;
}

export interface ChainStatus {
  tipHeight: number;
  tipHash: string;
  nodeHeight: number | null;
  nodeSeenAt: Date | null;
  /** The tip block's header time; null for an index written before it was recorded (or just after a rollback). */
  tipTime: Date | null;
}

interface SummaryRow {
  tip_height: number | null;
  tip_hash: Buffer | null;
  balance: number | null;
  utxo_count: number | null;
}

interface StatusRow {
  tip_height: number | null;
  tip_hash: Buffer | null;
  node_height: number | null;
  node_seen_at: number | null;
  tip_time: number | null;
}

const META = (key: string): string => `(SELECT value FROM meta WHERE key = '${key}')`;

export class ChainReader {
  private readonly summaryStmt: Database.Statement<[Buffer], SummaryRow>;
  private readonly statusStmt: Database.Statement<[], StatusRow>;

  private constructor(
    readonly db: Db,
    readonly path: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
  ) {
    // The LEFT JOIN against a one-row subquery keeps the tip when the script has no row.
    this.summaryStmt = db.prepare(
      `SELECT ${META('tip_height')} AS tip_height, ${META('tip_hash')} AS tip_hash, s.balance, s.utxo_count ` +
        'FROM (SELECT 1) LEFT JOIN scripts AS s ON s.script_key = ?',
    );
    this.statusStmt = db.prepare(
      `SELECT ${META('tip_height')} AS tip_height, ${META('tip_hash')} AS tip_hash, ` +
        `${META('node_height')} AS node_height, ${META('node_seen_at')} AS node_seen_at, ` +
        `${META('tip_time')} AS tip_time`,
    );
  }

  /** Throws StoreError NO_DATABASE, UNREADABLE, DAMAGED, NOT_INITIALIZED, SCHEMA_TOO_NEW or SCHEMA_TOO_OLD. */
  static open(path: string, opts: ReaderDbOptions = {}): ChainReader {
    const db = openReaderDb(path, opts);
    try {
      checkSchemaVersion(db, path);
      const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('chain', 'network')").all() as { key: string; value: string }[];
      const meta = new Map(rows.map((r) => [r.key, r.value]));
      const chain = meta.get('chain');
      const network = meta.get('network');
      if (!chain || !network) throw new StoreError('NOT_INITIALIZED', `database ${path} has no chain recorded yet`);
      return new ChainReader(db, path, chain as ChainCode, network as NetworkName);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Balance and UTXO count of a scriptPubKey at the indexed tip; zeros for a script never seen, null
   * while nothing is indexed.
   */
  summary(script: Uint8Array): ScriptSummary | null {
    const row = this.summaryStmt.get(scriptKey(script))!;
    if (row.tip_height === null || row.tip_hash === null) return null;
    return {
      balanceSats: row.balance ?? 0,
      utxoCount: row.utxo_count ?? 0,
      tipHeight: row.tip_height,
      tipHash: toDisplayHex(row.tip_hash),
    };
  }

  /** Indexed tip and the node's height as last seen by the indexer; null while nothing is indexed. */
  status(): ChainStatus | null {
    const row = this.statusStmt.get()!;
    if (row.tip_height === null || row.tip_hash === null) return null;
    return {
      tipHeight: row.tip_height,
      tipHash: toDisplayHex(row.tip_hash),
      nodeHeight: row.node_height,
      nodeSeenAt: row.node_seen_at === null ? null : new Date(row.node_seen_at),
      tipTime: row.tip_time === null ? null : new Date(row.tip_time * 1000),
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
