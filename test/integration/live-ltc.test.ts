/**
 * Live pushes (WebSocket /api/v1/ws and …/address/{address}/events) of the real indexer and API against
 * a real `litecoind -regtest`. The node is the oracle: after coins move and a block is mined, and after
 * a reorg (invalidateblock and a longer branch), every client's last summary equals `scantxoutset`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { buildVariedChain } from '../../harness/regtest-chain.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { SseClient, WsClient } from '../support/live-clients.js';

describe('live pushes against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let key: string;
  let addresses: string[];
  const canonical = new Map<string, string>();
  let ws: WsClient;
  const sse: SseClient[] = [];

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    const manifest = await buildVariedChain(node, { seed: 24, perKind: 4 });
    addresses = [...new Set(manifest.addresses.map((a) => a.address))].slice(0, 30);
    key = lw.world.createKey('live');
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 120_000);
    api = await lw.world.startApi(
      '[api.tiers.private]\nrate = 100000\nburst = 100000\n[api.live]\npollMs = 100\nmaxBufferedBytes = 16384\n',
    );
  }, 300_000);

  afterAll(async () => {
    for (const s of sse) s.close();
    ws?.ws.terminate();
    await lw?.close();
  });

  /** Every client's last summary equals the node's UTXO set for every address. */
  async function allEqualNode(): Promise<boolean> {
    const scan = await scanAddresses(node, addresses);
    for (const a of addresses) {
      const want = scan.get(a)!;
      const w = ws.last.get(canonical.get(a)!);
      if (!w || w.balanceSatoshi !== want.sats || w.utxoCount !== want.utxos) return false;
    }
    return sse.every((s, i) => {
      const want = scan.get(addresses[i]!)!;
      return s.last !== null && s.last.balanceSatoshi === want.sats && s.last.utxoCount === want.utxos;
    });
  }

  it('subscribes 24+ addresses; a bad item fails alone and the connection lives', async () => {
    expect(addresses.length).toBeGreaterThanOrEqual(24);
    ws = await WsClient.open(api.url, { 'x-api-key': key });
    ws.ws.send(JSON.stringify({ op: 'subscribe', id: 1, chain: 'ltc', addresses: [...addresses, 'not-an-address'] }));
    await waitFor('the subscribe reply', () => Promise.resolve(ws.reply(1) !== undefined), 20_000);
    const reply = ws.reply(1) as { status: string; data: { subscribed: string[]; failed: { address: string; code: string }[] } };
    // The good items are subscribed, so the op succeeded; the bad one is listed with its code.
    expect(reply.status).toBe('success');
    expect(reply.data.failed).toEqual([expect.objectContaining({ address: 'not-an-address', code: 'INVALID_ADDRESS' })]);
    expect(reply.data.subscribed).toHaveLength(addresses.length);
    addresses.forEach((a, i) => canonical.set(a, reply.data.subscribed[i]!));
    for (const a of addresses) sse.push(await SseClient.open(api.url, 'LTC', a, { 'x-api-key': key }));
    expect(sse.every((s) => s.status === 200)).toBe(true);
    await waitFor('first summaries equal to the node', allEqualNode, 30_000);
  }, 120_000);

  it('answers an event stream without a key 401', async () => {
    const anon = await SseClient.open(api.url, 'LTC', addresses[0]!);
    expect(anon.status).toBe(401);
  });

  it('pushes new summaries after coins move and a block is mined, and after a reorg', async () => {
    for (const a of addresses.slice(0, 6)) await node.cli('sendtoaddress', a, '0.5');
    const miner = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 1, miner);
    await waitFor('summaries after a block', allEqualNode, 60_000);

    const tip = await node.cli<string>('getbestblockhash');
    await node.cli('invalidateblock', tip);
    for (const a of addresses.slice(6, 10)) await node.cli('sendtoaddress', a, '0.25');
    await node.cli('generatetoaddress', 2, miner);
    await waitFor('summaries after a reorg', allEqualNode, 60_000);
    expect(ws.messages.some((m) => m.event === 'tip')).toBe(true);
  }, 180_000);

  it('cuts off a slow consumer while the others keep receiving', async () => {
    const slow = await WsClient.open(api.url, { 'x-api-key': key });
    slow.ws.pause();
    const op = (name: string, id: number): string => JSON.stringify({ op: name, id, chain: 'LTC', addresses });
    let id = 10;
    await waitFor(
      'the server to close the slow consumer',
      async () => {
        for (let i = 0; i < 50 && slow.ws.readyState === WebSocket.OPEN; i++) {
          slow.ws.send(op('subscribe', id++));
          slow.ws.send(op('unsubscribe', id++));
        }
        await new Promise((r) => setTimeout(r, 50));
        return slow.closed !== null;
      },
      60_000,
    );
    await node.cli('sendtoaddress', addresses[11]!, '0.125');
    await node.cli('generatetoaddress', 1, await node.cli<string>('getnewaddress'));
    await waitFor('the others after the slow one left', allEqualNode, 60_000);
    expect(ws.closed).toBeNull();
    // It never reads the close frame; the server says which close it sent.
    const closes = api
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"live: connection closed"'));
    expect(closes.some((l) => l.includes('"code":4008'))).toBe(true);
  }, 120_000);
});
