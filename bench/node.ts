/**
 * Benchmark "node": our indexer and API against litecoind itself, on a real regtest chain of 2,200
 * blocks and ~58,000 transactions (bench-chain.ts; generated once, cached under data/bench/).
 *
 *   npx tsx bench/node.ts          (or: npm run bench -- node)
 *
 * (a) Indexing from scratch: the real indexer process on an empty data dir against the running node,
 *     from spawn until its database reports the node's height, vs `litecoind -reindex-chainstate` on the
 *     same chain with the same flags, from spawn until getblockcount reaches that height (it rebuilds
 *     the UTXO set from the block files with full script checks: regtest has no assumevalid). Rounds
 *     alternate which goes first. Goal: ours ≤ 1.0× the node's time.
 * (b) One address lookup: GET /api/v1/LTC/address/… through the real API process (HTTP keep-alive,
 *     warm, median of many) vs `scantxoutset start ["addr(…)"]` (median of several), same address, and
 *     the two answers must agree. Goal: ours ≥ 100× faster.
 * The index built by the last round is kept for bench/disk.ts and bench/tip.ts (bench-index.ts).
 */
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { addressToScript } from '../src/chain/address.js';
import { parseCoins } from '../src/chain/amount.js';
import { chainParams } from '../src/chain/params.js';
import { ChainReader } from '../src/store/sqlite/chain-reader.js';
import { chainDbPath } from '../src/store/paths.js';
import { checkIndex } from '../harness/index-check.js';
import type { Litecoind } from '../harness/litecoind.js';
import { utxoSetTotals } from '../harness/regtest-scan.js';
import { startBenchApi, type AddressAnswer } from './bench-api.js';
import { startBenchNode, type BenchChain, type BenchNode } from './bench-chain.js';
import { indexFromScratch, removeIndexDir, saveBenchIndex, type IndexRun } from './bench-index.js';
import { profileFetchOnly, profileSyncLoop, type IndexingProfile } from './node-diagnostic.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';

const INDEX_GOAL = 1.0;
const LOOKUP_GOAL = 100;
const DEFAULT_ROUNDS = 3;
const HTTP_WARMUP = 50;
const HTTP_SAMPLES = 500;
const SCAN_SAMPLES = 5;
const POLL_MS = 20;

export interface NodeBenchResult {
  chain: BenchChain;
  indexSeconds: number[];
  reindexSeconds: number[];
  /** median(ours) / median(node): ≤ 1 is the goal. */
  indexRatio: number;
  /** In-process diagnostic: the real sync loop, its commits counted and timed. */
  syncLoop: IndexingProfile;
  /** Fetch and parse every block, no SQLite (diagnostic). */
  fetchOnlySeconds: number;
  httpMs: { median: number; p90: number };
  readerUs: number;
  scanMs: number[];
  lookupSpeedup: number;
  lookupAddress: string;
  answer: { sats: number; utxos: number; matches: boolean };
  indexEqualsNode: boolean;
  goalMet: boolean;
}

export interface NodeBenchOptions {
  write?: boolean;
  rounds?: number;
  log?: (line: string) => void;
}

/** Restarts the node with -reindex-chainstate; seconds from spawn until it is back at `chain.height`. */
async function timeReindex(bench: BenchNode, chain: BenchChain): Promise<number> {
  await bench.node.stop();
  const started = performance.now();
  const node = await bench.launch(['-reindex-chainstate']);
  while ((await node.cli<number>('getblockcount')) < chain.height) await sleep(POLL_MS);
  const seconds = (performance.now() - started) / 1000;
  const best = await node.cli<string>('getbestblockhash');
  if (best !== chain.bestHash) throw new Error(`reindexed node is at ${best}, expected ${chain.bestHash}`);
  return seconds;
}

/** Our index must equal the node's UTXO set before its speed means anything. */
async function indexEqualsNode(node: Litecoind, dataDir: string, chain: BenchChain): Promise<boolean> {
  const report = checkIndex(chainDbPath(dataDir, 'LTC'), []);
  const totals = await utxoSetTotals(node);
  return (
    report.tipHash === chain.bestHash &&
    totals.bestBlock === chain.bestHash &&
    report.totals.utxos === totals.txouts &&
    report.totals.sats === totals.totalSats &&
    report.aggregateDifferences === 0 &&
    report.chainProblems.length === 0
  );
}

