/**
 * The byte layout of a script's history (issue 33), written by the engine and read by it alone.
 *
 * A script's history is a head and sealed chunks. The head holds its newest entries and the totals of
 * its sealed chunks; once it holds HEAD_ENTRIES entries they move, all together, into a sealed chunk that
 * never changes again (a reorg restores the head from its before-image and drops the chunks sealed after
 * it). A page therefore reads at most ⌈limit / HEAD_ENTRIES⌉ + 2 rows at any depth, appending a block
 * rewrites one small row per touched script, and a script's totals are its sealed totals plus its head's
 * entries (decoded per summary: at most HEAD_ENTRIES of them).
 *
 * Sized for Bitcoin mainnet's ~1.6 billion scripts and ~6 billion entries (docs/history-size.md), where a
 * byte per script costs 1.6 GB: rows are keyed by the first HISTORY_KEY_BYTES of the script key, no format
 * byte (meta history_format says it), nothing before the entries while a script has no sealed chunk (most
 * have a handful of entries), and the commonest entries, one output received or one coin spent, cost a
 * tag-carrying number and one amount. Transactions are named by their number in the whole chain
 * (Fulcrum's idea: a few bytes where a txid is 32). LEB128 varints:
 *
 *   head  : [SEALED (the byte 3) | sealedTxCount | sealedReceived | sealedSent | sealedFunded | sealedSpent,
 *            when it has sealed chunks] | entries…
 *   chunk : entries…
 *   entry : (txNum − previous txNum, the first absolute) × 4 + tag, then
 *           tag 0: received            (one output received, nothing spent)
 *           tag 1: sent                (one coin spent, nothing received)
 *           tag 2: funded | spent | received | sent
 *
 * No entry's first number is 3 (tag 3 is none of them), so the byte SEALED cannot be mistaken for one.
 * Format 1 (migrations/0008) keyed rows by the whole script key and began every head with sealedTxCount.
 *
 * Amounts are bigints: a lifetime sum may pass 2^53 (src/chain/amount.ts).
 */

export const HEAD_ENTRIES = 64;
/** The layout's version, kept in meta history_format. */
export const HISTORY_FORMAT = 2;
/**
 * Bytes of the script key that key history rows: 96 bits. An accidental collision among 1.7 billion
 * scripts has probability ≈ n²/2⁹⁷ (about 10⁻¹¹); a birthday search (~2⁴⁸ hashes) finds two scripts that
 * collide, both the searcher's own, and then those two share one history (the union of both). Aiming at
 * someone else's script is still a second preimage, 2⁹⁶ work (script-key.ts says the same of 16 bytes).
 */
export const HISTORY_KEY_BYTES = 12;
/** The first byte of a head with sealed chunks. */
const SEALED = 3;

/** The key of a script's history rows: a view of the script key's first HISTORY_KEY_BYTES. */
export function historyKey(scriptKey: Buffer): Buffer {
  return scriptKey.subarray(0, HISTORY_KEY_BYTES);
}

export interface HistoryEntry {
  readonly txNum: number;
  readonly received: bigint;
  readonly sent: bigint;
  /** Outputs of the transaction paying the script, and coins of the script its inputs spent. */
  readonly funded: number;
  readonly spent: number;
}

/** What a script's whole confirmed history adds up to. funded − spent = its UTXO count, received − sent = its balance. */
export interface HistoryTotals {
  readonly txCount: number;
  readonly received: bigint;
  readonly sent: bigint;
  /** Outputs paid to the script, and those of them spent since. */
  readonly funded: number;
  readonly spent: number;
}

export interface HistoryHead {
  /** The totals of the sealed chunks (NO_HISTORY while there are none). */
  readonly sealed: HistoryTotals;
  /** Oldest first; fewer than HEAD_ENTRIES. */
  readonly entries: readonly HistoryEntry[];
}

export const NO_HISTORY: HistoryTotals = { txCount: 0, received: 0n, sent: 0n, funded: 0, spent: 0 };

/** `totals` with `entries` added. */
export function plus(totals: HistoryTotals, entries: readonly HistoryEntry[]): HistoryTotals {
  let { txCount, received, sent, funded, spent } = totals;
  for (const e of entries) {
    txCount++;
    received += e.received;
    sent += e.sent;
    funded += e.funded;
    spent += e.spent;
  }
  return { txCount, received, sent, funded, spent };
}

const TAG_RECEIVED = 0;
const TAG_SENT = 1;
const TAG_BOTH = 2;

