/**
 * The SQLite side of address history (migrations/0006_history.sql; the layout is history-chunk.ts's):
 * committing a batch's HistoryChange inside the batch's own transaction, and undoing the tip block's.
 *
 * A rollback needs no arithmetic: each block within the undo window keeps the before-images of the heads
 * it changed (history_undo), and every chunk it sealed is keyed above its first transaction number. So
 * a rollback puts the images back and deletes those chunks, whatever the block held.
 *
 *   history_undo.data : u8 2 | repeated (script_key[16] | varint n | n bytes of head), n = 0: no head before
 *                       (u8 1: the same with heads of format 1, read as format 2's: migrations/0008)
 *
 * The whole script key, not its history key: a rollback names the scripts it touched to the change feed.
 *
 * The heads the last commits wrote stay in memory (history-head-cache.ts), so a busy script's head is
 * read from the table only when it has left that cache.
 */
import { randomBytes } from 'node:crypto';
import {
  HEAD_ENTRIES,
  HISTORY_FORMAT,
  RowWriter,
  decodeHead,
  encodeChunk,
  encodeHead,
  headFromFormat1,
  historyKey,
  plus,
  scanHead,
} from '../history-chunk.js';
import type { HistoryChange } from '../history-change.js';
import { StoreError } from '../errors.js';
import { SCRIPT_KEY_BYTES } from '../script-key.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';
import { HistoryHeadCache, type CachedHead } from './history-head-cache.js';
import { txidPrefix } from '../tx-block.js';
import { SPEND_PREFIX_BYTES, spendKey, spendKeysEnd } from '../spend-key.js';
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
/** meta key: the spend index holds the inputs of the transactions numbered from this on (migrations/0013). */
export const SPENDS_FROM_KEY = 'history_spends_from';
/** 126 txids (4,032 bytes) and their record header fill one 4 KiB page: 64 would leave half of each page empty. */
export const TXIDS_PER_ROW = 126;
const IMAGES_FORMAT = 2;
/** Undo records written before migrations/0008: heads of format 1. */
const IMAGES_FORMAT_1 = 1;