async function measureLookups(node: Litecoind, dataDir: string, address: string, log: (l: string) => void) {
  const api = await startBenchApi(dataDir, node.rpcUrl);
  try {
    for (let i = 0; i < HTTP_WARMUP; i++) await api.address(address);
    const http: number[] = [];
    let last: AddressAnswer | undefined;
    for (let i = 0; i < HTTP_SAMPLES; i++) {
      const r = await api.address(address);
      http.push(r.ms);
      last = r.data;
    }
    http.sort((a, b) => a - b);

    // The lookup alone, in-process, as the API does it (one primary-key read), for scale.
    const reader = ChainReader.open(chainDbPath(dataDir, 'LTC'));
    const decoded = addressToScript(chainParams('LTC', 'regtest'), address);
    if (!decoded.ok) throw decoded.error;
    const n = 20_000;
    for (let i = 0; i < 2_000; i++) reader.summary(decoded.script);
    const t = performance.now();
    for (let i = 0; i < n; i++) reader.summary(decoded.script);
    const readerUs = ((performance.now() - t) * 1000) / n;
    reader.close();

    log(`  scantxoutset × ${SCAN_SAMPLES + 1} (first one is a warm-up)`);
    type Scan = { success: boolean; bestblock: string; total_amount: string; unspents: unknown[] };
    const scan = (): Promise<Scan> => node.cliExact<Scan>('scantxoutset', 'start', [`addr(${address})`]);
    let scanned = await scan();
    const scanMs: number[] = [];
    for (let i = 0; i < SCAN_SAMPLES; i++) {
      const s = performance.now();
      scanned = await scan();
      scanMs.push(performance.now() - s);
    }
    const sats = Number(parseCoins(scanned.total_amount));
    const matches =
      scanned.success &&
      last !== undefined &&
      last.balanceSatoshi === sats &&
      last.utxoCount === scanned.unspents.length &&
      last.blockHash === scanned.bestblock;
    return {
      httpMs: { median: median(http), p90: percentile(http, 0.9) },
      readerUs,
      scanMs,
      answer: { sats, utxos: scanned.unspents.length, matches },
    };
  } finally {
    await api.stop();
  }
}

export async function runNodeBench(opts: NodeBenchOptions = {}): Promise<NodeBenchResult> {
  const log = opts.log ?? console.log;
  const rounds = opts.rounds ?? DEFAULT_ROUNDS;
  const bench = await startBenchNode(log);
  const chain = bench.chain;
  const indexSeconds: number[] = [];
  const reindexSeconds: number[] = [];
  let lastRun: IndexRun | undefined;
  try {
    log(`node: chain of ${chain.height} blocks, ${chain.txCount} transactions, ${chain.utxoCount} UTXOs; ${rounds} rounds`);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['node', 'ours'] as const) : (['ours', 'node'] as const);
      for (const side of order) {
        if (side === 'node') {
          reindexSeconds.push(await timeReindex(bench, chain));
          log(`  round ${r + 1}: litecoind -reindex-chainstate ${reindexSeconds.at(-1)!.toFixed(2)} s`);
        } else {
          if (lastRun) await removeIndexDir(lastRun.dataDir);
          lastRun = await indexFromScratch(bench.node, chain.height);
          indexSeconds.push(lastRun.seconds);
          log(`  round ${r + 1}: our indexer ${lastRun.seconds.toFixed(2)} s`);
        }
      }
    }
    const run = lastRun!;
    const equal = await indexEqualsNode(bench.node, run.dataDir, chain);
    if (!equal) throw new Error("node bench: our index does not equal the node's UTXO set; figures would mean nothing");
    await saveBenchIndex(run.dataDir, { indexSeconds: run.seconds, by: 'bench/node.ts' });

    const syncLoop = await profileSyncLoop(bench.node, chain.height);
    const fetchOnlySeconds = await profileFetchOnly(bench.node, chain.height);
    log(
      `  diagnostic, in-process, sync loop: ${syncLoop.seconds.toFixed(2)} s, ${syncLoop.commits} commits, ${syncLoop.applySeconds.toFixed(2)} s in applyBlocks`,
    );
    log(`  diagnostic, in-process, fetch + parse only: ${fetchOnlySeconds.toFixed(2)} s`);

    const lookupAddress = chain.hotAddresses[0]!;
    const lookups = await measureLookups(bench.node, run.dataDir, lookupAddress, log);
    const indexRatio = median(indexSeconds) / median(reindexSeconds);
    const lookupSpeedup = median(lookups.scanMs) / lookups.httpMs.median;
    const result: NodeBenchResult = {
      chain,
      indexSeconds,
      reindexSeconds,
      indexRatio,
      syncLoop,
      fetchOnlySeconds,
      ...lookups,
      lookupSpeedup,
      lookupAddress,
      indexEqualsNode: equal,
      goalMet: indexRatio <= INDEX_GOAL && lookupSpeedup >= LOOKUP_GOAL && lookups.answer.matches,
    };
    log(
      `  (a) index ${median(indexSeconds).toFixed(2)} s vs reindex ${median(reindexSeconds).toFixed(2)} s: ${indexRatio.toFixed(2)}× (goal ≤ ${INDEX_GOAL}×)`,
    );
    log(
      `  (b) lookup ${lookups.httpMs.median.toFixed(2)} ms vs scantxoutset ${median(lookups.scanMs).toFixed(1)} ms: ${lookupSpeedup.toFixed(0)}× faster (goal ≥ ${LOOKUP_GOAL}×), answers ${lookups.answer.matches ? 'equal' : 'DIFFER'}`,
    );
    log(`  goal: ${result.goalMet ? 'MET' : 'NOT MET'}`);
    if (opts.write !== false) writeSection('node', report(result));
    return result;
  } finally {
    if (lastRun) await removeIndexDir(lastRun.dataDir);
    await bench.cleanup();
  }
}

