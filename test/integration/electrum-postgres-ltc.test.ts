/**
 * The Electrum server over an LTC index in PostgreSQL, against a real `litecoind -regtest` and real
 * PostgreSQL clusters this suite starts (harness/postgres.ts): the indexer (history and the UTXO listing
 * on) writes into a primary; one API reads the primary, another a streaming standby (pg_basebackup -R),
 * each with its own Electrum port. On both ports, for every address of a varied chain with a mempool,
 * get_balance, get_history, get_mempool, listunspent and subscribe's status equal what the node alone
 * says (test/support/electrum-oracle.ts, through electrum-node-check.ts), and the headers and checkpoint
 * proofs are the node's. Then, subscribed on both ports, a mempool payment, a paying block and a reorg
 * onto a longer fork each notify every changed scripthash with the status recomputed from the node, and
 * the headers subscription with the node's new tip: on the standby once it has replayed them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { freePort } from '../../harness/ports.js';
import { startPrimary, startStandby, type PgCluster } from '../../harness/postgres.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { type ChainManifest } from '../../harness/regtest-chain.js';
import type { ElectrumClient } from '../support/electrum-client.js';
import { ElectrumNodeCheck } from '../support/electrum-node-check.js';
import type { Expected } from '../support/electrum-oracle.js';
import { tipIn } from '../support/postgres-tip.js';

const API_TOML = '[api.tiers.default]\nrate = 1000000\nburst = 1000000\n[api.live]\npollMs = 100\n';

interface ElectrumApi {
  readonly name: string;
  readonly api: ApiProcess;
  readonly port: number;
}

describe('Electrum over an LTC index in PostgreSQL: APIs on the primary and on a standby', () => {
  let primary: PgCluster;
  let standby: PgCluster;
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let check: ElectrumNodeCheck;
  /** The API on the primary, then the one on the standby. */
  const apis: ElectrumApi[] = [];
  /** A connection to each port that asks, and one that is subscribed to every address and the headers. */
  const clients: ElectrumClient[] = [];
  const subs: ElectrumClient[] = [];
  /** What the node said of every address when `subs` subscribed. */
  let subscribed: Expected[] = [];

  const startApiOn = async (name: string, url: string): Promise<void> => {
    const port = await freePort();
    const api = await lw.world.startApi(API_TOML, {
      ADDRSUM_LTC_INDEX_URL: url,
      ADDRSUM_SERVE_CHAINS: 'LTC',
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
    });
    apis.push({ name, api, port });
  };

  beforeAll(async () => {
    primary = await startPrimary();
    standby = await startStandby(primary);
    const chain = await cachedVariedChain({ seed: 23, perKind: 24 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({
      litecoind: { from: chain.template },
      env: { ADDRSUM_LTC_INDEX_URL: primary.url, ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' },
      indexedTip: () => tipIn(primary.url),
    });
    node = lw.node;
    check = await ElectrumNodeCheck.create(node, manifest);
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('catch-up into PostgreSQL', 180_000);
    expect(lw.world.indexer!.output()).toMatch(/"db":"postgres:\/\//);
    await startApiOn('API on the primary', primary.url);
    await startApiOn('API on the standby', standby.url);
    await check.fillMempool(6);
    await check.expectMempoolChild();
  }, 300_000);

  afterAll(async () => {
    check?.closeClients();
    for (const a of apis) await a.api.stop();
    await lw?.close();
    await standby?.stop();
    await primary?.stop();
  });

  /** Waits until the indexer has the node's tip in the primary and the standby has replayed it. */
  const indexedEverywhere = async (phase: string): Promise<void> => {
    await lw.world.waitForTip(`${phase}: the indexer`, 60_000);
    const tip = await lw.nodeTip();
    await waitFor(`${phase}: the standby to replay ${tip}`, async () => (await tipIn(standby.url))?.hash === tip, 30_000);
  };

  /** Every address answered on each port as the node says; the expectations of the last. */
  const answersEqualNode = async (phase: string): Promise<Expected[]> => {
    let want: Expected[] = [];
    for (const [i, c] of clients.entries()) want = await check.expectAnswersEqualNode(c, `${phase} (${apis[i]!.name})`);
    return want;
  };

  it('answers every address (balance, history, mempool, UTXOs, subscribe status) and header on both ports as the node says', async () => {
    await indexedEverywhere('initial catch-up');
    // The standby's API reads a standby: /ready says how far its replay is behind; the primary's does not.
    const ready = async (a: ElectrumApi): Promise<Record<string, unknown>> => {
      const body = (await (await fetch(`${a.api.url}/ready`)).json()) as { data: { chains: Array<Record<string, unknown>> } };
      return body.data.chains.find((c) => c.chain === 'LTC')!;
    };
    expect(await ready(apis[0]!)).not.toHaveProperty('standbyReplayLagSeconds');
    expect(await ready(apis[1]!)).toHaveProperty('standbyReplayLagSeconds');
    for (const a of apis) clients.push(await check.connect(a.port));
    for (const c of clients) await check.expectHeadersEqualNode(c);
    subscribed = await answersEqualNode('with a mempool');
    ElectrumNodeCheck.expectVaried(subscribed);
    // Subscribed to every address and to the headers, on each port: each status answered is the node's.
    for (const a of apis) subs.push(await check.connect(a.port));
    for (const s of subs) await check.subscribeAll(s, subscribed, true);
  }, 180_000);

  it('notifies a mempool payment, a paying block and a reorg on both ports with the statuses the node gives', async () => {
    expect(subs.length, 'connections subscribed by the test before').toBe(apis.length);
    let before = subscribed;

    /** Every changed status notified on each port, each the node's; the headers at the node's tip. */
    const expectNotifiedEverywhere = async (phase: string, tip: boolean): Promise<Expected[]> => {
      const after = await answersEqualNode(phase);
      for (const [i, s] of subs.entries()) {
        if (tip) await check.expectTipNotified(s, `${phase} (${apis[i]!.name})`);
        await check.expectNotified(s, before, after, `${phase} (${apis[i]!.name})`);
      }
      return after;
    };

    await check.fillMempool(2);
    before = await expectNotifiedEverywhere('mempool payments', false);

    const payee = before[3]!;
    await node.cli('generatetoaddress', 1, manifest.addresses[3]!.address);
    await indexedEverywhere('the paying block');
    const paid = await expectNotifiedEverywhere('the paying block', true);
    expect(paid[3]!.status, 'the paid address changed status').not.toBe(payee.status);
    before = paid;

    // A reorg: the paying block is replaced by a longer fork, with a fresh mempool in between.
    await node.cli('invalidateblock', await node.cli<string>('getbestblockhash'));
    await check.fillMempool(3);
    await node.cli('generatetoaddress', 2, manifest.addresses[5]!.address);
    await indexedEverywhere('the longer fork');
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectNotifiedEverywhere('the reorg', true);
    for (const c of clients) await check.expectHeadersEqualNode(c);
  }, 180_000);
});