/**
 * Bytes of a row being written, grown in place: appending entries to a head encodes only them. The bytes
 * before `length` never change once written, so a view of them stays what it was (an undo image).
 */
export class RowWriter {
  private buf: Buffer;
  private len = 0;

  /** `start`: the row's bytes so far, copied. */
  constructor(start?: Uint8Array) {
    this.buf = Buffer.allocUnsafe(Math.max(64, 2 * (start?.length ?? 0)));
    if (start) {
      this.buf.set(start);
      this.len = start.length;
    }
  }

  get length(): number {
    return this.len;
  }

  /** A view of the bytes written so far (see above: later appends do not change it). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  number(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  /** Past 2^53 in bigint arithmetic; below, as a number (the common case costs no BigInt work). */
  amount(v: bigint): void {
    if (v < 0n) throw new RangeError(`a history amount is never negative: ${v}`);
    if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return this.number(Number(v));
    while (v >= 0x80n) {
      this.room(1);
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.room(1);
    this.buf[this.len++] = Number(v);
  }

  /** One entry after the entry numbered `prev` (0 at the start of a row). */
  entry(e: HistoryEntry, prev: number): void {
    if (e.txNum < prev) throw new RangeError(`history entries out of order: ${e.txNum} after ${prev}`);
    const delta = (e.txNum - prev) * 4;
    if (e.funded === 1 && e.spent === 0 && e.sent === 0n) {
      this.number(delta + TAG_RECEIVED);
      this.amount(e.received);
    } else if (e.funded === 0 && e.spent === 1 && e.received === 0n) {
      this.number(delta + TAG_SENT);
      this.amount(e.sent);
    } else {
      this.number(delta + TAG_BOTH);
      this.number(e.funded);
      this.number(e.spent);
      this.amount(e.received);
      this.amount(e.sent);
    }
  }

  entries(entries: readonly HistoryEntry[], prev = 0): void {
    for (const e of entries) {
      this.entry(e, prev);
      prev = e.txNum;
    }
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.len + n));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }
}

class Reader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get more(): boolean {
    return this.pos < this.buf.length;
  }

  /** At a head's start: steps over the byte SEALED when it is there. */
  sealed(): boolean {
    if (this.buf[this.pos] !== SEALED) return false;
    this.pos++;
    return true;
  }

  private byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('history row truncated');
    return this.buf[this.pos++]!;
  }

  /** Steps over one varint without reading it. */
  skip(): void {
    while (this.byte() >= 0x80);
  }

  /** An amount as a number when it fits 49 bits (any one payment does, nearly always), else NaN. */
  smallAmount(): number {
    const n = this.number49();
    if (n.done) return n.value;
    this.skip();
    return Number.NaN;
  }

  /** Counts and tx numbers: at most 7 bytes (49 bits), exact in a number. */
  number(): number {
    const n = this.number49();
    if (!n.done) throw new RangeError('history count past 2^49');
    return n.value;
  }

  /** The first 49 bits as a number (every single amount fits), the rest in bigint arithmetic. */
  amount(): bigint {
    const low = this.number49();
    if (low.done) return BigInt(low.value);
    let v = BigInt(low.value);
    for (let shift = 49n; ; shift += 7n) {
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }

  private number49(): { value: number; done: boolean } {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return { value: n, done: true };
      scale *= 0x80;
    }
    return { value: n, done: false };
  }

  /** The rest's tx numbers into `out` from `at`, amounts stepped over (no object per entry); returns the end. */
  txNums(out: Float64Array, at: number): number {
    let prev = 0;
    while (this.more) {
      const word = this.number();
      const tag = word % 4;
      prev += (word - tag) / 4;
      if (at >= out.length) throw new RangeError('history row holds more entries than its totals say');
      out[at++] = prev;
      for (let i = tag === TAG_BOTH ? 4 : 1; i > 0; i--) this.skip();
    }
    return at;
  }

  entries(): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    let prev = 0;
    while (this.more) {
      const word = this.number();
      const tag = word % 4;
      const txNum = prev + (word - tag) / 4;
      if (tag === TAG_RECEIVED) out.push({ txNum, received: this.amount(), sent: 0n, funded: 1, spent: 0 });
      else if (tag === TAG_SENT) out.push({ txNum, received: 0n, sent: this.amount(), funded: 0, spent: 1 });
      else if (tag === TAG_BOTH) {
        const funded = this.number();
        const spent = this.number();
        out.push({ txNum, received: this.amount(), sent: this.amount(), funded, spent });
      } else throw new RangeError(`history entry with unknown tag ${tag}`);
      prev = txNum;
    }
    return out;
  }
}

