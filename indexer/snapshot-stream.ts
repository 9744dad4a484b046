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
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { ChainCode, NetworkName } from '../src/chain/params.js';
import { SnapshotError, type SnapshotErrorCode } from '../src/chain/snapshot-format.js';
import { MAX_OUTPOINT_KEY_BYTES } from '../src/store/outpoint.js';
import { SCRIPT_KEY_BYTES } from '../src/store/script-key.js';
import type { CoinRow, ReadStats } from './snapshot-reader.js';

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
  | { error: { code: SnapshotErrorCode | null; message: string } };

// Under tsx (sources, tests) the worker is a .ts file and needs tsx's loader; from dist it is plain .js.
const ownExtension = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./snapshot-worker${ownExtension}`, import.meta.url).href;
const TSX_API = ownExtension === '.ts' ? import.meta.resolve('tsx/esm/api') : null;
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

/** Every spendable coin of the file in file order, decoded on a worker thread; `stats` follows as batches arrive. */
export function* rowsFromWorker(job: Omit<StreamJob, 'entry' | 'tsx' | 'port' | 'counters'>, stats: ReadStats): Generator<CoinRow> {
  const counters = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_STUB, {
    eval: true,
    workerData: { ...job, entry: WORKER_URL, tsx: TSX_API, port: port2, counters: counters.buffer } satisfies StreamJob,
    transferList: [port2],
  });
  stats.coins = 0;
  stats.skipped = 0;
  try {
    for (;;) {
      let got = receiveMessageOnPort(port1);
      while (got === undefined) {
        const posted = Atomics.load(counters, POSTED);
        got = receiveMessageOnPort(port1);
        if (got !== undefined) break;
        Atomics.wait(counters, POSTED, posted);
        got = receiveMessageOnPort(port1);
      }
      Atomics.add(counters, TAKEN, 1);
      Atomics.notify(counters, TAKEN);
      const m = got.message as StreamMessage;
      if ('error' in m) {
        throw m.error.code === null ? new Error(m.error.message) : new SnapshotError(m.error.code, m.error.message);
      }
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
      if (m.done) return;
    }
  } finally {
    port1.close();
    void worker.terminate();
  }
}