/** A head being appended to within one commit. */
interface Head {
  /** Its history key, and the script key it was reached by (the change feed's name for it). */
  readonly key: Buffer;
  readonly script: Buffer;
  /** Its bytes (null: the script had no head yet). */
  row: RowWriter | null;
  /** The txNum of its newest entry (0: none), which the next entry's delta counts from. */
  last: number;
  /** Its entries. */
  count: number;
  /** The height of the last block that took its before-image (−1: none). */
  imaged: number;
}

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
  private readonly txidsAbove;
  private readonly indexPut;
  private readonly indexDelete;
  private readonly spendPut;
  private readonly spendDelete;
  private readonly spendsDelete;
  private readonly undoPut;
  private readonly undoGet;
  private readonly undoDelete;
  private readonly undoPrune;
  private readonly metaGet;
  private readonly metaSet;
  private readonly cache = new HistoryHeadCache();

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
    this.txidsAbove = db.prepare<[number], { grp: number; txids: Buffer }>(
      'SELECT grp, txids FROM history_txids WHERE grp >= ? ORDER BY grp',
    );
    this.indexPut = db.prepare<[Buffer, number]>('INSERT INTO history_txid_index (prefix, tx_num) VALUES (?, ?)');
    this.indexDelete = db.prepare<[Buffer, number]>('DELETE FROM history_txid_index WHERE prefix = ? AND tx_num = ?');
    this.spendPut = db.prepare<[Buffer, number, number]>('INSERT INTO history_spends (spend_key, tx_num, vin) VALUES (?, ?, ?)');
    this.spendDelete = db.prepare<[Buffer, number]>('DELETE FROM history_spends WHERE spend_key = ? AND tx_num >= ?');
    this.spendsDelete = db.prepare<[Buffer, Buffer, number]>(
      'DELETE FROM history_spends WHERE spend_key >= ? AND spend_key < ? AND tx_num >= ?',
    );
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
    this.cache.forget();
    this.metaSet.run(HISTORY_KEY, STATE_CODES[state]);
    this.metaSet.run(FORMAT_KEY, HISTORY_FORMAT);
    this.metaSet.run(HISTORY_SECRET_KEY, randomBytes(32));
    this.metaSet.run(NEXT_TX_KEY, 0);
    this.metaSet.run(SPENDS_FROM_KEY, 0);
  }

  /** A build reached the tip: history is kept from the next block on (inside the caller's transaction). */
  built(): void {
    this.metaSet.run(HISTORY_KEY, STATE_CODES.on);
  }

  /** Stops keeping history and forgets it, the mempool's part too (mempool-store.ts), inside the caller's transaction. */
  drop(): void {
    this.cache.forget();
    for (const table of [
      'history',
      'history_blocks',
      'history_txids',
      'history_txid_index',
      'history_spends',
      'history_undo',
      'mempool_history',
    ])
      this.db.prepare(`DELETE FROM ${table}`).run();
    this.db
      .prepare('DELETE FROM meta WHERE key IN (?, ?, ?, ?, ?)')
      .run(HISTORY_KEY, FORMAT_KEY, HISTORY_SECRET_KEY, NEXT_TX_KEY, SPENDS_FROM_KEY);
  }

  /** Writes a batch's history; blocks at or above `undoFrom` keep the before-images of the heads they change. */
  commit(change: HistoryChange, undoFrom: number): void {
    this.cache.settle(this.nextTx());
    const heads = this.loadHeads(change);
    for (const block of change.blocks) {
      // Every real block has a coinbase; a block of no transaction (test chains) numbers none and needs no row.
      if (block.txids.length > 0) this.blockPut.run(block.firstTx, block.height);
      this.appendTxids(block.firstTx, block.txids);
      for (const spend of block.spends) this.spendPut.run(spendKey(spend.outpoint), spend.txNum, spend.vin);
      const images: Head[] | null = block.height >= undoFrom ? [] : null;
      const before: (Buffer | null)[] = [];
      for (const entry of block.entries) {
        const head = heads.get(entry.historyId)!;
        if (images && head.imaged !== block.height) {
          // A view: the bytes before the row's end never change, and sealing starts a new row.
          head.imaged = block.height;
          images.push(head);
          before.push(head.row && head.row.bytes());
        }
        head.row ??= new RowWriter();
        head.row.entry(entry, head.last);
        head.last = entry.txNum;
        if (++head.count >= HEAD_ENTRIES) {
          const full = decodeHead(head.row.bytes());
          this.headPut.run(head.key, entry.txNum + 1, encodeChunk(full.entries));
          head.row = new RowWriter(encodeHead({ sealed: plus(full.sealed, full.entries), entries: [] }));
          head.last = 0;
          head.count = 0;
        }
      }
      if (images) this.undoPut.run(block.height, encodeImages(images, before));
    }
    const written = this.writeHeads(heads);
    this.undoPrune.run(undoFrom - 1);
    this.metaSet.run(NEXT_TX_KEY, change.nextTx);
    this.cache.stage(change.nextTx, written);
  }

  /**
   * Undoes block `height`, the tip, inside the caller's transaction; returns the scripts whose history
   * it changed. `spent`: the outpoints of the coins the block took from before it (its UTXO undo record).
   * Throws StoreError INCONSISTENT or NO_UNDO.
   */
  rollback(height: number, spent: readonly Buffer[]): Buffer[] {
    // The heads may change under the cache, and this transaction may yet roll back: start again empty.
    this.cache.forget();
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
    for (const [script, image] of decodeImages(data)) {
      touched.push(Buffer.from(script));
      const key = historyKey(script);
      // Chunks sealed by this block end at or after its first transaction: their keys are above it.
      this.chunksAbove.run(key, last.first_tx);
      if (image) this.headPut.run(key, 0, image);
      else this.headDelete.run(key);
    }
    // The block's spend rows: those of the coins it took from before it, and those of outputs it both
    // created and spent, which lie under its own txids.
    for (const outpoint of spent) this.spendDelete.run(spendKey(outpoint), last.first_tx);
    for (const txid of this.txidsFromNumber(last.first_tx))
      this.spendsDelete.run(txid.subarray(0, SPEND_PREFIX_BYTES), spendKeysEnd(txid), last.first_tx);
    this.truncateTxids(last.first_tx);
    this.blockDelete.run(last.first_tx);
    this.undoDelete.run(height);
    this.metaSet.run(NEXT_TX_KEY, last.first_tx);
    return touched;
  }

  /** The heads of every script the change touches: from the cache, else from the table, CHUNK to a statement. */
  private loadHeads(change: HistoryChange): Map<string, Head> {
    const heads = new Map<string, Head>();
    const unread: Head[] = [];
    for (const block of change.blocks)
      for (const e of block.entries) {
        if (heads.has(e.historyId)) continue;
        const cached = this.cache.get(e.historyId);
        const head: Head = cached
          ? {
              key: historyKey(e.scriptKey),
              script: e.scriptKey,
              row: new RowWriter(cached.bytes),
              last: cached.last,
              count: cached.count,
              imaged: -1,
            }
          : { key: historyKey(e.scriptKey), script: e.scriptKey, row: null, last: 0, count: 0, imaged: -1 };
        heads.set(e.historyId, head);
        if (!cached) unread.push(head);
      }
    const found = (key: Buffer, data: Buffer): void => {
      const head = heads.get(key.toString('latin1'))!;
      const { count, last } = scanHead(data);
      Object.assign(head, { row: new RowWriter(data), last, count });
    };
    let i = 0;
    for (; i + CHUNK <= unread.length; i += CHUNK)
      for (const row of this.headsGet.all(...unread.slice(i, i + CHUNK).map((h) => h.key))) found(row.script_key, row.data);
    for (; i < unread.length; i++) {
      const data = this.headGet.get(unread[i]!.key);
      if (data) found(unread[i]!.key, data);
    }
    return heads;
  }

  /** Writes every head, CHUNK to a statement; returns them as the table now holds them. */
  private writeHeads(heads: ReadonlyMap<string, Head>): Map<string, CachedHead> {
    const written = new Map<string, CachedHead>();
    for (const [id, h] of heads) written.set(id, { bytes: h.row!.bytes(), count: h.count, last: h.last });
    const keys = [...heads.values()].map((h) => h.key);
    const rows = [...written.values()];
    let i = 0;
    for (; i + CHUNK <= rows.length; i += CHUNK) {
      const params: Buffer[] = [];
      for (let j = i; j < i + CHUNK; j++) params.push(keys[j]!, rows[j]!.bytes);
      this.headsPut.run(...params);
    }
    for (; i < rows.length; i++) this.headPut.run(keys[i]!, 0, rows[i]!.bytes);
    return written;
  }

  /** Numbers the txids from `firstTx` on: in number order (history_txids) and by txid (txid-index.ts). */
  private appendTxids(firstTx: number, txids: readonly Buffer[]): void {
    txids.forEach((txid, i) => this.indexPut.run(txidPrefix(txid), firstTx + i));
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

  /** The txids numbered `from` on. */
  private txidsFromNumber(from: number): Buffer[] {
    const out: Buffer[] = [];
    for (const r of this.txidsAbove.all(Math.floor(from / TXIDS_PER_ROW)))
      for (let at = 0; at < r.txids.length; at += TXID_BYTES)
        if (r.grp * TXIDS_PER_ROW + at / TXID_BYTES >= from) out.push(r.txids.subarray(at, at + TXID_BYTES));
    return out;
  }

  /** Forgets the txids of numbers ≥ `from`. */
  private truncateTxids(from: number): void {
    const grp = Math.floor(from / TXIDS_PER_ROW);
    for (const r of this.txidsAbove.all(grp))
      for (let at = 0; at < r.txids.length; at += TXID_BYTES) {
        const txNum = r.grp * TXIDS_PER_ROW + at / TXID_BYTES;
        if (txNum >= from) this.indexDelete.run(txidPrefix(r.txids.subarray(at, at + TXID_BYTES)), txNum);
      }
    const keep = from % TXIDS_PER_ROW;
    const row = keep === 0 ? null : this.txidsGet.get(grp);
    this.txidsFrom.run(keep === 0 ? grp : grp + 1);
    if (row) this.txidsPut.run(grp, row.subarray(0, keep * TXID_BYTES));
  }
}

/** Each head with its bytes `before[i]` as the block found them (null: no head yet). */
function encodeImages(heads: readonly Head[], before: readonly (Buffer | null)[]): Buffer {
  const parts: Buffer[] = [Buffer.from([IMAGES_FORMAT])];
  heads.forEach((head, i) => {
    const image = before[i]!;
    parts.push(head.script, varint(image?.length ?? 0));
    if (image) parts.push(image);
  });
  return Buffer.concat(parts);
}

function* decodeImages(data: Buffer): Generator<[Buffer, Buffer | null]> {
  const format = data[0];
  if (format !== IMAGES_FORMAT && format !== IMAGES_FORMAT_1)
    throw new StoreError('INCONSISTENT', `history undo record of unknown format ${format}`);
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
    const image = n === 0 ? null : data.subarray(pos, pos + n);
    yield [key, image && format === IMAGES_FORMAT_1 ? headFromFormat1(image) : image];
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
