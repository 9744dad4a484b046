/**
 * The per-script sums of a snapshot's coins (the `scripts` table: balance and utxo count per script key),
 * built by the decoding worker (snapshot-worker.ts) so that the bulk load does not sort every coin again
 * in SQLite (a GROUP BY over `utxos`, a large share of a bootstrap's time).
 *
 * While the file is read, each coin's (script key, value) goes to one of PARTITIONS spill files by the
 * key's first byte. Script keys are SHA-256 output, so the partitions are even. After the read, each partition in turn is read back, sorted and summed in memory,
 * and its rows come out in ascending key order, ready to append to `scripts`.
 *
 * The spill files are unlinked as soon as they are opened: only the descriptors hold them, so a kill at
 * any point leaves nothing on disk. They live in SQLite's temp directory (SQLITE_TMPDIR, TMPDIR,
 * /var/tmp, /usr/tmp, /tmp: the order SQLite uses), where its own sorter would have put the same data.
 * Disk: RECORD_BYTES per coin. Memory: PARTITIONS × SPILL_BUFFER_BYTES while reading,
 * then one partition and its sort array.
 */
import { closeSync, constants, accessSync, mkdtempSync, openSync, readSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SCRIPT_KEY_BYTES } from '../src/store/script-key.js';

/** Spill record: script key, then the value as a float64 in host byte order (exact: amounts are below 2^53). */
export const RECORD_BYTES = SCRIPT_KEY_BYTES + 8;
/** Summed row: script key, balance (float64), utxo count (u32), then 4 bytes of padding that keep the float64s aligned; host byte order. */
export const SUM_ROW_BYTES = SCRIPT_KEY_BYTES + 16;
const PARTITIONS = 256;
const SPILL_BUFFER_BYTES = 64 * 1024 - ((64 * 1024) % RECORD_BYTES);

/** SQLite's temp directory choice (os_unix.c unixTempFileDir): the first writable directory. */
export function sqliteTempDir(env: NodeJS.ProcessEnv = process.env): string {
  for (const dir of [env.SQLITE_TMPDIR, env.TMPDIR, '/var/tmp', '/usr/tmp', '/tmp']) {
    if (!dir) continue;
    try {
      if (!statSync(dir).isDirectory()) continue;
      accessSync(dir, constants.W_OK | constants.X_OK);
      return dir;
    } catch {
      // Not there or not ours: SQLite tries the next one too.
    }
  }
  return '.';
}

export class ScriptSpill {
  private readonly fds: number[] = [];
  private readonly buffers: Buffer[] = [];
  private readonly values: Float64Array[] = [];
  private readonly used: number[] = [];
  private readonly written: number[] = [];

