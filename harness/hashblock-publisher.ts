/**
 * Plays a node's `zmqpubhashblock` on a real ZeroMQ PUB socket (Debian's litecoind is built without
 * ZMQ, and the BTC stand-in has none): multipart [`hashblock`, 32-byte hash in display order, 4-byte
 * little-endian sequence], as Bitcoin Core's zmq/zmqpublishnotifier.cpp sends it.
 */
import { ZmqPublisher } from './zmq-publisher.js';

export class HashBlockPublisher extends ZmqPublisher {
  private sequence = 0;

  /** Binds on a free loopback port (`override`: a class's static side inherits Function's own bind). */
  static override bind(): Promise<HashBlockPublisher> {
    return ZmqPublisher.bound((endpoint) => new HashBlockPublisher(endpoint));
  }

  async publish(hashHex: string): Promise<void> {
    const seq = Buffer.alloc(4);
    seq.writeUInt32LE(this.sequence++ >>> 0);
    await this.sendFrames(['hashblock', Buffer.from(hashHex, 'hex'), seq]);
  }
}
