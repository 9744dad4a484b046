/**
 * What both node stand-ins' ZeroMQ publishers share: a loopback XPUB socket (a PUB that also hands us the
 * subscriptions it receives), so a test can wait until a subscriber's topics have reached it. A PUB
 * socket drops what it sends to a subscriber whose subscription has not arrived yet (ZeroMQ's "slow
 * joiner"); waiting on that event replaces guessing how long the subscription takes.
 */
import { XPublisher } from 'zeromq';
import { freePort } from './ports.js';

/** ZeroMQ's subscription message: one frame, byte 1 then the topic (byte 0 is an unsubscribe). */
const SUBSCRIBE = 1;

export class ZmqPublisher {
  private readonly socket = new XPublisher();
  private readonly subscribedTopics = new Set<string>();

  protected constructor(readonly endpoint: string) {}

  /** Binds on a free loopback port, for a subclass's static bind(). */
  protected static async bound<T extends ZmqPublisher>(make: (endpoint: string) => T): Promise<T> {
    const publisher = make(`tcp://127.0.0.1:${await freePort()}`);
    await publisher.socket.bind(publisher.endpoint);
    return publisher;
  }

  /** Resolves when a subscriber has connected (its subscriptions may still be on the way: see subscribed()). */
  async subscriberConnected(): Promise<void> {
    for await (const event of this.socket.events) if (event.type === 'accept') return;
  }

  /** Resolves once a subscription to each of `topics` has reached this socket: from then on nothing is dropped. */
  async subscribed(...topics: string[]): Promise<void> {
    while (!topics.every((t) => this.subscribedTopics.has(t))) {
      const [frame] = await this.socket.receive();
      if (frame?.[0] === SUBSCRIBE) this.subscribedTopics.add(frame.subarray(1).toString('latin1'));
    }
  }

  protected async sendFrames(frames: Array<string | Buffer>): Promise<void> {
    await this.socket.send(frames);
  }

  close(): void {
    this.socket.close();
  }
}
