/**
 * NodeClient against a real litecoind: REST and RPC give the same block bytes (MWEB blocks included),
 * header/chain calls agree with the node, and the failure classes an operator meets are what the
 * indexer's retry logic expects (wrong password → AUTH, stopped node → UNREACHABLE, cookie rotation).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NodeClient, NodeError, withRetry } from '../../src/node/node-client.js';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { mapLimit } from '../../harness/map-limit.js';
import { coins } from '../../harness/regtest-wallet.js';
import type { LogSink } from '../../src/logger.js';

let node: Litecoind;
let tip: number;

async function rejection(p: Promise<unknown>): Promise<NodeError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof NodeError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  node = await startLitecoind();
  // A short chain through MWEB activation: the peg-in must be sent at 431 for block 432.
  const to = await node.cli<string>('getnewaddress');
  await node.cli('generatetoaddress', 431, to);
  await node.cli('sendtoaddress', await node.cli<string>('getnewaddress', '', 'mweb'), coins(500_000_000));
  await node.cli('generatetoaddress', 3, to);
  tip = await node.cli<number>('getblockcount');
});

afterAll(async () => {
  await node?.stop();
});

describe('NodeClient with a real litecoind', () => {
  it('getBlock over REST returns exactly the bytes of getblock <hash> 0, for every block', async () => {
    const client = new NodeClient({ url: node.rpcUrl });
    try {
      const hashes = await mapLimit(
        Array.from({ length: tip + 1 }, (_, h) => h),
        8,
        (h) => client.getBlockHash(h),
      );
      const sizes = await mapLimit(hashes, 4, async (hash) => {
        const rest = await client.getBlock(hash);
        const hex = await node.cli<string>('getblock', hash, 0);
        expect(rest.toString('hex')).toBe(hex);
        return rest.length;
      });
      // MWEB blocks carry an extension block: larger than any pre-MWEB coinbase-only block.
      expect(Math.max(...sizes)).toBeGreaterThan(1000);
    } finally {
      client.close();
    }
  });

  it('answers chain questions as the node does', async () => {
    const client = node.client;
    const best = await node.cli<string>('getbestblockhash');
    expect(await client.getBestBlockHash()).toBe(best);
    expect(await client.getBlockCount()).toBe(tip);
    expect(await client.getBlockHash(tip)).toBe(best);
    const header = await client.getBlockHeader(best);
    expect(header).toEqual({
      hash: best,
      height: tip,
      previousblockhash: await node.cli<string>('getblockhash', tip - 1),
      confirmations: 1,
    });
    expect((await client.getBlockHeader(await client.getBlockHash(0))).previousblockhash).toBeNull();
    const info = await client.getChainInfo();
    expect(info).toMatchObject({ chain: 'regtest', blocks: tip, headers: tip, bestblockhash: best, pruned: false });
    expect(await rejection(client.getBlockHash(tip + 1))).toMatchObject({ code: 'NOT_FOUND', transient: false });
    expect(await rejection(client.getBlock('00'.repeat(32)))).toMatchObject({ code: 'NOT_FOUND', transient: false });
    expect(await rejection(client.getBlockHeader('00'.repeat(32)))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('tells a block on a stale branch from one in the active chain', async () => {
    const client = node.client;
    const best = await client.getBestBlockHash();
    expect(await client.isInActiveChain(best)).toBe(true);
    await node.cli('invalidateblock', best);
    try {
      expect(await client.isInActiveChain(best)).toBe(false);
      expect((await client.getBlockHeader(best)).confirmations).toBe(-1);
    } finally {
      await node.cli('reconsiderblock', best);
    }
    expect(await client.getBestBlockHash()).toBe(best);
  });

  it('classifies a wrong password as AUTH without echoing it', async () => {
    const bad = new NodeClient({ url: `http://addrsum:not-the-password@127.0.0.1:${node.rpcPort}` });
    try {
      const err = await rejection(bad.getBlockCount());
      expect(err.code).toBe('AUTH');
      expect(err.details.httpStatus).toBe(401);
      expect(err.message).not.toContain('not-the-password');
    } finally {
      bad.close();
    }
  });

  it('falls back to hex over RPC when the node runs with -rest=0', async () => {
    const client = new NodeClient({ url: node.rpcUrl });
    try {
      const best = await client.getBestBlockHash();
      const viaRest = await client.getBlock(best);
      await node.restart({ extraArgs: ['-rest=0'] });
      // The same client notices that REST is gone (404 without body) and still delivers the block.
      expect((await client.getBlock(best)).equals(viaRest)).toBe(true);
      const fresh = new NodeClient({ url: node.rpcUrl });
      expect((await fresh.getBlock(best)).equals(viaRest)).toBe(true);
      fresh.close();
    } finally {
      client.close();
      await node.restart({ extraArgs: [] });
    }
  });

  it('reports a stopped node as UNREACHABLE and withRetry waits until it is back', async () => {
    const client = new NodeClient({ url: node.rpcUrl });
    const lines: { obj: object; msg: string }[] = [];
    const log: LogSink = { warn: (obj, msg) => lines.push({ obj, msg }), info: () => undefined };
    try {
      const restarting = node.restart();
      // Wait for the moment the node is down.
      let down: NodeError | undefined;
      await vi.waitFor(
        async () => {
          down = await client.getBlockCount().then(
            () => undefined,
            (err: unknown) => {
              if (!(err instanceof NodeError)) throw err;
              return err;
            },
          );
          expect(down, 'the node still answers').toBeDefined();
        },
        { timeout: 10_000, interval: 20 },
      );
      // A reply cut off by the shutting-down node comes back as a transient BAD_RESPONSE.
      expect(['UNREACHABLE', 'WARMING_UP', 'BAD_RESPONSE']).toContain(down?.code);
      expect(down?.transient).toBe(true);
      const count = await withRetry(() => client.getBlockCount(), { log, baseDelayMs: 50, maxDelayMs: 500 });
      expect(count).toBe(tip);
      await restarting;
      expect(lines.length).toBeGreaterThan(0);
      expect(JSON.stringify(lines)).not.toContain(node.rpcPassword as string);
    } finally {
      client.close();
    }
  });

  it('authenticates with the cookie file and follows its rotation across restarts', async () => {
    const cookieNode = await startLitecoind({ auth: 'cookie', wallet: false });
    try {
      const client = new NodeClient({ url: cookieNode.rpcUrl, cookieFile: cookieNode.cookieFile });
      expect(await client.getBlockCount()).toBe(0);
      const before = await readFile(cookieNode.cookieFile, 'utf8');
      await cookieNode.restart();
      expect(await readFile(cookieNode.cookieFile, 'utf8')).not.toBe(before);
      expect(await client.getBlockCount()).toBe(0);
      const noCookie = new NodeClient({ url: cookieNode.rpcUrl });
      expect((await rejection(noCookie.getBlockCount())).code).toBe('AUTH');
      noCookie.close();
      client.close();
      await cookieNode.stop();
      // Core deletes the cookie on shutdown: the client reports the node as not running.
      expect(await rejection(client.getBlockCount())).toMatchObject({ code: 'UNREACHABLE', transient: true });
    } finally {
      await cookieNode.stop();
    }
  });

  it('reports a node that is gone as UNREACHABLE (transient)', async () => {
    const gone = await startLitecoind({ wallet: false });
    const client = new NodeClient({ url: gone.rpcUrl });
    expect(await client.getBlockCount()).toBe(0);
    await gone.stop();
    const err = await rejection(client.getBlockCount());
    expect(err).toMatchObject({ code: 'UNREACHABLE', transient: true });
    expect(err.message).not.toContain(gone.rpcPassword as string);
    client.close();
  });
});
