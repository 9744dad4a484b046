/**
 * The index-backed Electrum methods of the real API process over a real `litecoind -regtest` and the real
 * indexer (history and the UTXO listing on), against what the node alone says (test/support/
 * electrum-oracle.ts, through electrum-node-check.ts): for every address of a varied chain with a mempool
 * (payments, a child of a mempool transaction), get_balance, get_history, get_mempool, listunspent and
 * subscribe's status; the headers and block.headers byte for byte, checkpoint proofs against the node's
 * block hashes. Then after a paying block and after a reorg onto a longer fork, every scripthash
 * notification carries the status recomputed from the node, and the headers notification the node's new
 * tip. test/integration/electrum-postgres-ltc.test.ts runs the same checks over an index in PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { freePort } from '../../harness/ports.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { type ChainManifest } from '../../harness/regtest-chain.js';
import type { ElectrumClient } from '../support/electrum-client.js';
import { ElectrumNodeCheck, isNote } from '../support/electrum-node-check.js';

describe('Electrum index-backed methods against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let api: ApiProcess;
  let port: number;
  let check: ElectrumNodeCheck;

  beforeAll(async () => {
    const chain = await cachedVariedChain({ seed: 23, perKind: 24 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({ litecoind: { from: chain.template }, env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    node = lw.node;
    check = await ElectrumNodeCheck.create(node, manifest);
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 180_000);
    port = await freePort();
    api = await lw.world.startApi('[api.tiers.default]\nrate = 1000000\nburst = 1000000\n[api.live]\npollMs = 100\n', {
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
    });
    await check.fillMempool(6);
    await check.expectMempoolChild();
  }, 400_000);

  afterAll(async () => {
    check?.closeClients();
    await lw?.close();
  });

  const connect = (): Promise<ElectrumClient> => check.connect(port);

  it('answers every address and header as the node says, then notifies a paying block and a reorg', async () => {
    expect(api.url).toBeTruthy();
    const client = await connect();
    await check.expectHeadersEqualNode(client);
    let before = await check.expectAnswersEqualNode(client, 'with a mempool');
    ElectrumNodeCheck.expectVaried(before);
    // Subscriptions spread over two connections; each status is the node's.
    const subs = [await connect(), await connect()];
    await check.subscribeAll(
      subs[0]!,
      before.filter((_, j) => j % 2 === 0),
      true,
    );
    await check.subscribeAll(
      subs[1]!,
      before.filter((_, j) => j % 2 === 1),
      false,
    );

    // Mempool only: new payments (and a child of one) notify the scripts they touch.
    await check.fillMempool(2);
    let after = await check.expectAnswersEqualNode(client, 'with more mempool');
    for (const [i, s] of subs.entries())
      await check.expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `mempool (connection ${i})`,
      );
    before = after;

    const payee = manifest.addresses[3]!.address;
    await node.cli('generatetoaddress', 1, payee);
    await lw.world.waitForTip('the paying block', 60_000);
    after = await check.expectAnswersEqualNode(client, 'after a paying block');
    await check.expectTipNotified(subs[0]!, 'paying block');
    for (const [i, s] of subs.entries())
      await check.expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `block (connection ${i})`,
      );

    // A reorg: the paying block is replaced by a longer fork, with a fresh mempool in between.
    before = after;
    await node.cli('invalidateblock', await node.cli<string>('getbestblockhash'));
    await check.fillMempool(3);
    await node.cli('generatetoaddress', 2, manifest.addresses[5]!.address);
    await lw.world.waitForTip('the longer fork', 60_000);
    after = await check.expectAnswersEqualNode(client, 'after a reorg');
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await check.expectHeadersEqualNode(client);
    await check.expectTipNotified(subs[0]!, 'reorg');
    for (const [i, s] of subs.entries())
      await check.expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `reorg (connection ${i})`,
      );

    // Every notification sent is counted, by method (a last one may still be on its way to the client).
    const counted = async (method: string): Promise<number> => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('addrsum_api_electrum_notifications_total{') && l.includes(`method="${method}"`));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const received = (method: string): number => check.clients.flatMap((c) => c.messages).filter((m) => isNote(m, method)).length;
    for (const method of ['blockchain.scripthash.subscribe', 'blockchain.headers.subscribe']) {
      await waitFor(`${method} notifications counted as received`, async () => (await counted(method)) === received(method), 10_000);
    }
    expect(received('blockchain.headers.subscribe')).toBeGreaterThanOrEqual(4);
  }, 400_000);
});
