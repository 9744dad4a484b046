/**
 * The byte layout of a script's history (issue 33), written by the engine and read by it alone.
 *
 * A script's history is a head and sealed chunks. The head holds the script's totals and its newest
 * entries; once it holds HEAD_ENTRIES entries they move, all together, into a sealed chunk that never
 * changes again (a reorg restores the head from its before-image and drops the chunks sealed after it).
 * A page therefore reads at most ⌈limit / HEAD_ENTRIES⌉ + 2 rows at any depth, and appending a block
 * rewrites one small row per touched script.
 *
 * Transactions are named by their transaction number (their position in the whole chain: the block's
 * first number plus the position in the block), as Fulcrum does: 1–5 bytes where a txid is 32. Entries
 * are kept oldest first, each as LEB128 varints: tx number minus the previous entry's (the first one
 * absolute), received, sent.
 *
 *   head  : u8 1 | txCount | received | sent | funded | spent | entries…
 *   chunk : u8 1 | entries…
 *
 * Amounts are bigints: a lifetime sum may pass 2^53 (src/chain/amount.ts).
 */

export const HEAD_ENTRIES = 64;
const FORMAT = 1;

export interface HistoryEntry {
  readonly txNum: number;
  readonly received: bigint;
  readonly sent: bigint;
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
  readonly totals: HistoryTotals;
  /** Oldest first; fewer than HEAD_ENTRIES. */
  readonly entries: readonly HistoryEntry[];
}

export const NO_HISTORY: HistoryTotals = { txCount: 0, received: 0n, sent: 0n, funded: 0, spent: 0 };

class Writer {
  private readonly bytes: number[] = [FORMAT];

  number(n: number): void {
    while (n >= 0x80) {
      this.bytes.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.bytes.push(n);
  }

  /** Past 2^53 in bigint arithmetic; below, as a number (the common case costs no BigInt work). */
  amount(v: bigint): void {
    if (v < 0n) throw new RangeError(`a history amount is never negative: ${v}`);
    if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return this.number(Number(v));
    while (v >= 0x80n) {
      this.bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.bytes.push(Number(v));
  }

  entries(entries: readonly HistoryEntry[]): void {
    let prev = 0;
    for (const e of entries) {
      if (e.txNum < prev) throw new RangeError(`history entries out of order: ${e.txNum} after ${prev}`);
      this.number(e.txNum - prev);
      this.amount(e.received);
      this.amount(e.sent);
      prev = e.txNum;
    }
  }

  done(): Buffer {
    return Buffer.from(this.bytes);
  }
}

class Reader {
  private pos = 1;

  constructor(private readonly buf: Uint8Array) {
    if (buf[0] !== FORMAT) throw new RangeError(`history row of unknown format ${buf[0]}`);
  }

  get more(): boolean {
    return this.pos < this.buf.length;
  }

  private byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('history row truncated');
    return this.buf[this.pos++]!;
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

  entries(): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    let prev = 0;
    while (this.more) {
      const txNum = prev + this.number();
      out.push({ txNum, received: this.amount(), sent: this.amount() });
      prev = txNum;
    }
    return out;
  }
}

export function encodeHead(head: HistoryHead): Buffer {
  const w = new Writer();
  const t = head.totals;
  w.number(t.txCount);
  w.amount(t.received);
  w.amount(t.sent);
  w.number(t.funded);
  w.number(t.spent);
  w.entries(head.entries);
  return w.done();
}

function readTotals(r: Reader): HistoryTotals {
  return { txCount: r.number(), received: r.amount(), sent: r.amount(), funded: r.number(), spent: r.number() };
}

export function decodeHead(buf: Uint8Array): HistoryHead {
  const r = new Reader(buf);
  return { totals: readTotals(r), entries: r.entries() };
}

/** The totals alone: what a summary answer needs, without decoding the entries. */
export function headTotals(buf: Uint8Array): HistoryTotals {
  return readTotals(new Reader(buf));
}

export function encodeChunk(entries: readonly HistoryEntry[]): Buffer {
  const w = new Writer();
  w.entries(entries);
  return w.done();
}

export function decodeChunk(buf: Uint8Array): HistoryEntry[] {
  return new Reader(buf).entries();
}