  constructor(dir = sqliteTempDir()) {
    const tmp = mkdtempSync(join(dir, 'addrsum-sums-'));
    try {
      for (let p = 0; p < PARTITIONS; p++) {
        const path = join(tmp, String(p));
        this.fds.push(openSync(path, 'w+', 0o600));
        unlinkSync(path);
        const buf = Buffer.allocUnsafeSlow(SPILL_BUFFER_BYTES);
        this.buffers.push(buf);
        this.values.push(new Float64Array(buf.buffer, 0, SPILL_BUFFER_BYTES / 8));
        this.used.push(0);
        this.written.push(0);
      }
    } catch (err) {
      this.close();
      throw err;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  /** Adds one coin: the script key at `buf[at, at + 16)` and its value. */
  add(buf: Buffer, at: number, value: number): void {
    const p = buf[at]!;
    const out = this.buffers[p]!;
    let used = this.used[p]!;
    buf.copy(out, used, at, at + SCRIPT_KEY_BYTES);
    this.values[p]![(used + SCRIPT_KEY_BYTES) / 8] = value;
    used += RECORD_BYTES;
    if (used === SPILL_BUFFER_BYTES) {
      this.write(p, used);
      used = 0;
    }
    this.used[p] = used;
  }

  /** Every script's [key, balance, count] row, packed (SUM_ROW_BYTES each), in ascending key order, partition by partition. */
  *sums(): Generator<{ rows: Buffer; count: number }> {
    for (let p = 0; p < PARTITIONS; p++) {
      this.write(p, this.used[p]!);
      this.used[p] = 0;
      const bytes = this.written[p]!;
      const records = Buffer.allocUnsafeSlow(bytes);
      for (let at = 0; at < bytes;) at += readSync(this.fds[p]!, records, at, bytes - at, at);
      closeSync(this.fds[p]!);
      this.fds[p] = -1;
      yield sumPartition(records);
    }
  }

  close(): void {
    for (const fd of this.fds) if (fd >= 0) closeSync(fd);
    this.fds.fill(-1);
  }

  private write(p: number, n: number): void {
    const buf = this.buffers[p]!;
    for (let at = 0; at < n;) at += writeSync(this.fds[p]!, buf, at, n - at, this.written[p]! + at);
    this.written[p]! += n;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = 1 - LO;
const KEY_WORDS = SCRIPT_KEY_BYTES / 4;
const RECORD_WORDS = RECORD_BYTES / 4;
const ROW_WORDS = SUM_ROW_BYTES / 4;

/**
 * Sorts and sums spill records (RECORD_BYTES each): one packed row per distinct key, ascending.
 *
 * How, in JavaScript, without a comparator call per comparison:
 * 1. A counting sort on the key's byte 1 (byte 0 is the partition's) splits the records into 256
 *    buckets of a few thousand, each small enough for the CPU cache: the steps below visit records in
 *    sorted, that is random, order, which on a whole partition is a cache miss per record.
 * 2. In a bucket, each record becomes one 64-bit number, the key's bytes 2–9 with their low bits
 *    replaced by the record's index in the bucket, and a BigUint64Array sorts those natively (no
 *    comparator call per comparison).
 * 3. Records whose truncated prefixes are equal form a run, summed at once when all its keys are equal
 *    (address reuse, the usual case) and otherwise sorted by full key first (different keys that agree
 *    on their first 8 bytes and more: about never, but handled).
 */
export function sumPartition(records: Buffer): { rows: Buffer; count: number } {
  const n = records.length / RECORD_BYTES;
  if (n >= 2 ** 31) throw new RangeError(`a partition of ${n} records is more than one sort array can index`);
  const { words: recWords, starts } = bucketByByte1(records, n);
  const bytes = new Uint8Array(recWords.buffer);
  const values = new Float64Array(recWords.buffer);
  const out = new ArrayBuffer(n * SUM_ROW_BYTES);
  const rowWords = new Uint32Array(out);
  const rowValues = new Float64Array(out);
  let count = 0;
  const emit = (first: number, balance: number, utxos: number): void => {
    const w = count * ROW_WORDS;
    const r = first * RECORD_WORDS;
    for (let j = 0; j < KEY_WORDS; j++) rowWords[w + j] = recWords[r + j]!;
    rowValues[(w + KEY_WORDS) / 2] = balance;
    rowWords[w + KEY_WORDS + 2] = utxos;
    count++;
  };
  const value = (i: number): number => values[(i * RECORD_WORDS + KEY_WORDS) / 2]!;
  const sameKey = (a: number, b: number): boolean => {
    for (let j = 0; j < KEY_WORDS; j++) if (recWords[a * RECORD_WORDS + j] !== recWords[b * RECORD_WORDS + j]) return false;
    return true;
  };
  const compareKeys = (a: number, b: number): number => {
    for (let j = 0; j < SCRIPT_KEY_BYTES; j++) {
      const d = bytes[a * RECORD_BYTES + j]! - bytes[b * RECORD_BYTES + j]!;
      if (d !== 0) return d;
    }
    return 0;
  };
  // Different keys under one prefix: rare enough for a comparator sort.
  const sumMixedRun = (run: number[]): void => {
    run.sort(compareKeys);
    let start = 0;
    for (let j = 1; j <= run.length; j++) {
      if (j < run.length && sameKey(run[j]!, run[start]!)) continue;
      let sum = 0;
      for (let m = start; m < j; m++) sum += value(run[m]!);
      emit(run[start]!, sum, j - start);
      start = j;
    }
  };
  let largest = 0;
  for (let b = 0; b < 256; b++) largest = Math.max(largest, starts[b + 1]! - starts[b]!);
  const order = new BigUint64Array(largest);
  const words = new Uint32Array(order.buffer);
  const indexBits = Math.min(31, Math.max(1, Math.ceil(Math.log2(largest + 1))));
  const indexMask = 2 ** indexBits - 1;
  for (let b = 0; b < 256; b++) {
    const base = starts[b]!;
    const m = starts[b + 1]! - base;
    for (let i = 0; i < m; i++) {
      const at = (base + i) * RECORD_BYTES;
      words[2 * i + HI] = ((bytes[at + 2]! << 24) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!) >>> 0;
      const low = ((bytes[at + 6]! << 24) | (bytes[at + 7]! << 16) | (bytes[at + 8]! << 8) | bytes[at + 9]!) >>> 0;
      words[2 * i + LO] = ((low >>> indexBits) * 2 ** indexBits + i) >>> 0;
    }
    order.subarray(0, m).sort();
    let k = 0;
    while (k < m) {
      const hi = words[2 * k + HI]!;
      const prefix = words[2 * k + LO]! >>> indexBits;
      const first = base + (words[2 * k + LO]! & indexMask);
      let balance = value(first);
      let end = k + 1;
      let mixed = false;
      for (; end < m && words[2 * end + HI] === hi && words[2 * end + LO]! >>> indexBits === prefix; end++) {
        const i = base + (words[2 * end + LO]! & indexMask);
        if (sameKey(i, first)) balance += value(i);
        else mixed = true;
      }
      if (!mixed) emit(first, balance, end - k);
      else {
        const run: number[] = [];
        for (let j = k; j < end; j++) run.push(base + (words[2 * j + LO]! & indexMask));
        sumMixedRun(run);
      }
      k = end;
    }
  }
  return { rows: Buffer.from(out, 0, count * SUM_ROW_BYTES), count };
}

/** Step 1 of sumPartition: the records reordered by their key's byte 1 (a stable counting sort), as words, and where each byte's bucket starts. */
function bucketByByte1(records: Buffer, n: number): { words: Uint32Array; starts: Uint32Array } {
  const starts = new Uint32Array(257);
  for (let i = 0; i < n; i++) starts[records[i * RECORD_BYTES + 1]! + 1]!++;
  for (let b = 0; b < 256; b++) starts[b + 1]! += starts[b]!;
  const next = starts.slice(0, 256);
  const words = new Uint32Array(n * RECORD_WORDS);
  // Word copies need a 4-byte aligned source; the spill's buffers are, a caller's slice may not be.
  const src = records.byteOffset % 4 === 0 ? records : new Uint8Array(records);
  const from = new Uint32Array(src.buffer, src.byteOffset, n * RECORD_WORDS);
  for (let i = 0; i < n; i++) {
    const to = next[records[i * RECORD_BYTES + 1]!]!++;
    for (let j = 0; j < RECORD_WORDS; j++) words[to * RECORD_WORDS + j] = from[i * RECORD_WORDS + j]!;
  }
  return { words, starts };
}
