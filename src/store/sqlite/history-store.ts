/**
 * The SQLite side of address history (migrations/0006_history.sql; the layout is history-chunk.ts's):
 * committing a batch's HistoryChange inside the batch's own transaction, and undoing the tip block's.
 *
 * A rollback needs no arithmetic: each block within the undo window keeps the before-images of the heads
 * it changed (history_undo), and every chunk it sealed is keyed above its first transaction number. So
 * a rollback puts the images back and deletes those chunks, whatever the block held.
 *
 *   history_undo.data : u8 1 | repeated (script_key[16] | varint n | n bytes of head), n = 0: no head before
 */
import { randomBytes } from 'node:crypto';
import {
  HEAD_ENTRIES,
  HISTORY_FORMAT,
  NO_HISTORY,
  decodeHead,
  encodeChunk,
  encodeEntries,
  encodeHead,
  plus,
  scanHead,
  type HistoryEntry,
} from '../history-chunk.js';
import type { HistoryChange } from '../history-change.js';
import { StoreError } from '../errors.js';
import { SCRIPT_KEY_BYTES } from '../script-key.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';
import { CHUNK } from './statements.js';

/** meta key: 1 while the index keeps history for every block, 2 while it is being built (history-build.ts). */
export const HISTORY_KEY = 'history';
export type HistoryState = 'off' | 'building' | 'on';
const STATE_CODES = { on: 1, building: 2 } as const;
/** meta history's value while a build is under way. */
export const BUILDING = STATE_CODES.building;
/** meta key: the layout's version (history-chunk.ts HISTORY_FORMAT). */
const FORMAT_KEY = 'history_format';
/** meta key: the key history page cursors are sealed with (src/api/history-cursor.ts), made when history starts. */
export const HISTORY_SECRET_KEY = 'history_secret';
/** meta key: the number the next connected transaction gets. */
export const NEXT_TX_KEY = 'history_next_tx';
/** 126 txids (4,032 bytes) and their record header fill one 4 KiB page: 64 would leave half of each page empty. */
export const TXIDS_PER_ROW = 126;
const IMAGES_FORMAT = 1;

/**
 * A head being appended to, kept as bytes: appending encodes only the new entries (a busy script's head
 * holds up to HEAD_ENTRIES, which a decode and re-encode per block would all pay for).
 */
interface Head {
  readonly key: Buffer;
  /** The row's bytes so far (null: the script had no head), then entries not yet encoded onto them. */
  stored: Buffer | null;
  /** The txNum of the newest entry in `stored` (0: none), which the next entry's delta counts from. */
  storedLast: number;
  pending: HistoryEntry[];
  /** Entries in the head, stored and pending. */
  count: number;
}

/** A head with no sealed chunk and no entry. */
const EMPTY_HEAD = encodeHead({ sealed: NO_HISTORY, entries: [] });

export class HistoryStore {
  private readonly headGet;
  /** Heads of CHUNK scripts in one statement: a batch reads and writes thousands. */
  private readonly headsGet;
  private readonly headPut;
  private readonly headsPut;
  private readonly headDelete;
  private readonly chunksAbove;
  private readonly blockPut;
  private readonly blockLast;
  private readonly blockDelete;
  private readonly txidsGet;
  private readonly txidsPut;
  private readonly txidsFrom;
  private readonly undoPut;
  private readonly undoGet;
  private readonly undoDelete;
  private readonly undoPrune;
  private readonly metaGet;
  private readonly metaSet;

