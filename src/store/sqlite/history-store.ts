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
import { HEAD_ENTRIES, NO_HISTORY, decodeHead, encodeChunk, encodeHead, type HistoryEntry, type HistoryTotals } from '../history-chunk.js';
import type { HistoryChange } from '../history-change.js';
import { StoreError } from '../errors.js';
import { SCRIPT_KEY_BYTES } from '../script-key.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';

/** meta key: 1 while the index keeps history (set on an empty index only: it covers every block). */
export const HISTORY_KEY = 'history';
/** meta key: the number the next connected transaction gets. */
export const NEXT_TX_KEY = 'history_next_tx';
export const TXIDS_PER_ROW = 64;
const IMAGES_FORMAT = 1;

/** History covers every block or none; this version builds it only block by block from the first. */
export function historyNotBuilt(held: string): StoreError {
  return new StoreError(
    'HISTORY_NOT_BUILT',
    `the index holds ${held} without history, and this version keeps history only for an index synced from genesis with it on: ` +
      "turn history off again, or delete this chain's database and let the indexer sync from genesis with history on",
  );
}

interface Head {
  readonly key: Buffer;
  totals: HistoryTotals;
  entries: HistoryEntry[];
}

export class HistoryStore {
  private readonly headGet;
  private readonly headPut;
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
    this.headPut = db.prepare<[Buffer, number, Buffer]>('INSERT OR REPLACE INTO history (script_key, chunk, data) VALUES (?, ?, ?)');
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

  /** Whether the index keeps history (meta history = 1). */
  get on(): boolean {
    return this.metaGet.get(HISTORY_KEY) === 1;
  }

  /** The number the next connected transaction gets. */
  nextTx(): number {
    return Number(this.metaGet.get(NEXT_TX_KEY) ?? 0);
  }

  /** Starts keeping history, inside the caller's transaction: only an index with no block yet covers every block. */
  start(): void {
    this.metaSet.run(HISTORY_KEY, 1);
    this.metaSet.run(NEXT_TX_KEY, 0);
  }

  /** Stops keeping history and forgets it (inside the caller's transaction). */
  drop(): void {
    for (const table of ['history', 'history_blocks', 'history_txids', 'history_undo']) this.db.prepare(`DELETE FROM ${table}`).run();
    this.db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(HISTORY_KEY, NEXT_TX_KEY);
  }

  /** Writes a batch's history; blocks at or above `undoFrom` keep the before-images of the heads they change. */
  commit(change: HistoryChange, undoFrom: number): void {
    const heads = new Map<string, Head>();
    for (const block of change.blocks) {
      this.blockPut.run(block.firstTx, block.height);
      this.appendTxids(block.firstTx, block.txids);
      const images = block.height >= undoFrom ? new Map<string, Buffer | null>() : null;
      for (const entry of block.entries) {
        const id = entry.scriptKey.toString('latin1');
        let head = heads.get(id);
        if (!head) {
          head = this.load(entry.scriptKey);
          heads.set(id, head);
        }
        if (images && !images.has(id)) images.set(id, head.totals.txCount === 0 ? null : encodeHead(head));
        const t = head.totals;
        head.totals = {
          txCount: t.txCount + 1,
          received: t.received + entry.received,
          sent: t.sent + entry.sent,
          funded: t.funded + entry.funded,
          spent: t.spent + entry.spent,
        };
        head.entries.push({ txNum: entry.txNum, received: entry.received, sent: entry.sent });
        if (head.entries.length >= HEAD_ENTRIES) {
          this.headPut.run(head.key, entry.txNum + 1, encodeChunk(head.entries));
          head.entries = [];
        }
      }
      if (images) this.undoPut.run(block.height, encodeImages(heads, images));
    }
    for (const head of heads.values()) this.headPut.run(head.key, 0, encodeHead(head));
    this.undoPrune.run(undoFrom - 1);
    this.metaSet.run(NEXT_TX_KEY, change.nextTx);
  }

  /**
   * Undoes block `height`, the tip, inside the caller's transaction; returns the scripts whose history
   * it changed. Throws StoreError INCONSISTENT or NO_UNDO.
   */
  rollback(height: number): Buffer[] {
    const last = this.blockLast.get();
    if (!last || last.height !== height)
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

  private load(key: Buffer): Head {
    const data = this.headGet.get(key);
    if (!data) return { key, totals: NO_HISTORY, entries: [] };
    const head = decodeHead(data);
    return { key, totals: head.totals, entries: [...head.entries] };
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