const s2 = (x: number): string => x.toFixed(2);
const int = (x: number): string => x.toLocaleString('en-US');

function report(r: NodeBenchResult): string {
  const c = r.chain;
  const ix = median(r.indexSeconds);
  const re = median(r.reindexSeconds);
  const scan = median(r.scanMs);
  const nsPerUtxo = (scan * 1e6) / c.utxoCount;
  const rounds = r.indexSeconds.map((s, i) => `${s2(s)} / ${s2(r.reindexSeconds[i]!)}`).join(', ');
  return `## node — indexing a real chain and looking up an address, ours vs litecoind

Chain: Litecoin regtest mined by litecoind 0.21.2.1: ${int(c.height)} blocks, ${int(c.txCount)} transactions, ${int(c.utxoCount)} UTXOs at
the tip, ${(c.blockBytes / 1e6).toFixed(1)} MB on disk. P2WPKH, P2PKH, P2SH-P2WPKH and P2TR spends of random old coins; payments
(one transaction in five a batch payout of 20–60 outputs) to fresh scripts of five kinds and to 40 reused
"hot" addresses; MWEB kept inactive with \`-vbparams\`. Generated once (${c.generatedSeconds.toFixed(0)} s) by \`bench/bench-chain.ts\`,
cached in \`data/bench/chain-${c.version}/\`; each run works on a temporary copy.

| measurement | ours | reference | ratio | goal | met |
|---|---|---|---|---|---|
| (a) index the whole chain from scratch | **${s2(ix)} s** — indexer process (\`indexer/addrsum-indexer.ts\`, default config) on an empty data dir, spawn → database at height ${int(c.height)} | **${s2(re)} s** — \`litecoind -reindex-chainstate\`, same flags, spawn → \`getblockcount\` = ${int(c.height)} | ${s2(r.indexRatio)}× the node's time | ≤ ${INDEX_GOAL.toFixed(1)}× | ${r.indexRatio <= INDEX_GOAL ? 'yes' : '**no**'} |
| (b) one address lookup | **${s2(r.httpMs.median)} ms** — \`GET /api/v1/LTC/address/…\` via the API process, HTTP keep-alive, warm (median of ${HTTP_SAMPLES}; p90 ${s2(r.httpMs.p90)} ms) | **${scan.toFixed(1)} ms** — \`scantxoutset start ["addr(…)"]\` (median of ${SCAN_SAMPLES}) | ${r.lookupSpeedup.toFixed(0)}× faster | ≥ ${LOOKUP_GOAL}× | ${r.lookupSpeedup >= LOOKUP_GOAL ? 'yes' : '**no**'} |

**Goal met: ${r.goalMet ? 'yes' : 'no'}.**

- (a) medians of ${r.indexSeconds.length} alternating rounds (ours / node per round: ${rounds} s). Both times include
  process start. Before timing meant anything, the index was checked against the node: tip, UTXO count
  and total amount equal \`gettxoutsetinfo\`, every aggregate equals its UTXOs — ${r.indexEqualsNode ? 'equal' : '**different**'}.
- (a) where the time goes, measured in-process on the same node (no process start):

  | variant | seconds | commits | in \`applyBlocks\` |
  |---|---|---|---|
  | the real sync loop (\`Syncer\`, prefetch 16) | ${s2(r.syncLoop.seconds)} | ${int(r.syncLoop.commits)} | ${s2(r.syncLoop.applySeconds)} s |
  | fetcher alone (\`getblockhash\` RPC + REST block + parse), nothing written | ${s2(r.fetchOnlySeconds)} | – | – |
- (b) address \`${r.lookupAddress}\` (${int(r.answer.utxos)} UTXOs, ${int(r.answer.sats)} sat). The API's answer
  (balance, UTXO count, block hash) ${r.answer.matches ? 'equals' : '**differs from**'} scantxoutset's. The lookup itself (\`ChainReader.summary\`,
  in-process) takes ${r.readerUs.toFixed(1)} µs; the rest of the ${s2(r.httpMs.median)} ms is HTTP, auth, limits and JSON.
- How the gap grows: scantxoutset walks the node's whole UTXO set whatever the address — here
  ${nsPerUtxo.toFixed(0)} ns per UTXO, so ~${((nsPerUtxo * 1e8) / 1e9).toFixed(0)} s for a set of 100 million (mainnet Bitcoin's is larger than that),
  linear in the set. Ours is one primary-key read in \`scripts\` (a b-tree: one more level per ~100× more
  scripts), so the ratio grows about linearly with the UTXO set: ${r.lookupSpeedup.toFixed(0)}× at ${int(c.utxoCount)} UTXOs would be
  ~${int(Math.round((r.lookupSpeedup * 1e8) / c.utxoCount / 1000) * 1000)}× at 100 million (extrapolated, not measured).
${r.indexRatio > INDEX_GOAL ? whereTheTimeGoes(r) : ''}${r.lookupSpeedup < LOOKUP_GOAL ? lookupShortfall(r) : ''}- Command: \`npx tsx bench/node.ts\` (or \`npm run bench -- node\`). Measured ${today()} on ${machineLine()}.`;
}

