/**
 * History against a real `litecoind -regtest` (issue 33): for every script of a varied chain (every
 * address kind, coinbases, MWEB peg-ins and HogEx peg-outs, a transaction paying one address twice and
 * spending from it), the address and scripthash summaries' txCount, received and sent, and its
 * transactions paged with limit=3, equal an independent walk of the node's blocks
 * (test/support/history-walk.ts, `getblock … 2`). It holds after a
 * catch-up SIGKILLed at random moments with history on, after a reorg that drops transactions, and
 * `verify` agrees. With transactions in the node's mempool that pay to and spend from watched addresses
 * (one spending from an address and paying it change, a child of it), `unconfirmed` received/sent and
 * the `?mempool=true` pages equal what the node says (`getrawmempool`, `getrawtransaction`, prevouts
 * from `gettxout`), and the index's pages give each one's fee and whether it spends a mempool output as
 * `getmempoolentry` does.
 * History built later from the node's blocks, SIGKILLed halfway and resumed, equals the walk too, while
 * balances are served and history routes answer 503 HISTORY_BUILDING.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { runVerifyCli, waitFor } from '../../harness/indexer-process.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { mine, mineWithActivity } from '../../harness/regtest-chain.js';
import { coins, lockOutpoints, scriptOf, signAndSend, walletUtxos } from '../../harness/regtest-wallet.js';
import { cachedHistoryChain, type HistoryChain } from '../support/history-chain.js';
import { coinsText, walkHistory } from '../support/history-walk.js';
import { historyMismatches, pageHistory, scripthash, written } from '../support/history-check.js';
import { mempoolEffects, mempoolEntry } from '../support/mempool-oracle.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';

const HISTORY_ON = { ADDRSUM_HISTORY: 'true' };
const FAST = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

describe('history totals against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let chain: HistoryChain;
  let apiKey: string;
  let api: ApiProcess;

  beforeAll(async () => {
    const cached = await cachedHistoryChain({ seed: 23 });
    chain = cached.value;
    lw = await LitecoindWorld.start({ litecoind: { from: cached.template } });
    node = lw.node;
    apiKey = lw.world.createKey('history');
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': apiKey } });
    return { status: res.status, text: await res.text() };
  };

  const pageAll = (base: string, limit = 3, query = '') => pageHistory(get, base, limit, query);

  /** Every script the walk saw equals it (history-check.ts); returns how many there were. */
  async function expectTotalsEqualWalk(phase: string): Promise<number> {
    const { wrong, scripts } = await historyMismatches(get, node.cliExact);
    expect(wrong, phase).toEqual([]);
    return scripts;
  }

  it('catches up with history on while SIGKILLed at random moments; the totals and pages of every script equal the walk', async () => {
    expect(await lw.world.killDuringCatchUp(3, () => undefined, HISTORY_ON)).toBeGreaterThanOrEqual(3);
    await lw.world.startIndexer({ env: HISTORY_ON });
    await lw.world.waitForTip('catch-up with history', 120_000);
    api = await lw.world.startApi(FAST);
    expect(await expectTotalsEqualWalk('catch-up')).toBeGreaterThan(6 * 24);
    // The double-pay transaction is one transaction of its address, whatever its outputs.
    const walk = await walkHistory(node.cliExact);
    const entry = walk.historyOf(chain.doublePay.address).find((e) => e.txid === chain.doublePay.txid);
    expect(entry?.receivedSats).toBe(chain.doublePay.paidSats[0] + chain.doublePay.paidSats[1]);
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
  }, 400_000);

  it('follows a reorg that drops transactions; totals and pages equal the walk of the new chain', async () => {
    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 3));
    await mineWithActivity(node, 5, chain.manifest);
    await lw.world.waitForTip('reorg', 60_000);
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectTotalsEqualWalk('reorg');
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
  }, 300_000);

  /** The node's mempool transactions that touch `script`, in the order given, each with what it pays to the script and spends of it. */
  async function mempoolLinesOf(script: string, txids: readonly string[]): Promise<{ txid: string; received: bigint; sent: bigint }[]> {
    return (await mempoolEffects(node.cliExact, txids)).flatMap(({ txid, scripts }) => {
      const e = scripts.get(script);
      return e ? [{ txid, ...e }] : [];
    });
  }

  /** The mempool part of the script's history page, read from the index file: txid, fee, spendsUnconfirmed. */
  function mempoolFactsOf(script: string): { txid: string; fee: bigint | null; spendsUnconfirmed: boolean }[] {
    const reader = ChainReader.open(lw.world.dbPath);
    try {
      const got = reader.historyPage({ key: scriptKey(Buffer.from(script, 'hex')), after: null, limit: 50, mempool: true });
      return (got?.page?.unconfirmed ?? []).map((u) => ({
        txid: toDisplayHex(u.txid),
        fee: u.fee,
        spendsUnconfirmed: u.spendsUnconfirmed,
      }));
    } finally {
      reader.close();
    }
  }

  it('mempool transactions: unconfirmed received/sent and ?mempool=true pages equal the node', async () => {
    const watched = await node.cli<string>('getnewaddress', '', 'bech32');
    const payee = await node.cli<string>('getnewaddress', '', 'legacy');
    const [w, p] = [await scriptOf(node, watched), await scriptOf(node, payee)];
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await node.cli('sendtoaddress', watched, 2);
    await node.cli('sendtoaddress', watched, 1);
    await mine(node, 1, miner);
    await lw.world.waitForTip('the funding block', 60_000);
    const [c1, c2] = (await walletUtxos(node, { addresses: [watched] })).sort((a, b) => b.sats - a.sats);
    expect(c2).toBeDefined();

    /** Unconfirmed as the API writes it for an address, and waits until the index holds `n` of its transactions. */
    const unconfirmedText = async (address: string): Promise<string> =>
      /"unconfirmed":(\{[^}]*\})/.exec((await get(`/api/v1/LTC/address/${address}?mempool=true`)).text)?.[1] ?? '';
    const held = (n: number) =>
      waitFor(
        `the index to hold ${n} mempool transactions of ${watched}`,
        async () => written(await unconfirmedText(watched), 'txCount') === String(n),
        60_000,
        lw.world.indexer,
      );

    // One at a time, each seen by the index before the next: the order the index learned them is the order sent.
    const sent: string[] = [];
    // Spends a coin of the watched address, pays the payee and change back to the watched address.
    const fee = 50_000;
    sent.push(
      await signAndSend(
        node,
        await node.cli<string>(
          'createrawtransaction',
          [{ txid: c1!.txid, vout: c1!.vout }],
          [{ [payee]: coins(50_000_000) }, { [watched]: coins(c1!.sats - 50_000_000 - fee) }],
        ),
      ),
    );
    await held(1);
    // The wallet pays the watched address from coins of its own choosing, never those the third spends.
    await lockOutpoints(node, [
      { txid: c2!.txid, vout: c2!.vout },
      { txid: sent[0]!, vout: 1 },
    ]);
    sent.push(await node.cli<string>('sendtoaddress', watched, 0.3));
    await held(2);
    // A child of the first (its change) and a confirmed coin: pays the payee and the watched address again.
    const change = c1!.sats - 50_000_000 - fee;
    sent.push(
      await signAndSend(
        node,
        await node.cli<string>(
          'createrawtransaction',
          [
            { txid: sent[0], vout: 1 },
            { txid: c2!.txid, vout: c2!.vout },
          ],
          [{ [payee]: coins(20_000_000) }, { [watched]: coins(change + c2!.sats - 20_000_000 - fee) }],
        ),
      ),
    );
    await held(3);

    const walk = await walkHistory(node.cliExact);
    const newestFirst = [...sent].reverse();
    for (const [address, script, limit] of [
      [watched, w, 2],
      [payee, p, 3],
    ] as const) {
      const lines = await mempoolLinesOf(script, newestFirst);
      expect(lines.length, address).toBeGreaterThanOrEqual(2);
      // The summary's unconfirmed side: the node's sums, and received − sent = the Δ balance.
      const u = await unconfirmedText(address);
      const received = lines.reduce((s, l) => s + l.received, 0n);
      const spent = lines.reduce((s, l) => s + l.sent, 0n);
      expect(
        {
          txCount: written(u, 'txCount'),
          receivedSatoshi: written(u, 'receivedSatoshi'),
          received: written(u, 'received'),
          sentSatoshi: written(u, 'sentSatoshi'),
          sent: written(u, 'sent'),
          balanceSatoshi: written(u, 'balanceSatoshi'),
        },
        address,
      ).toEqual({
        txCount: String(lines.length),
        receivedSatoshi: String(received),
        received: coinsText(received),
        sentSatoshi: String(spent),
        sent: coinsText(spent),
        balanceSatoshi: String(received - spent),
      });
      // The pages: the mempool's transactions first, newest first, then the confirmed history, at one tip.
      const want = [
        ...lines.map((l) => `${l.txid} null ${l.received} ${l.sent}`),
        ...walk.historyOfScript(script).map((e) => `${e.txid} ${e.height} ${e.receivedSats} ${e.sentSats}`),
      ];
      for (const base of [`/api/v1/LTC/address/${address}/transactions`, `/api/v1/LTC/scripthash/${scripthash(script)}/transactions`]) {
        const pages = await pageAll(base, limit, '&mempool=true');
        expect(pages, base).toEqual({ lines: want, tips: [walk.tipHash] });
      }
      // The index's own page (as the Electrum server reads it): each transaction's fee and whether it spends
      // a mempool output are the node's (getmempoolentry: fees.base exactly, depends non-empty).
      const facts = mempoolFactsOf(script);
      expect(facts, address).toEqual(
        await Promise.all(lines.map(async (l) => ({ txid: l.txid, ...(await mempoolEntry(node.cliExact, l.txid)) }))),
      );
      expect(
        facts.some((f) => f.spendsUnconfirmed),
        address,
      ).toBe(true);
    }
    // The node's own times agree with newest first.
    const times = await node.cli<Record<string, { time: number }>>('getrawmempool', true);
    const order = newestFirst.map((t) => times[t]!.time);
    expect(order).toEqual([...order].sort((a, b) => b - a));
  }, 180_000);

  it('history turned off is forgotten; turned on again it is built from the blocks, SIGKILLed halfway and resumed', async () => {
    await lw.world.startIndexer();
    const summary = async (): Promise<{ status: number; text: string }> => get(`/api/v1/LTC/address/${chain.doublePay.address}`);
    await waitFor(
      'history to be dropped',
      async () => (await summary()).status === 200 && !/txCount|received|sent/.test((await summary()).text),
      60_000,
      lw.world.indexer,
    );
    expect((await get(`/api/v1/LTC/address/${chain.doublePay.address}/transactions`)).text).toMatch(/HISTORY_DISABLED/);

    /** History as the transactions route states it: off (404), building with its progress (503), or on (200). */
    const history = async (): Promise<{ state: 'off' | 'on' } | { state: 'building'; builtHeight: number; tipHeight: number }> => {
      const r = await get(`/api/v1/LTC/address/${chain.doublePay.address}/transactions?limit=1`);
      if (r.status === 200) return { state: 'on' };
      const body = JSON.parse(r.text) as { code?: string; data: { code?: string; builtHeight: number; tipHeight: number } };
      if (r.status === 404 && body.data.code === 'HISTORY_DISABLED') return { state: 'off' };
      expect([r.status, body.code], r.text).toEqual([503, 'HISTORY_BUILDING']);
      return { state: 'building', ...body.data };
    };
    // Every block its own commit, so a kill lands between two of them; killed at random moments while it builds.
    let kills = 0;
    let before = -1;
    for (let attempt = 0; attempt < 6 && kills < 2; attempt++) {
      const indexer = await lw.world.startIndexer({ toml: 'prefetch = 1\ncommitIntervalMs = 0', env: HISTORY_ON });
      const advanced = async (): Promise<boolean> => {
        const h = await history();
        return h.state === 'on' || (h.state === 'building' && h.builtHeight > before);
      };
      await waitFor('the history build to advance', advanced, 60_000, indexer);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 150)));
      await lw.world.stopIndexer('SIGKILL');
      const left = await history();
      if (left.state !== 'building') break;
      expect(left.builtHeight).toBeLessThan(left.tipHeight);
      // Balances are served meanwhile, without history figures.
      const plain = await summary();
      expect(plain.status).toBe(200);
      expect(plain.text).not.toMatch(/txCount/);
      before = left.builtHeight;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(1);
    const resumed = await lw.world.startIndexer({ env: HISTORY_ON });
    await waitFor('history to be built', async () => (await history()).state === 'on', 120_000, resumed);
    expect(resumed.output()).toMatch(/building history from block [1-9]/);
    expect(resumed.output()).toMatch(/history built/);
    await expectTotalsEqualWalk('build after kills');
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
  }, 400_000);
});
