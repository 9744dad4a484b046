/** An IndexerWorld (harness/indexer-world.ts) around the BTC stand-in serving a chain the test builds. */
import type { BtcChain } from './btc-chain.js';
import { startFakeNode, type FakeNode, type FakeNodeOptions } from './fake-node.js';
import { IndexerWorld } from '../../harness/indexer-world.js';

export class FakeNodeWorld {
  private constructor(
    readonly node: FakeNode,
    readonly world: IndexerWorld,
  ) {}

  static async start(chain: BtcChain, opts: FakeNodeOptions = {}): Promise<FakeNodeWorld> {
    const node = await startFakeNode(chain, opts);
    const world = await IndexerWorld.create({ chain: 'BTC', rpcUrl: node.url, tipHash: () => chain.tip.hash });
    return new FakeNodeWorld(node, world);
  }

  async close(): Promise<void> {
    await this.world.close();
    await this.node.close();
  }
}
