/**
 * Plays a node's `zmqpubhashblock` on a real ZeroMQ PUB socket (Debian's litecoind is built without
 * ZMQ, and the BTC stand-in has none): multipart [`hashblock`, 32-byte hash in display order, 4-byte
 * little-endian sequence], as Bitcoin Core's zmq/zmqpublishnotifier.cpp sends it.
 */
import { Publisher } from 'zeromq';
import { freePort } from './ports.js';

export class HashBlockPublisher {
  private readonly socket = new Publisher();
  private sequence = 0;

  private constructor(readonly endpoint: string) {}

  /** Binds on a free loopback port. */
  static async bind(): Promise<HashBlockPublisher> {
    const publisher = new HashBlockPublisher(`tcp://127.0.0.1:${await freePort()}`);
    await publisher.socket.bind(publisher.endpoint);
    return publisher;
  }

  /** Resolves when a subscriber has connected (a PUB socket drops what it sends before that). */
  async subscriberConnected(): Promise<void> {
    for await (const event of this.socket.events) if (event.type === 'accept') return;
  }

  async publish(hashHex: string): Promise<void> {
    const seq = Buffer.alloc(4);
    seq.writeUInt32LE(this.sequence++ >>> 0);
    await this.socket.send(['hashblock', Buffer.from(hashHex, 'hex'), seq]);
  }

  close(): void {
    this.socket.close();
  }
}
