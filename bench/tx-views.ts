/**
 * Benchmark "tx-views" (issue 45): the transaction view against a real litecoind kept without -txindex,
 * over loopback, side by side with the node answering the same transaction itself.
 *
 *   npm run bench -- tx-views
 *
 * A regtest chain gets ADDRSUM_BENCH_TX_VIEWS (default 600) transactions of 2 inputs and 2 outputs, each
 * spending both outputs of a funding transaction of its own, so no lookup finds another's funding
 * transaction in the cache. An indexer keeps history; an API process serves the views.
 * (a) Uncached: each of the last third of the transactions asked for once through GET …/tx/{txid} (the
 *     node reads the transaction and its funding transaction): p99, goal ≤ 5 ms.
 * (b) Cached: the same transactions asked again: p99, goal ≤ 1 ms.
 * (c) The node's own `getrawtransaction <txid> true <blockhash>` (decoded, without prevouts) for the same
 *     transactions over its RPC, beside (a) and (b): the ratios.
 * (d) Pages of 25: the first two thirds, 25 distinct uncached transactions asked at once by one client
 *     (what an Esplora page of transactions needs): p99 of a page, goal ≤ 50 ms.
 * Latencies are the client's (undici fetch over loopback), so they include HTTP.
 */
import { loadavg } from 'node:os';
import { LitecoindWorld } from '../harness/indexer-world.js';
import { mine } from '../harness/regtest-chain.js';
import { coins, lockOutpoints, signAndSend } from '../harness/regtest-wallet.js';
import { machineLine, percentile, today, writeSection } from './report.js';

const GOALS = { uncachedP99Ms: 5, cachedP99Ms: 1, pageP99Ms: 50 };
const FUNDING_SATS = 10_000_000;
const FEE_SATS = 20_000;
/** Below Core's limit of 25 unconfirmed ancestors: the wallet's change chains its sends. */
const SENDS_PER_BLOCK = 20;
const PAGE = 25;

const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;
const fmt = (v: number): string => v.toFixed(2);

