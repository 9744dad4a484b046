/**
 * Plays a node's `zmqpubrawtx` and `zmqpubsequence` on a real ZeroMQ PUB socket (Debian's litecoind is
 * built without ZMQ, the BTC stand-in has none), in Bitcoin Core's zmq/zmqpublishnotifier.cpp format:
 *   [`rawtx`, serialized transaction, 4-byte LE message sequence]
 *   [`sequence`, 32-byte hash (display order) ‖ label ‖ 8-byte LE mempool sequence (A/R only), 4-byte LE message sequence]
 * Each topic has its own message counter, as in Core.
 */
import { Publisher } from 'zeromq';
import { freePort } from './ports.js';

export class MempoolPublisher {
  private readonly socket = new Publisher();
  private readonly counters = new Map<string, number>();
  private mempoolSequence = 0n;

  private constructor(readonly endpoint: string) {}

  static async bind(): Promise<MempoolPublisher> {
    const publisher = new MempoolPublisher(`tcp://127.0.0.1:${await freePort()}`);
    await publisher.socket.bind(publisher.endpoint);
    return publisher;
  }

  /** Resolves when a subscriber has connected (a PUB socket drops what it sends before that). */
  async subscriberConnected(): Promise<void> {
    for await (const event of this.socket.events) if (event.type === 'accept') return;
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

  close(): void {
    this.socket.close();
  }

  private async send(topic: string, body: Buffer): Promise<void> {
    const n = this.counters.get(topic) ?? 0;
    this.counters.set(topic, n + 1);
    const seq = Buffer.alloc(4);
    seq.writeUInt32LE(n >>> 0);
    await this.socket.send([topic, body, seq]);
  }
}