  constructor(private readonly db: Db) {
    this.headGet = db.prepare<[Buffer], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk = 0').pluck();
    this.headsGet = db.prepare<Buffer[], { script_key: Buffer; data: Buffer }>(
      `SELECT script_key, data FROM history WHERE chunk = 0 AND script_key IN (${Array<string>(CHUNK).fill('?').join(', ')})`,
    );
    this.headPut = db.prepare<[Buffer, number, Buffer]>('INSERT OR REPLACE INTO history (script_key, chunk, data) VALUES (?, ?, ?)');
    this.headsPut = db.prepare<Buffer[]>(
      `INSERT OR REPLACE INTO history (script_key, chunk, data) VALUES ${Array<string>(CHUNK).fill('(?, 0, ?)').join(', ')}`,
    );
    this.headDelete = db.prepare<[Buffer]>('DELETE FROM history WHERE script_key = ? AND chunk = 0');
    this.chunksAbove = db.prepare<[Buffer, number]>('DELETE FROM history WHERE script_key = ? AND chunk > ?');
    this.blockPut = db.prepare<[number, number]>('INSERT INTO history_blocks (first_tx, height) VALUES (?, ?)');
    this.blockLast = db.prepare<[], { first_tx: number; height: number }>(
      'SELECT first_tx, height FROM history_blocks ORDER BY first_tx DESC LIMIT 1',
    );
    this.blockDelete = db.prepare<[number]>('DELETE FROM history_blocks WHERE first_tx = ?');
    this.txidsGet = db.prepare<[number], Buffer>('SELECT txids FROM history_txids WHERE grp = ?').pluck();
    this.txidsPut = db.prepare<[number, Buffer]>('INSERT OR REPLACE INTO history_txids (grp, txids) VALUES (?, ?)');
    this.txidsFrom = db.prepare<[number]>('DELETE FROM history_txids WHERE grp >= ?');
    this.undoPut = db.prepare<[number, Buffer]>('INSERT INTO history_undo (height, data) VALUES (?, ?)');
    this.undoGet = db.prepare<[number], Buffer>('SELECT data FROM history_undo WHERE height = ?').pluck();
    this.undoDelete = db.prepare<[number]>('DELETE FROM history_undo WHERE height = ?');
    this.undoPrune = db.prepare<[number]>('DELETE FROM history_undo WHERE height <= ?');
    this.metaGet = db.prepare<[string], unknown>('SELECT value FROM meta WHERE key = ?').pluck();
    this.metaSet = db.prepare<[string, unknown]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get state(): HistoryState {
    const code = this.metaGet.get(HISTORY_KEY);
    return code === STATE_CODES.on ? 'on' : code === STATE_CODES.building ? 'building' : 'off';
  }

  /** The number the next connected transaction gets. */
  nextTx(): number {
    return Number(this.metaGet.get(NEXT_TX_KEY) ?? 0);
  }

  /**
   * Starts history with no entry, inside the caller's transaction: kept from the next block ('on', an index
   * with no block yet), or built from genesis first ('building').
   */
  start(state: 'on' | 'building'): void {
    this.metaSet.run(HISTORY_KEY, STATE_CODES[state]);
    this.metaSet.run(FORMAT_KEY, HISTORY_FORMAT);
    this.metaSet.run(HISTORY_SECRET_KEY, randomBytes(32));
    this.metaSet.run(NEXT_TX_KEY, 0);
  }

  /** A build reached the tip: history is kept from the next block on (inside the caller's transaction). */
  built(): void {
    this.metaSet.run(HISTORY_KEY, STATE_CODES.on);
  }

  /** Stops keeping history and forgets it, the mempool's part too (mempool-store.ts), inside the caller's transaction. */
  drop(): void {
    for (const table of ['history', 'history_blocks', 'history_txids', 'history_undo', 'mempool_history'])
      this.db.prepare(`DELETE FROM ${table}`).run();
    this.db.prepare('DELETE FROM meta WHERE key IN (?, ?, ?, ?)').run(HISTORY_KEY, FORMAT_KEY, HISTORY_SECRET_KEY, NEXT_TX_KEY);
  }

  /** Writes a batch's history; blocks at or above `undoFrom` keep the before-images of the heads they change. */
  commit(change: HistoryChange, undoFrom: number): void {
    const heads = this.loadHeads(change);
    for (const block of change.blocks) {
      // Every real block has a coinbase; a block of no transaction (test chains) numbers none and needs no row.
      if (block.txids.length > 0) this.blockPut.run(block.firstTx, block.height);
      this.appendTxids(block.firstTx, block.txids);
      const images = block.height >= undoFrom ? new Map<string, Buffer | null>() : null;
      for (const entry of block.entries) {
        const id = entry.scriptId;
        const head = heads.get(id)!;
        if (images && !images.has(id)) images.set(id, bytesOf(head));
        const { txNum, received, sent, funded, spent } = entry;
        head.pending.push({ txNum, received, sent, funded, spent });
        if (++head.count >= HEAD_ENTRIES) {
          const full = decodeHead(bytesOf(head)!);
          this.headPut.run(head.key, txNum + 1, encodeChunk(full.entries));
          head.stored = encodeHead({ sealed: plus(full.sealed, full.entries), entries: [] });
          head.storedLast = 0;
          head.count = 0;
        }
      }
      if (images) this.undoPut.run(block.height, encodeImages(heads, images));
    }
    this.writeHeads([...heads.values()]);
    this.undoPrune.run(undoFrom - 1);
    this.metaSet.run(NEXT_TX_KEY, change.nextTx);
  }

  /**
   * Undoes block `height`, the tip, inside the caller's transaction; returns the scripts whose history
   * it changed. Throws StoreError INCONSISTENT or NO_UNDO.
   */
  rollback(height: number): Buffer[] {
    const last = this.blockLast.get();
    if (!last || last.height < height) {
      // The block numbered no transaction, so it changed no history.
      this.undoDelete.run(height);
      return [];
    }
    if (last.height !== height)
      throw new StoreError('INCONSISTENT', `history's last block is ${last ? `height ${last.height}` : 'none'}, not the tip ${height}`);
    const data = this.undoGet.get(height);
    if (!data) throw new StoreError('NO_UNDO', `no history undo data for block ${height}`);
    const touched: Buffer[] = [];
    for (const [key, image] of decodeImages(data)) {
      touched.push(Buffer.from(key));
      // Chunks sealed by this block end at or after its first transaction: their keys are above it.
      this.chunksAbove.run(key, last.first_tx);
      if (image) this.headPut.run(key, 0, image);
      else this.headDelete.run(key);
    }
    this.truncateTxids(last.first_tx);
    this.blockDelete.run(last.first_tx);
    this.undoDelete.run(height);
    this.metaSet.run(NEXT_TX_KEY, last.first_tx);
    return touched;
  }

  /** The heads of every script the change touches, CHUNK to a statement. */
  private loadHeads(change: HistoryChange): Map<string, Head> {
    const heads = new Map<string, Head>();
    for (const block of change.blocks)
      for (const e of block.entries)
        if (!heads.has(e.scriptId)) heads.set(e.scriptId, { key: e.scriptKey, stored: null, storedLast: 0, pending: [], count: 0 });
    const found = (key: Buffer, data: Buffer): void => {
      const head = heads.get(key.toString('latin1'))!;
      const { count, last } = scanHead(data);
      Object.assign(head, { stored: data, storedLast: last, count });
    };
    const keys = [...heads.values()].map((h) => h.key);
    let i = 0;
    for (; i + CHUNK <= keys.length; i += CHUNK)
      for (const row of this.headsGet.all(...keys.slice(i, i + CHUNK))) found(row.script_key, row.data);
    for (; i < keys.length; i++) {
      const data = this.headGet.get(keys[i]!);
      if (data) found(keys[i]!, data);
    }
    return heads;
  }

  private writeHeads(heads: readonly Head[]): void {
    let i = 0;
    for (; i + CHUNK <= heads.length; i += CHUNK) this.headsPut.run(...heads.slice(i, i + CHUNK).flatMap((h) => [h.key, bytesOf(h)!]));
    for (; i < heads.length; i++) this.headPut.run(heads[i]!.key, 0, bytesOf(heads[i]!)!);
  }

  private appendTxids(firstTx: number, txids: readonly Buffer[]): void {
    let n = firstTx;
    let i = 0;
    while (i < txids.length) {
      const grp = Math.floor(n / TXIDS_PER_ROW);
      const room = TXIDS_PER_ROW - (n % TXIDS_PER_ROW);
      const take = txids.slice(i, i + room);
      const kept = n % TXIDS_PER_ROW === 0 ? null : this.txidsGet.get(grp);
      this.txidsPut.run(grp, Buffer.concat(kept ? [kept, ...take] : take));
      n += take.length;
      i += take.length;
    }
  }

  /** Forgets the txids of numbers ≥ `from`. */
  private truncateTxids(from: number): void {
    const grp = Math.floor(from / TXIDS_PER_ROW);
    const keep = from % TXIDS_PER_ROW;
    const row = keep === 0 ? null : this.txidsGet.get(grp);
    this.txidsFrom.run(keep === 0 ? grp : grp + 1);
    if (row) this.txidsPut.run(grp, row.subarray(0, keep * TXID_BYTES));
  }
}

/** The head's bytes now (its pending entries encoded onto them); null for a script with no head. */
function bytesOf(head: Head): Buffer | null {
  if (head.pending.length === 0) return head.stored;
  head.stored = Buffer.concat([head.stored ?? EMPTY_HEAD, encodeEntries(head.pending, head.storedLast)]);
  head.storedLast = head.pending[head.pending.length - 1]!.txNum;
  head.pending = [];
  return head.stored;
}

function encodeImages(heads: ReadonlyMap<string, Head>, images: ReadonlyMap<string, Buffer | null>): Buffer {
  const parts: Buffer[] = [Buffer.from([IMAGES_FORMAT])];
  for (const [id, image] of images) {
    parts.push(heads.get(id)!.key, varint(image?.length ?? 0));
    if (image) parts.push(image);
  }
  return Buffer.concat(parts);
}

function* decodeImages(data: Buffer): Generator<[Buffer, Buffer | null]> {
  if (data[0] !== IMAGES_FORMAT) throw new StoreError('INCONSISTENT', `history undo record of unknown format ${data[0]}`);
  let pos = 1;
  while (pos < data.length) {
    const key = data.subarray(pos, pos + SCRIPT_KEY_BYTES);
    pos += SCRIPT_KEY_BYTES;
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = data[pos++]!;
      n += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
    }
    yield [key, n === 0 ? null : data.subarray(pos, pos + n)];
    pos += n;
  }
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
