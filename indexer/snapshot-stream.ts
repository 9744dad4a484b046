/**
 * The coins of a snapshot file decoded on a worker thread (snapshot-worker.ts), yielded here as the
 * same rows SnapshotFile.rows() gives: the load holds the loading thread in one synchronous SQLite
 * transaction, so decoding and SHA-256 of the scripts run on the other core meanwhile.
 *
 * The load is synchronous, so there is no event loop to deliver messages: batches are taken with
 * receiveMessageOnPort, and the loading thread sleeps in Atomics.wait on a shared "posted" counter
 * when none is ready; the worker sleeps on the "taken" counter when MAX_IN_FLIGHT batches wait.
 *
 * Packed row: u8 key length, outpoint key, 16-byte script key, f64 value, u32 height (little-endian).
 * After the last row batch, the worker sends the coinbase txids of the rows' heights (one message of
 * packed pairs, snapshot-coinbases.ts), then the per-script sums of those rows (script-sums.ts), in
 * ascending key order, as batches of packed sum rows.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { ChainCode, NetworkName } from '../src/chain/params.js';
import { SnapshotError, type SnapshotErrorCode } from '../src/chain/snapshot-format.js';
import { MAX_OUTPOINT_KEY_BYTES } from '../src/store/outpoint.js';
import { workerModule } from '../src/worker-module.js';
import { SCRIPT_KEY_BYTES } from '../src/store/script-key.js';
import { SUM_ROW_BYTES } from './script-sums.js';
import { unpackCoinbases } from './snapshot-coinbases.js';

/** One utxos row: [outpoint, script_key, value, height] (the column order of the bulk load). */
export type CoinRow = [Buffer, Buffer, number, number];

export interface ReadStats {
  /** Coins decoded so far (of header.coinCount). */
  coins: number;
  /** Of those, unspendable ones skipped. */
  skipped: number;
  bytes: number;
  fileBytes: number;
}

/** One `scripts` row: [script_key, balance, utxo_count] (the column order of the bulk load). */
export type ScriptSumRow = [Buffer, number, number];

export const BATCH_BYTES = 1 << 20;
export const MAX_ROW_BYTES = 1 + MAX_OUTPOINT_KEY_BYTES + SCRIPT_KEY_BYTES + 12;
export const MAX_IN_FLIGHT = 8;
/** Indexes into the shared counters. */
export const POSTED = 0;
export const TAKEN = 1;

export interface StreamJob {
  path: string;
  chain: ChainCode;
  network: NetworkName;
  /** URL of snapshot-worker's module. */
  entry: string;
  /** URL of tsx's register API when the worker is a .ts file, else null. */
  tsx: string | null;
  port: MessagePort;
  counters: SharedArrayBuffer;
}

export type StreamMessage =
  | { buffer: ArrayBuffer; length: number; coins: number; skipped: number; bytes: number; done: boolean }
  | { coinbases: ArrayBuffer }
  | { sums: ArrayBuffer; length: number; done: boolean }
  | { error: { code: SnapshotErrorCode | null; message: string } };

