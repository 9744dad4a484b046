/**
 * What Electrum calls a script's status: SHA-256 over `"{tx_hash}:{height}:"` for every entry of the
 * script's history, as hex; null for an empty history. Electrum recomputes it from `get_history` and
 * distrusts the server when the two differ, so the order here is the order get_history answers:
 * - confirmed transactions in blockchain order (height, then position in the block);
 * - then the mempool: height 0 when every input is confirmed, −1 otherwise, ordered by (−height,
 *   tx_hash) as protocol 1.6 fixes it (1.4 leaves it open; one order for every version).
 */
import { createHash, type Hash } from 'node:crypto';

export interface ElectrumHistoryEntry {
  /** Display order (byte-reversed) hex, as the protocol names transactions. */
  readonly txHash: string;
  /** Confirmed: the block height (≥ 1); mempool: 0, or −1 with an unconfirmed input. */
  readonly height: number;
}

/** The order of the mempool part (a sort comparator): height 0 before −1, then by tx_hash. */
export function mempoolOrder(a: ElectrumHistoryEntry, b: ElectrumHistoryEntry): number {
  return b.height - a.height || (a.txHash < b.txHash ? -1 : a.txHash > b.txHash ? 1 : 0);
}

/** The status of a history already in the protocol's order; null when it is empty. */
export function historyStatus(history: readonly ElectrumHistoryEntry[]): string | null {
  if (history.length === 0) return null;
  const hash = createHash('sha256');
  for (const e of history) hash.update(`${e.txHash}:${e.height}:`);
  return hash.digest('hex');
}

/** A mempool entry of get_history and get_mempool: Electrum requires its fee. */
export interface MempoolEntry extends ElectrumHistoryEntry {
  readonly fee: number;
}

/** A script's history as get_history answers it and subscribe hashes it, built in one pass. */
export interface HistoryText {
  /** Entries, confirmed and mempool. */
  readonly length: number;
  /** historyStatus of the entries; null for an empty history. */
  readonly status: string | null;
  /**
   * get_history's answer as JSON bytes, in pieces written one after another: the confirmed list (megabytes
   * for a long history) is one piece, shared by every answer built on it, never copied.
   */
  readonly json: readonly Buffer[];
}

const TXID_BYTES = 32;
const HEX = '0123456789abcdef';
/** ASCII of each byte's two hex digits. */
const HIGH = Uint8Array.from({ length: 256 }, (_, b) => HEX.charCodeAt(b >> 4));
const LOW = Uint8Array.from({ length: 256 }, (_, b) => HEX.charCodeAt(b & 15));
const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const ENTRY_OPEN = ascii('{"tx_hash":"');
const ENTRY_HEIGHT = ascii('","height":');
const [COLON, COMMA, CLOSE] = [0x3a, 0x2c, 0x7d];
const OPEN_LIST = Buffer.from('[');
const EMPTY_LIST = Buffer.from('[]');
/** Bytes of a confirmed entry at most: status `hash:height:`, list `{"tx_hash":"hash","height":height},`. */
const HASHED_MAX = 64 + 10 + 2;
const LISTED_MAX = ENTRY_OPEN.length + 64 + ENTRY_HEIGHT.length + 10 + 2;

/**
 * The confirmed part's status input and list, written as bytes: a string per entry would make 200,000
 * of them for a 100,000-transaction history, most of the time it took. Heights are confirmed (≥ 0).
 */