/** Said when (a) misses its goal; the figures are this run's, the reasoning is from a CPU profile. */
function whereTheTimeGoes(r: NodeBenchResult): string {
  const re = median(r.reindexSeconds);
  const blocksPerCommit = (r.chain.height + 1) / r.syncLoop.commits;
  const overlapped = Math.max(r.fetchOnlySeconds, r.syncLoop.applySeconds);
  return `- Why (a) misses its goal, from the table above and CPU profiles of the indexer (2026-11-23):
  1. **Commits.** Catch-up commits a batch at 20,000 transactions, or once it is \`commitIntervalMs\` (1 s) old
     and the next block has not arrived (indexer/sync.ts); this run's real loop made ${int(r.syncLoop.commits)} commits, one per
     ${blocksPerCommit.toFixed(1)} blocks, ${s2(r.syncLoop.applySeconds)} s in all: commit count is not what separates us from the node.
  2. **Fetching and writing take turns on one thread.** \`applyBlocks\` is synchronous, so while it runs no
     block response is read and the 16-deep prefetch drains (a third of the profile was idle, waiting for
     blocks). Fetch + parse alone take ${s2(r.fetchOnlySeconds)} s and the SQLite work ${s2(r.syncLoop.applySeconds)} s; done side by side
     (the writer in a worker thread, or the fetcher with a deeper queue filled while the writer works) the
     whole would approach ${s2(overlapped)} s plus ~0.5 s of process start, ${s2((overlapped + 0.5) / re)}× the node.
  3. Smaller: script keys are hashed with one \`node:crypto\` call per output (~0.4 s here), and deeper
     prefetch helps fetching (64 in flight: ~40 % faster), but only with the node's \`rpcworkqueue\` raised to
     match: Core queues at most 16 HTTP requests by default and answers the rest 503.
`;
}

/** Said when (b) misses its goal. */
function lookupShortfall(r: NodeBenchResult): string {
  return `- Why (b) misses its goal: of the ${s2(r.httpMs.median)} ms per answer, the index read is ${r.readerUs.toFixed(1)} µs; the rest is one HTTP
  round trip through Express, auth and the rate limiter (bench/request.ts measures that path). The reference
  is linear in the UTXO set, so on this small chain it is still fast; on a mainnet-sized set the same
  figures give the extrapolation above. Closing it here would mean a leaner HTTP path, not a faster index.
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runNodeBench();
  process.exit(0);
}
