/**
 * Benchmark "esplora" (issue 46): the Esplora dialect beside the native routes, against a real litecoind
 * without -txindex, over loopback, in one run.
 *
 *   npm run bench -- esplora
 *
 * The varied regtest chain (harness/chain-cache.ts, seed 23), an indexer keeping history, one API
 * process serving both doors; every request carries a key of a tier without limits.
 * (a) GET /esplora/LTC/api/address/:a beside GET /api/v1/LTC/address/:a, one client, the two asked in
 *     turn for every address of the chain, several rounds: p99, goal ≤ 2 ms.
 * (b) GET …/address/:a/txs for the address with most transactions (25 confirmed, each with its
 *     prevouts): p99, goal ≤ 50 ms.
 * (c) GET …/tx/:txid for the transactions of the last blocks: p99, goal ≤ 5 ms.
 * (d) Requests a second: CLIENTS clients asking (a)'s two routes for DURATION_MS each, the doors in
 *     alternating rounds; goal: Esplora ≥ 0.9× the native summary's.
 * Latencies are the client's (undici fetch over loopback), HTTP included.
 */
import { loadavg } from 'node:os';
import { cachedVariedChain } from '../harness/chain-cache.js';
import { LitecoindWorld } from '../harness/indexer-world.js';
import { machineLine, percentile, today, writeSection } from './report.js';

const GOALS = { addressP99Ms: 2, txsP99Ms: 50, txP99Ms: 5, throughputRatio: 0.9 };
const ROUNDS = 5;
const CLIENTS = 8;
const DURATION_MS = 3_000;
const THROUGHPUT_ROUNDS = 3;
const TX_BLOCKS = 40;

const fmt = (v: number): string => v.toFixed(2);
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

