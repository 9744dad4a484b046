/**
 * Worker thread of a snapshot load (snapshot-stream.ts starts it): decodes the file, hashes the
 * scripts and sums them per script (script-sums.ts) on the second core while the loading thread only
 * inserts, and keeps the coinbase txid of each height with a coinbase coin (snapshot-coinbases.ts).
 * Rows go back in batches packed into transferred ArrayBuffers (layout in snapshot-stream.ts); a
 * shared counter pair bounds how many batches are in flight, so memory stays bounded however far ahead
 * decoding runs.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { SnapshotError } from '../src/chain/snapshot-format.js';
import { writeOutpointKey } from '../src/store/outpoint.js';
import { writeScriptKey } from '../src/store/script-key.js';
import { ScriptSpill, SUM_ROW_BYTES } from './script-sums.js';
import { CoinbaseTxids } from './snapshot-coinbases.js';
import { SnapshotFile } from './snapshot-reader.js';
import { BATCH_BYTES, MAX_ROW_BYTES, MAX_IN_FLIGHT, POSTED, TAKEN, type StreamJob, type StreamMessage } from './snapshot-stream.js';

const job = workerData as StreamJob;
const port: MessagePort = job.port;
const counters = new Int32Array(job.counters);

function post(message: StreamMessage, transfer: ArrayBuffer[] = []): void {
  // Wait while the loading thread is MAX_IN_FLIGHT batches behind.
  for (;;) {
    const taken = Atomics.load(counters, TAKEN);
    if (Atomics.load(counters, POSTED) - taken < MAX_IN_FLIGHT) break;
    Atomics.wait(counters, TAKEN, taken);
  }
  port.postMessage(message, transfer);
  Atomics.add(counters, POSTED, 1);
  Atomics.notify(counters, POSTED);
}

let spill: ScriptSpill | null = null;
try {
  const file = SnapshotFile.open(job.path, job.chain, job.network);
  spill = new ScriptSpill();
  const coinbases = new CoinbaseTxids();
  const stats = file.stats;
  let batch = Buffer.from(new ArrayBuffer(BATCH_BYTES));
  let at = 0;
  const send = (done: boolean): void => {
    const buffer = batch.buffer as ArrayBuffer;
    post({ buffer, length: at, coins: stats.coins, skipped: stats.skipped, bytes: stats.bytes, done }, [buffer]);
    batch = Buffer.from(new ArrayBuffer(BATCH_BYTES));
    at = 0;
  };
  for (const outs of file.records()) {
    for (const { txid, vout, coin } of outs) {
      const keyEnd = writeOutpointKey(batch, at + 1, txid, vout);
      batch[at] = keyEnd - at - 1;
      at = writeScriptKey(batch, keyEnd, coin.script);
      spill.add(batch, keyEnd, coin.value);
      batch.writeDoubleLE(coin.value, at);
      batch.writeUInt32LE(coin.height, at + 8);
      at += 12;
      if (coin.coinbase) coinbases.add(coin.height, txid);
      if (at > BATCH_BYTES - MAX_ROW_BYTES) send(false);
    }
  }
  send(true);
  const packed = coinbases.packed();
  post({ coinbases: packed }, [packed]);
  sendSums(spill);
} catch (err) {
  const e = err as Error;
  post({ error: { code: err instanceof SnapshotError ? err.code : null, message: e.message ?? String(err) } });
} finally {
  spill?.close();
}

/** The sums, partition by partition, in batches of at most BATCH_BYTES (each copied into an ArrayBuffer of its own and transferred). */
function sendSums(from: ScriptSpill): void {
  const step = BATCH_BYTES - (BATCH_BYTES % SUM_ROW_BYTES);
  let last: ArrayBuffer | null = null;
  for (const { rows } of from.sums()) {
    for (let at = 0; at < rows.length; at += step) {
      if (last) post({ sums: last, length: last.byteLength, done: false }, [last]);
      const part = rows.subarray(at, Math.min(at + step, rows.length));
      last = new ArrayBuffer(part.length);
      new Uint8Array(last).set(part);
    }
  }
  const end = last ?? new ArrayBuffer(0);
  post({ sums: end, length: end.byteLength, done: true }, [end]);
}