const WORKER = workerModule(import.meta.url, 'snapshot-worker');
// The worker module is imported from this stub so that a failure to load it still reaches the
// loading thread as an error message instead of leaving it waiting.
const WORKER_STUB = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx !== null) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})().catch((err) => {
  workerData.port.postMessage({ error: { code: null, message: 'the snapshot decoding worker failed to start: ' + err.message } });
  const counters = new Int32Array(workerData.counters);
  Atomics.add(counters, ${POSTED}, 1);
  Atomics.notify(counters, ${POSTED});
});`;

/**
 * A snapshot file decoded on a worker thread: rows() yields every spendable coin in file order, then
 * coinbases() the coinbase txids of their heights and sums() the per-script sums of those coins,
 * ascending by script key. `stats` follows as batches arrive. close() stops the worker whatever was
 * read (a finished sums() closes it too).
 */
export class WorkerStream {
  private readonly counters = new Int32Array(new SharedArrayBuffer(8));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private coinbasePairs: ArrayBuffer | null = null;

  constructor(
    job: Omit<StreamJob, 'entry' | 'tsx' | 'port' | 'counters'>,
    private readonly stats: ReadStats,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_STUB, {
      eval: true,
      workerData: { ...job, entry: WORKER.entry, tsx: WORKER.tsx, port: port2, counters: this.counters.buffer } satisfies StreamJob,
      transferList: [port2],
    });
    // The loading thread drives the worker synchronously; an unclosed stream must not keep the process alive.
    this.worker.unref();
    stats.coins = 0;
    stats.skipped = 0;
  }

  *rows(): Generator<CoinRow> {
    let complete = false;
    try {
      yield* this.coins();
      complete = true;
    } finally {
      // Left early (an error, a file out of order): nobody will ask for the sums.
      if (!complete) this.close();
    }
  }

  private *coins(): Generator<CoinRow> {
    const stats = this.stats;
    for (;;) {
      const m = this.next();
      if (!('buffer' in m)) throw new Error('snapshot decoding worker: sums or coinbase txids before the last coin');
      // Counted as the batch arrives, so a line logged while its rows are inserted includes them.
      stats.coins = m.coins;
      stats.skipped = m.skipped;
      stats.bytes = m.bytes;
      const buf = Buffer.from(m.buffer, 0, m.length);
      let at = 0;
      while (at < m.length) {
        const keyEnd = at + 1 + buf[at]!;
        const scriptEnd = keyEnd + SCRIPT_KEY_BYTES;
        yield [buf.subarray(at + 1, keyEnd), buf.subarray(keyEnd, scriptEnd), buf.readDoubleLE(scriptEnd), buf.readUInt32LE(scriptEnd + 8)];
        at = scriptEnd + 12;
      }
      if (m.done) {
        const after = this.next();
        if (!('coinbases' in after)) throw new Error('snapshot decoding worker: no coinbase txids after the last coin');
        this.coinbasePairs = after.coinbases;
        return;
      }
    }
  }

  /** The [height, coinbase txid] pairs of the rows, ascending by height; null until rows() has been read to its end. */
  coinbases(): Iterable<[number, Buffer | null]> | null {
    return this.coinbasePairs && unpackCoinbases(this.coinbasePairs);
  }

  *sums(): Generator<ScriptSumRow> {
    try {
      for (;;) {
        const m = this.next();
        if (!('sums' in m)) throw new Error('snapshot decoding worker: coins after the last coin');
        const buf = Buffer.from(m.sums, 0, m.length);
        const words = new Uint32Array(m.sums, 0, m.length / 4);
        const values = new Float64Array(m.sums, 0, m.length / 8);
        for (let at = 0; at < m.length; at += SUM_ROW_BYTES) {
          yield [buf.subarray(at, at + SCRIPT_KEY_BYTES), values[(at + SCRIPT_KEY_BYTES) / 8]!, words[(at + SCRIPT_KEY_BYTES + 8) / 4]!];
        }
        if (m.done) return;
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    this.port.close();
    void this.worker.terminate();
  }

  /** The next message, waiting for it; an error message is thrown. */
  private next(): Exclude<StreamMessage, { error: unknown }> {
    const counters = this.counters;
    let got = receiveMessageOnPort(this.port);
    while (got === undefined) {
      const posted = Atomics.load(counters, POSTED);
      got = receiveMessageOnPort(this.port);
      if (got !== undefined) break;
      Atomics.wait(counters, POSTED, posted);
      got = receiveMessageOnPort(this.port);
    }
    Atomics.add(counters, TAKEN, 1);
    Atomics.notify(counters, TAKEN);
    const m = got.message as StreamMessage;
    if ('error' in m) throw m.error.code === null ? new Error(m.error.message) : new SnapshotError(m.error.code, m.error.message);
    return m;
  }
}