export function encodeHead(head: HistoryHead): Buffer {
  const w = new RowWriter();
  const t = head.sealed;
  if (t.txCount > 0) {
    w.number(SEALED);
    w.number(t.txCount);
    w.amount(t.received);
    w.amount(t.sent);
    w.number(t.funded);
    w.number(t.spent);
  }
  w.entries(head.entries);
  return w.bytes();
}

export function decodeHead(buf: Uint8Array): HistoryHead {
  const r = new Reader(buf);
  const sealed = r.sealed()
    ? { txCount: r.number(), received: r.amount(), sent: r.amount(), funded: r.number(), spent: r.number() }
    : NO_HISTORY;
  return { sealed, entries: r.entries() };
}

/** A head of format 1 in this format: the same entries and totals (history-store.ts's old undo records). */
export function headFromFormat1(buf: Uint8Array): Buffer {
  return buf[0] === 0 ? Buffer.from(buf.subarray(1)) : Buffer.concat([Buffer.from([SEALED]), buf]);
}

/**
 * A script's totals from its head: the sealed chunks' and the head's own entries. Every summary answer
 * runs this, so the entries are added as numbers, without a BigInt each; the exact bigint path takes
 * over only when an amount or a sum does not fit.
 */
export function headTotals(buf: Uint8Array): HistoryTotals {
  const r = new Reader(buf);
  const sealed = r.sealed()
    ? { txCount: r.number(), received: r.amount(), sent: r.amount(), funded: r.number(), spent: r.number() }
    : NO_HISTORY;
  let [txCount, received, sent, funded, spent] = [sealed.txCount, 0, 0, sealed.funded, sealed.spent];
  while (r.more) {
    const tag = r.number() % 4;
    txCount++;
    if (tag === TAG_RECEIVED) {
      received += r.smallAmount();
      funded++;
    } else if (tag === TAG_SENT) {
      sent += r.smallAmount();
      spent++;
    } else {
      funded += r.number();
      spent += r.number();
      received += r.smallAmount();
      sent += r.smallAmount();
    }
  }
  // NaN (an amount past 49 bits) and rounded sums are not safe integers: then every entry as a bigint.
  if (!Number.isSafeInteger(received) || !Number.isSafeInteger(sent)) return plus(sealed, decodeHead(buf).entries);
  return { txCount, received: sealed.received + BigInt(received), sent: sealed.sent + BigInt(sent), funded, spent };
}

/** Where a head stands for appending to it: how many entries it holds and the newest one's txNum (0: none). */
export function scanHead(buf: Uint8Array): { count: number; last: number } {
  const r = new Reader(buf);
  if (r.sealed()) for (let i = 0; i < 5; i++) r.skip();
  let count = 0;
  let last = 0;
  while (r.more) {
    const word = r.number();
    const tag = word % 4;
    last += (word - tag) / 4;
    count++;
    for (let i = tag === TAG_BOTH ? 4 : 1; i > 0; i--) r.skip();
  }
  return { count, last };
}

/** The bytes of `entries` appended to a row whose newest entry has txNum `after`. */
export function encodeEntries(entries: readonly HistoryEntry[], after: number): Buffer {
  const w = new RowWriter();
  w.entries(entries, after);
  return w.bytes();
}

export function encodeChunk(entries: readonly HistoryEntry[]): Buffer {
  const w = new RowWriter();
  w.entries(entries);
  return w.bytes();
}

export function decodeChunk(buf: Uint8Array): HistoryEntry[] {
  return new Reader(buf).entries();
}

/** How many transactions a script's history holds, from its head: its sealed chunks' and the head's own. */
export function headTxCount(buf: Uint8Array): number {
  const r = new Reader(buf);
  return (r.sealed() ? r.number() : 0) + scanHead(buf).count;
}

/**
 * The tx numbers of a row's entries (a sealed chunk, or a head: its totals skipped) into `out` from `at`,
 * oldest first; returns where they end. What a whole-history read uses: no object per entry.
 */
export function rowTxNums(buf: Uint8Array, head: boolean, out: Float64Array, at: number): number {
  const r = new Reader(buf);
  if (head && r.sealed()) for (let i = 0; i < 5; i++) r.skip();
  return r.txNums(out, at);
}
