/**
 * Plays a node's `zmqpubrawtx` and `zmqpubsequence` on a real ZeroMQ PUB socket (Debian's litecoind is
 * built without ZMQ, the BTC stand-in has none), in Bitcoin Core's zmq/zmqpublishnotifier.cpp format:
 *   [`rawtx`, serialized transaction, 4-byte LE message sequence]
 *   [`sequence`, 32-byte hash (display order) ‖ label ‖ 8-byte LE mempool sequence (A/R only), 4-byte LE message sequence]
 * Each topic has its own message counter, as in Core.
 */
import { ZmqPublisher } from './zmq-publisher.js';

export class MempoolPublisher extends ZmqPublisher {
  private readonly counters = new Map<string, number>();
  private mempoolSequence = 0n;

  /** Binds on a free loopback port (`override`: a class's static side inherits Function's own bind). */
  static override bind(): Promise<MempoolPublisher> {
    return ZmqPublisher.bound((endpoint) => new MempoolPublisher(endpoint));
  }

  async rawtx(raw: Buffer): Promise<void> {
    await this.send('rawtx', raw);
  }

  /** `A` (added) / `R` (removed) for a mempool txid, `C` / `D` for a block hash; hash in display hex. */
  async sequence(hashHex: string, label: 'A' | 'R' | 'C' | 'D'): Promise<void> {
    const parts = [Buffer.from(hashHex, 'hex'), Buffer.from(label, 'latin1')];
    if (label === 'A' || label === 'R') {
      const seq = Buffer.alloc(8);
      seq.writeBigUInt64LE(++this.mempoolSequence);
      parts.push(seq);
    }
    await this.send('sequence', Buffer.concat(parts));
  }

  private async send(topic: string, body: Buffer): Promise<void> {
    const n = this.counters.get(topic) ?? 0;
    this.counters.set(topic, n + 1);
    const seq = Buffer.alloc(4);
    seq.writeUInt32LE(n >>> 0);
    await this.sendFrames([topic, body, seq]);
  }
}
