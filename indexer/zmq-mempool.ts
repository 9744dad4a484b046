import { Subscriber } from 'zeromq';
import type { LogSink } from '../src/logger.js';
import { watchConnection } from './zmq.js';

export interface MempoolEvents {
  onRawTx(raw: Buffer): void;
  onSequence(hashHex: string, label: string): void;
}

/**
 * Subscribes to a node's `rawtx` and `sequence` ZMQ topics (Bitcoin Core ≥ 0.21's zmqpubrawtx /
 * zmqpubsequence). Messages, as zmq/zmqpublishnotifier.cpp sends them:
 *   rawtx:    [topic, serialized transaction, 4-byte LE message sequence]
 *   sequence: [topic, 32-byte hash (display order) ‖ label ('A' added / 'R' removed from the mempool,
 *              'C' / 'D' block connected / disconnected) ‖ 8-byte LE mempool sequence for A and R, 4-byte LE message sequence]
 * Like hashblock, a message only speeds things up: the follower's timer reconcile repairs anything lost.
 */
export async function followMempoolEvents(
  endpoint: string,
  events: MempoolEvents,
  log: LogSink,
  signal: AbortSignal,
  onConnection?: (connected: boolean) => void,
): Promise<void> {
  // ZeroMQ drops messages past the high-water mark while our event loop is busy in a SQLite commit; its
  // default of 1,000 is a moment of a busy mempool. 50,000 messages (two per transaction) ride out longer
  // stalls; anything lost beyond that is repaired by the reconcile timer.
  const socket = new Subscriber({ receiveHighWaterMark: 50_000 });
  watchConnection(socket, onConnection);
  const close = (): void => socket.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    socket.connect(endpoint);
    socket.subscribe('rawtx');
    socket.subscribe('sequence');
    log.info({ endpoint }, 'listening for ZMQ rawtx/sequence notifications');
    for await (const [topic, body] of socket) {
      const name = topic?.toString();
      if (body === undefined) continue;
      if (name === 'rawtx') {
        events.onRawTx(body);
      } else if (name === 'sequence' && body.length >= 33) {
        events.onSequence(body.subarray(0, 32).toString('hex'), String.fromCharCode(body[32]!));
      }
    }
  } catch (err) {
    if (!signal.aborted) log.warn({ endpoint, err: String(err) }, 'ZMQ mempool subscription ended; the mempool reconcile timer continues');
  } finally {
    signal.removeEventListener('abort', close);
    if (!socket.closed) socket.close();
  }
}