/** N transactions of 2 inputs and 2 outputs, each with a funding transaction of its own; their txids. */
async function buildChain(lw: LitecoindWorld, n: number): Promise<string[]> {
  const node = lw.node;
  const miner = await node.cli<string>('getnewaddress', '', 'bech32');
  await mine(node, 101 + Math.ceil((n * 2 * FUNDING_SATS) / 50e8), miner);
  const funding: { txid: string; outs: number[] }[] = [];
  for (let i = 0; i < n; i++) {
    const [a, b] = [await node.cli<string>('getnewaddress', '', 'bech32'), await node.cli<string>('getnewaddress', '', 'legacy')];
    const txid = await node.cli<string>('sendmany', '', { [a]: coins(FUNDING_SATS), [b]: coins(FUNDING_SATS) });
    const tx = await node.cli<{ vout: { n: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>(
      'getrawtransaction',
      txid,
      true,
    );
    const outs = tx.vout.filter((v) => [a, b].includes(v.scriptPubKey.address ?? v.scriptPubKey.addresses?.[0] ?? '')).map((v) => v.n);
    funding.push({ txid, outs });
    // Kept for their spend: the wallet's later sends must not pick them.
    await lockOutpoints(
      node,
      outs.map((vout) => ({ txid, vout })),
    );
    if ((i + 1) % SENDS_PER_BLOCK === 0) await mine(node, 1, miner);
  }
  await mine(node, 1, miner);
  const spends: string[] = [];
  for (const [i, f] of funding.entries()) {
    const to = [await node.cli<string>('getnewaddress', '', 'bech32'), await node.cli<string>('getnewaddress', '', 'p2sh-segwit')];
    const inputs = f.outs.map((vout) => ({ txid: f.txid, vout }));
    const outputs = [{ [to[0]!]: coins(FUNDING_SATS) }, { [to[1]!]: coins(FUNDING_SATS - FEE_SATS) }];
    spends.push(await signAndSend(lw.node, await node.cli<string>('createrawtransaction', inputs, outputs)));
    if ((i + 1) % 500 === 0) await mine(node, 1, miner);
  }
  await mine(node, 1, miner);
  return spends;
}

export async function runTxViewsBench(): Promise<{ goalMet: boolean }> {
  const n = Number(process.env.ADDRSUM_BENCH_TX_VIEWS ?? 600);
  const lw = await LitecoindWorld.start();
  try {
    const built = process.hrtime.bigint();
    const txids = await buildChain(lw, n);
    process.stdout.write(`built ${n} transactions in ${(ms(built) / 1000).toFixed(0)} s\n`);
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true' } });
    await lw.world.waitForTip('the indexer at the tip', 300_000);
    const api = await lw.world.startApi('[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
    const key = lw.world.createKey('bench');
    const get = async (txid: string): Promise<void> => {
      const res = await fetch(`${api.url}/api/v1/LTC/tx/${txid}`, { headers: { 'x-api-key': key } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET tx ${txid}: ${res.status} ${text.slice(0, 200)}`);
    };
    const where = new Map<string, string>();
    for (const txid of txids) {
      const t = await lw.node.cli<{ blockhash: string }>('gettransaction', txid);
      where.set(txid, t.blockhash);
    }

    const paged = txids.slice(0, Math.floor((n * 2) / 3));
    const single = txids.slice(paged.length);
    // Warm the process (JIT, sockets) on a transaction measured nowhere else.
    for (let i = 0; i < 20; i++) await get(paged.at(-1)!);

    const pages: number[] = [];
    for (let i = 0; i + PAGE <= paged.length - 1; i += PAGE) {
      const t0 = process.hrtime.bigint();
      await Promise.all(paged.slice(i, i + PAGE).map(get));
      pages.push(ms(t0));
    }
    const timed = async (each: (txid: string) => Promise<unknown>): Promise<number[]> => {
      const out: number[] = [];
      for (const txid of single) {
        const t0 = process.hrtime.bigint();
        await each(txid);
        out.push(ms(t0));
      }
      return out.sort((a, b) => a - b);
    };
    const uncached = await timed(get);
    const cached = await timed(get);
    const nodeOwn = await timed((txid) => lw.node.cli('getrawtransaction', txid, true, where.get(txid)));
    pages.sort((a, b) => a - b);

    const p = (v: readonly number[], q: number) => percentile(v, q / 100);
    const ok = {
      uncached: p(uncached, 99) <= GOALS.uncachedP99Ms,
      cached: p(cached, 99) <= GOALS.cachedP99Ms,
      page: p(pages, 99) <= GOALS.pageP99Ms,
    };
    const row = (name: string, v: number[], goal: string, met: boolean | null) =>
      v.length === 0
        ? `| ${name} | 0 | — | — | — | — | ${goal} | not measured |`
        : `| ${name} | ${v.length} | ${fmt(p(v, 50))} | ${fmt(p(v, 99))} | ${fmt(v.at(-1)!)} | ${fmt(p(v, 99) / p(nodeOwn, 99))}× | ${goal} | ${met === null ? '—' : met ? 'met' : 'NOT met'} |`;
    writeSection(
      'tx-views',
      [
        '## tx-views — the transaction view against litecoind without -txindex (issue 45)',
        '',
        `Run ${today()} on ${machineLine()}, load ${loadavg()[0]!.toFixed(2)}. \`npm run bench -- tx-views\` (bench/tx-views.ts): ${n} transactions of 2 inputs and 2 outputs on a regtest chain, each with a funding transaction of its own; GET /api/v1/LTC/tx/{txid} from one client over loopback (HTTP included) beside the node's own \`getrawtransaction <txid> true <blockhash>\` (decoded, no prevouts) over its RPC, one after the other in one run.`,
        '',
        '| measure | n | p50 ms | p99 ms | max ms | p99 ÷ node p99 | goal | |',
        '|---|---:|---:|---:|---:|---:|---|---|',
        row('tx view, uncached (the transaction and its funding one read from the node)', uncached, 'p99 ≤ 5 ms', ok.uncached),
        row('tx view, cached', cached, 'p99 ≤ 1 ms', ok.cached),
        row("node's getrawtransaction verbose (no prevouts)", nodeOwn, 'reference', null),
        row('a page of 25 uncached views asked at once', pages, 'p99 ≤ 50 ms', ok.page),
      ].join('\n'),
    );
    process.stdout.write(
      `uncached p99 ${fmt(p(uncached, 99))} ms, cached p99 ${fmt(p(cached, 99))} ms, node p99 ${fmt(p(nodeOwn, 99))} ms, page p99 ${fmt(p(pages, 99))} ms\n`,
    );
    return { goalMet: ok.uncached && ok.cached && ok.page };
  } finally {
    await lw.close();
  }
}