export async function runEsploraBench(): Promise<{ goalMet: boolean }> {
  const chain = await cachedVariedChain({ seed: 23, perKind: 24 });
  const lw = await LitecoindWorld.start({ litecoind: { from: chain.template } });
  try {
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true' } });
    await lw.world.waitForTip('the indexer at the tip', 300_000);
    const api = await lw.world.startApi('[api.tiers.private]\nrate = 1000000\nburst = 1000000\n', { ADDRSUM_ESPLORA: 'true' });
    const key = lw.world.createKey('bench');
    const get = async (path: string): Promise<string> => {
      const res = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': key } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    const timed = async (path: string, into: number[]): Promise<void> => {
      const t0 = process.hrtime.bigint();
      await get(path);
      into.push(ms(t0));
    };
    const esplora = (a: string) => `/esplora/LTC/api/address/${a}`;
    const native = (a: string) => `/api/v1/LTC/address/${a}`;

    // Warm both doors on every address, and find the busiest.
    const addresses = chain.value.addresses.map((a) => a.address);
    let busiest = { address: addresses[0]!, txs: -1 };
    for (const a of addresses) {
      const stats = JSON.parse(await get(esplora(a))) as { chain_stats: { tx_count: number } };
      await get(native(a));
      if (stats.chain_stats.tx_count > busiest.txs) busiest = { address: a, txs: stats.chain_stats.tx_count };
    }

    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < ROUNDS; r++)
      for (const a of addresses) {
        await timed(esplora(a), ours);
        await timed(native(a), theirs);
      }

    const txsPage: number[] = [];
    for (let i = 0; i < 5; i++) await get(`${esplora(busiest.address)}/txs`);
    for (let i = 0; i < 100; i++) await timed(`${esplora(busiest.address)}/txs`, txsPage);

    const tip = await lw.node.cli<number>('getblockcount');
    const txids: string[] = [];
    for (let h = tip - TX_BLOCKS + 1; h <= tip; h++)
      txids.push(...(await lw.node.cli<{ tx: string[] }>('getblock', await lw.node.cli<string>('getblockhash', h), 1)).tx);
    // The genesis coinbase aside, every transaction is served; the first asking reads it from the node.
    for (const txid of txids) await get(`/esplora/LTC/api/tx/${txid}`);
    const tx: number[] = [];
    for (let r = 0; r < ROUNDS; r++) for (const txid of txids) await timed(`/esplora/LTC/api/tx/${txid}`, tx);

    const throughput = async (path: (a: string) => string): Promise<number> => {
      let done = 0;
      const until = Date.now() + DURATION_MS;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          for (let i = c; Date.now() < until; i += CLIENTS) {
            await get(path(addresses[i % addresses.length]!));
            done++;
          }
        }),
      );
      return done / (DURATION_MS / 1000);
    };
    const rates = { esplora: [] as number[], native: [] as number[] };
    for (let r = 0; r < THROUGHPUT_ROUNDS; r++) {
      rates.esplora.push(await throughput(esplora));
      rates.native.push(await throughput(native));
    }

    for (const v of [ours, theirs, txsPage, tx]) v.sort((a, b) => a - b);
    const p = (v: readonly number[], q: number) => percentile(v, q / 100);
    const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);
    const ratio = sum(rates.esplora) / sum(rates.native);
    const ok = {
      address: p(ours, 99) <= GOALS.addressP99Ms,
      txs: p(txsPage, 99) <= GOALS.txsP99Ms,
      tx: p(tx, 99) <= GOALS.txP99Ms,
      throughput: ratio >= GOALS.throughputRatio,
    };
    const verdict = (met: boolean | null) => (met === null ? '—' : met ? 'met' : 'NOT met');
    const row = (name: string, v: number[], goal: string, met: boolean | null) =>
      `| ${name} | ${v.length} | ${fmt(p(v, 50))} | ${fmt(p(v, 99))} | ${fmt(v.at(-1)!)} | ${fmt(p(v, 99) / p(theirs, 99))}× | ${goal} | ${verdict(met)} |`;
    writeSection(
      'esplora',
      [
        '## esplora — the Esplora dialect beside the native routes (issue 46)',
        '',
        `Run ${today()} on ${machineLine()}, load ${loadavg()[0]!.toFixed(2)}. \`npm run bench -- esplora\` (bench/esplora.ts): the varied regtest chain (seed 23, ${addresses.length} addresses, the busiest with ${busiest.txs} transactions), an indexer keeping history, one API process serving both doors over loopback; one client unless said, HTTP included, every figure from the same run.`,
        '',
        '| measure | n | p50 ms | p99 ms | max ms | p99 ÷ native summary p99 | goal | |',
        '|---|---:|---:|---:|---:|---:|---|---|',
        row('Esplora `/address/:a`', ours, 'p99 ≤ 2 ms', ok.address),
        row('native `/api/v1/LTC/address/:a` (asked in turn with the row above)', theirs, 'reference', null),
        row(`Esplora \`/address/:a/txs\`, the busiest address (25 transactions with prevouts)`, txsPage, 'p99 ≤ 50 ms', ok.txs),
        row(`Esplora \`/tx/:txid\`, the transactions of the last ${TX_BLOCKS} blocks, each read once before`, tx, 'p99 ≤ 5 ms', ok.tx),
        '',
        `Requests a second, ${CLIENTS} clients for ${DURATION_MS / 1000} s a round, the doors in alternating rounds: Esplora \`/address/:a\` ${rates.esplora.map((r) => r.toFixed(0)).join(', ')}; native ${rates.native.map((r) => r.toFixed(0)).join(', ')}. Ratio ${ratio.toFixed(2)}× (goal ≥ ${GOALS.throughputRatio}×): ${verdict(ok.throughput)}.`,
      ].join('\n'),
    );
    process.stdout.write(
      `address p99 ${fmt(p(ours, 99))} ms (native ${fmt(p(theirs, 99))}), txs p99 ${fmt(p(txsPage, 99))} ms, tx p99 ${fmt(p(tx, 99))} ms, req/s ratio ${ratio.toFixed(2)}\n`,
    );
    return { goalMet: ok.address && ok.txs && ok.tx && ok.throughput };
  } finally {
    await lw.close();
  }
}
