/**
 * Worker thread of a snapshot load (snapshot-stream.ts starts it): decodes the file and hashes the
 * scripts on the second core while the loading thread only inserts. Rows go back in batches packed
 * into transferred ArrayBuffers (layout in snapshot-stream.ts); a shared counter pair bounds how many
 * batches are in flight, so memory stays bounded however far ahead decoding runs.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { SnapshotError } from '../src/chain/snapshot-format.js';
import { writeOutpointKey } from '../src/store/outpoint.js';
import { writeScriptKey } from '../src/store/script-key.js';
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

try {
  const file = SnapshotFile.open(job.path, job.chain, job.network);
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
      batch.writeDoubleLE(coin.value, at);
      batch.writeUInt32LE(coin.height, at + 8);
      at += 12;
      if (at > BATCH_BYTES - MAX_ROW_BYTES) send(false);
    }
  }
  send(true);
} catch (err) {
  const e = err as Error;
  post({ error: { code: err instanceof SnapshotError ? err.code : null, message: e.message ?? String(err) } });
}
