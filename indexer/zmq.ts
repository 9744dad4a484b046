import { Subscriber } from 'zeromq';
import type { LogSink } from '../src/logger.js';

/**
 * Subscribes to a node's `hashblock` ZMQ topic and calls `onBlock` for every message. The payload is
 * not trusted or even needed: it only wakes the sync loop, which asks the node over RPC what changed.
 * Messages are [topic, 32-byte hash, 4-byte LE sequence] (Bitcoin Core's zmq/zmqpublishnotifier.cpp).
 * Resolves when `signal` aborts; ZeroMQ reconnects to a restarting node by itself.
 */
export async function followHashBlocks(
  endpoint: string,
  onBlock: (hashHex: string) => void,
  log: LogSink,
  signal: AbortSignal,
  onConnection?: (connected: boolean) => void,
): Promise<void> {
  const socket = new Subscriber();
  watchConnection(socket, onConnection);
  const close = (): void => socket.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    socket.connect(endpoint);
    socket.subscribe('hashblock');
    log.info({ endpoint }, 'listening for ZMQ hashblock notifications');
    for await (const [topic, body] of socket) {
      if (topic?.toString() !== 'hashblock' || body?.length !== 32) continue;
      onBlock(body.toString('hex'));
    }
  } catch (err) {
    if (!signal.aborted) log.warn({ endpoint, err: String(err) }, 'ZMQ subscription ended; polling continues');
  } finally {
    signal.removeEventListener('abort', close);
    if (!socket.closed) socket.close();
  }
}

/**
 * Reports the subscription's connection to the node's publisher (ZeroMQ's socket monitor: connect and
 * disconnect events), false until the first connect and after the socket closes.
 */
export function watchConnection(socket: Subscriber, onChange: ((connected: boolean) => void) | undefined): void {
  if (!onChange) return;
  onChange(false);
  void (async () => {
    try {
      for await (const event of socket.events) {
        if (event.type === 'connect') onChange(true);
        else if (event.type === 'disconnect' || event.type === 'close') onChange(false);
      }
    } catch {
      // The socket closed while we listened: reported below.
    }
    onChange(false);
  })();
}