function confirmedBytes(txids: Uint8Array, heights: ArrayLike<number>, afterOthers: boolean): { hashed: Buffer; listed: Buffer } {
  const n = heights.length;
  const hashed = Buffer.allocUnsafe(n * HASHED_MAX);
  const listed = Buffer.allocUnsafe(n * LISTED_MAX);
  const digits = new Uint8Array(10);
  let [h, l, last, width] = [0, 0, -1, 0];
  for (let i = 0; i < n; i++) {
    const height = heights[i]!;
    if (height !== last) {
      const text = String(height);
      for (let k = 0; k < text.length; k++) digits[k] = text.charCodeAt(k);
      [last, width] = [height, text.length];
    }
    const hash = h;
    for (let j = i * TXID_BYTES + TXID_BYTES - 1; j >= i * TXID_BYTES; j--) {
      hashed[h++] = HIGH[txids[j]!]!;
      hashed[h++] = LOW[txids[j]!]!;
    }
    hashed[h++] = COLON;
    for (let k = 0; k < width; k++) hashed[h++] = digits[k]!;
    hashed[h++] = COLON;
    if (i > 0 || afterOthers) listed[l++] = COMMA;
    for (let k = 0; k < ENTRY_OPEN.length; k++) listed[l++] = ENTRY_OPEN[k]!;
    for (let k = 0; k < 64; k++) listed[l++] = hashed[hash + k]!;
    for (let k = 0; k < ENTRY_HEIGHT.length; k++) listed[l++] = ENTRY_HEIGHT[k]!;
    for (let k = 0; k < width; k++) listed[l++] = digits[k]!;
    listed[l++] = CLOSE;
  }
  return { hashed: hashed.subarray(0, h), listed: listed.subarray(0, l) };
}

/**
 * The confirmed part of a history, hashed and listed once: a status is finished from a copy of `hash`
 * with the mempool part (historyText), so a mempool change re-hashes only the mempool part, and a block
 * adds its entries to a copy (moreConfirmed), so it hashes and lists only them.
 */
export interface ConfirmedText {
  readonly count: number;
  /** Where the newest entry stands in the index (ScriptTxList.newest): what a read of the ones since starts after. */
  readonly newest: number;
  /** The status hash over the entries; never updated or digested itself, only copied. */
  readonly hash: Hash;
  /** get_history's entries as JSON, comma-separated, without brackets: in pieces, one per addition. */
  readonly listed: readonly Buffer[];
}

/** Pieces a confirmed part is kept in at most: past that they are joined (one copy). */
const MAX_PIECES = 32;

export const NO_CONFIRMED: ConfirmedText = { count: 0, newest: -1, hash: createHash('sha256'), listed: [] };

/**
 * `confirmed` with more entries after it: txids (internal byte order, one after another, blockchain
 * order) at `heights`, the newest of them at `newest` in the index.
 */
export function moreConfirmed(confirmed: ConfirmedText, txids: Uint8Array, heights: ArrayLike<number>, newest: number): ConfirmedText {
  if (heights.length === 0) return confirmed.newest === newest ? confirmed : { ...confirmed, newest };
  const { hashed, listed } = confirmedBytes(txids, heights, confirmed.count > 0);
  const pieces = [...confirmed.listed, listed];
  return {
    count: confirmed.count + heights.length,
    newest,
    hash: confirmed.hash.copy().update(hashed),
    listed: pieces.length > MAX_PIECES ? [Buffer.concat(pieces)] : pieces,
  };
}

/**
 * The whole history: the confirmed part, then `mempool` (already in mempoolOrder). Its status and
 * get_history's JSON hold the same entries in the same order, so a client that recomputes the status
 * from the list finds the one it was told.
 */
export function historyText(confirmed: ConfirmedText, mempool: readonly MempoolEntry[]): HistoryText {
  const length = confirmed.count + mempool.length;
  if (length === 0) return { length, status: null, json: [EMPTY_LIST] };
  const status = confirmed.hash.copy();
  const pending = mempool.map((e) => {
    status.update(`${e.txHash}:${e.height}:`);
    return `{"tx_hash":"${e.txHash}","height":${e.height},"fee":${e.fee}}`;
  });
  const tail = `${confirmed.count > 0 && pending.length > 0 ? ',' : ''}${pending.join(',')}]`;
  const json = confirmed.count === 0 ? [Buffer.from(`[${tail}`)] : [OPEN_LIST, ...confirmed.listed, Buffer.from(tail)];
  return { length, status: status.digest('hex'), json };
}
