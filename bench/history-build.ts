/**
 * Benchmarks "history-build" and "history-pages" (issue 33): turning history on for an index that has
 * none, and history pages over HTTP.
 *
 *   npm run bench -- history-build
 *   npm run bench -- history-pages
 *
 * (a) A synthetic chain that leaves ADDRSUM_BENCH_BUILD_UTXOS unspent outputs (default 10,000,000): blocks
 *     of batch payouts (one input, 20 outputs, every tenth to a hot set of scripts) whose first output the
 *     next block spends. It is indexed without history in catch-up commits of 10 blocks, then history is
 *     turned on and built from genesis by the store's build step (history-build.ts) over the same blocks:
 *     both times side by side in one run, and the build's rate. The node's part (fetching the blocks) is
 *     not in it: at the tip the build reads them as block sync does.
 * (b) Pages of 25 of a script with ADDRSUM_BENCH_HISTORY_DEEP transactions (default 1,000,000) through
 *     the API: GET …/address/{a}/transactions for page 1 and page 1,000 (its cursor from walking the
 *     pages), one request at a time over a kept-alive connection after a warm-up, p99 of 2,000 each (goal ≤ 5 ms).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import type { BlockToApply } from '../src/store/index-model.js';
import { chainDbPath } from '../src/store/paths.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { timedRequest } from './bench-api.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, percentile, today, writeSection } from './report.js';
import { createKey, pinning, startApi, stopChild } from './request.js';
import { SyntheticChain, p2wpkh, sha } from './synthetic-chain.js';

const GOALS = { pageP99Ms: 5 };
const BATCH = 10;
const PAYOUTS_PER_BLOCK = 500;
const OUTPUTS = 20;
const HOT_SCRIPTS = 1000;
const PAGE = 25;
const PAGE_REQUESTS = 2000;
/** Requests before the timed ones, alternating the two pages: JIT and caches settle (the walk to page 1,000 comes first too). */
const WARMUP = 1000;

/** A P2WPKH script of its own for output `n`: a counter in the program (a hash per output would cost more than indexing it). */
function fresh(n: number): Buffer {
  const script = Buffer.alloc(22);
  script[1] = 0x14;
  script.writeUIntBE(n, 2, 6);
  script.writeUInt32BE(0xadd75000, 18);
  return script;
}

interface Shape {
  blocks: number;
  txs: number;
  outputs: number;
  inputs: number;
  utxos: number;
}

/**
 * The payout chain, made again on every call (the same blocks each time, from labels): every payout
 * spends output 0 of a payout of the block before, so each leaves OUTPUTS − 1 coins unspent.
 */
function* payoutChain(utxos: number): Generator<BlockToApply> {
  const chain = new SyntheticChain('history-build');
  const hot = Array.from({ length: HOT_SCRIPTS }, (_, i) => p2wpkh(`hot ${i}`));
  const miner = p2wpkh('history-build miner');
  yield chain.block([chain.tx('genesis', [{ script: miner, value: 50e8 }], true)]);
  let previous: Buffer[] = [];
  for (let height = 1, left = utxos; left > 0; height++) {
    const txs: ParsedTx[] = [chain.tx(`cb ${height}`, [{ script: miner, value: 50e8 }], true)];
    const made: Buffer[] = [];
    for (let i = 0; i < PAYOUTS_PER_BLOCK && left > 0; i++) {
      const n = height * PAYOUTS_PER_BLOCK + i;
      const outputs = Array.from({ length: OUTPUTS }, (_, o) => ({
        script: o % 10 === 9 ? hot[(n * OUTPUTS + o) % HOT_SCRIPTS]! : fresh(n * OUTPUTS + o),
        value: 10_000n + BigInt(o),
      }));
      const spends = previous[i];
      const txid = sha(`history-build payout ${n}`);
      txs.push({ txid, inputs: spends ? [{ prevTxid: spends, vout: 0 }] : [], outputs, coinbase: false, hogEx: false, mweb: false });
      made.push(txid);
      left -= spends ? OUTPUTS - 1 : OUTPUTS;
    }
    previous = made;
    yield chain.block(txs);
  }
}

/** The chain's counts, and the seconds making its blocks takes (taken out of the timings below). */
function shapeOf(utxos: number): Shape & { making: number } {
  const t0 = process.hrtime.bigint();
  const s = { blocks: 0, txs: 0, outputs: 0, inputs: 0, utxos: 0, making: 0 };
  for (const b of payoutChain(utxos)) {
    s.blocks++;
    if (b.height === 0) continue;
    for (const tx of b.txs) {
      s.txs++;
      s.outputs += tx.outputs.length;
      s.inputs += tx.inputs.length && !tx.coinbase ? tx.inputs.length : 0;
    }
  }
  s.utxos = s.outputs - s.inputs;
  s.making = Number(process.hrtime.bigint() - t0) / 1e9;
  return s;
}

/** Runs `step` over the chain in batches of BATCH blocks; seconds taken, less `making` (the blocks' own). */
function timed(utxos: number, making: number, step: (batch: BlockToApply[]) => void): number {
  const t0 = process.hrtime.bigint();
  let batch: BlockToApply[] = [];
  for (const block of payoutChain(utxos)) {
    batch.push(block);
    if (batch.length === BATCH) {
      step(batch);
      batch = [];
    }
  }
  if (batch.length > 0) step(batch);
  return Number(process.hrtime.bigint() - t0) / 1e9 - making;
}

function buildFigures(dir: string, utxos: number, making: number): { plain: number; build: number; historyBytes: number } {
  const file = path.join(dir, 'build.sqlite');
  // Undo only for the last blocks, as at catch-up: the build checks its blocks against the index's own.
  const store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet', undoDepth: 6 });
  try {
    const plain = timed(utxos, making, (batch) => store.applyBlocks(batch));
    store.setHistory(true);
    const build = timed(utxos, making, (batch) => void store.buildHistory(batch));
    if (store.historyBuild() !== null) throw new Error('history-build bench: the build did not reach the tip');
    const row = store.db.prepare("SELECT SUM(pgsize) AS b FROM dbstat WHERE name LIKE 'history%'").get() as { b: number };
    return { plain, build, historyBytes: row.b };
  } finally {
    store.close();
  }
}

interface Latency {
  p50: number;
  p99: number;
}

/** p50 and p99 (ms) of GET page 1 and page 1,000 of PAGE through an API over an index whose target has `deep` transactions. */
async function httpPages(dir: string, deep: number): Promise<{ first: Latency; thousandth: Latency }> {
  const chain = new SyntheticChain('history-build-deep');
  const target = p2wpkh('history-build deep target');
  const store = ChainStore.open(chainDbPath(dir, 'LTC'), { chain: 'LTC', network: 'mainnet', undoDepth: 6 });
  try {
    store.setHistory(true);
    store.applyBlocks([chain.block([chain.tx('genesis', [{ script: target, value: 1 }], true)])]);
    for (let made = 0; made < deep; made += 5000) {
      const txs = [chain.tx(`cb ${made}`, [{ script: p2wpkh(`miner ${made}`), value: 50e8 }], true)];
      for (let i = 0; i < 5000 && made + i < deep; i++) txs.push(chain.tx(`pay ${made + i}`, [{ script: target, value: 1000 + i }], false));
      store.applyBlocks([chain.block(txs)]);
    }
    store.setNodeHeight(store.tip()!.height, new Date());
    store.truncateWal();
  } finally {
    store.close();
  }
  const api = await startApi(dir, pinning().serverPrefix);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = new URL(api.url);
    const base = `/api/v1/LTC/address/${scriptToAddress(chainParams('LTC', 'mainnet'), target)}/transactions?limit=${PAGE}`;
    const headers = { 'x-api-key': createKey(dir) };
    const get = async (url: string): Promise<{ next: string | null; ms: number }> => {
      const res = await timedRequest(agent, '127.0.0.1', port, url, headers);
      const body = JSON.parse(res.text) as { data: { transactions: unknown[]; next: string | null } };
      if (res.status !== 200 || body.data.transactions.length !== PAGE) throw new Error(`history-build bench: ${res.status} ${res.text}`);
      return { next: body.data.next, ms: res.ms };
    };
    let cursor: string | null = null;
    for (let p = 1; p < 1000; p++) cursor = (await get(cursor === null ? base : `${base}&cursor=${cursor}`)).next;
    const deepPage = `${base}&cursor=${cursor}`;
    for (let i = 0; i < WARMUP; i++) await get(i % 2 === 0 ? base : deepPage);
    const timed = async (url: string): Promise<Latency> => {
      const ms: number[] = [];
      for (let i = 0; i < PAGE_REQUESTS; i++) ms.push((await get(url)).ms);
      ms.sort((a, b) => a - b);
      return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
    };
    return { first: await timed(base), thousandth: await timed(deepPage) };
  } finally {
    agent.destroy();
    await stopChild(api.child);
  }
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Section history-build: the build of a chain with ADDRSUM_BENCH_BUILD_UTXOS unspent outputs. */
export function runHistoryBuildBench(): { goalMet: boolean } {
  const utxos = Number(process.env.ADDRSUM_BENCH_BUILD_UTXOS ?? 10_000_000);
  const load1 = loadavg()[0]!;
  const root = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-history-build-'));
  trackDir(root);
  try {
    const shape = shapeOf(utxos);
    const built = buildFigures(root, utxos, shape.making);
    const rate = (count: number, seconds: number) => `${n(count / seconds)}/s`;
    writeSection(
      'history-build',
      `## history-build — turning history on for an index that has none (issue 33)

Command: \`npm run bench -- history-build\`. A synthetic chain of batch payouts (bench/history-build.ts: one input,
${OUTPUTS} outputs, every tenth to one of ${n(HOT_SCRIPTS)} hot scripts, the rest to scripts of their own) indexed without
history in commits of ${BATCH} blocks, then history turned on and built from genesis by the store's build step over the
same blocks, side by side in one run. Not in the figures: the node's part (fetching the blocks), and making the blocks
(${shape.making.toFixed(1)} s, timed apart and taken out). Run ${today()}, load average ${load1.toFixed(1)} at start; ${machineLine()}.

| measure | figure |
| --- | ---: |
| chain: blocks, transactions, outputs, inputs | ${n(shape.blocks)}, ${n(shape.txs)}, ${n(shape.outputs)}, ${n(shape.inputs)} |
| UTXOs at the tip | ${n(shape.utxos)} |
| index without history, from genesis | ${built.plain.toFixed(1)} s |
| history build over the same blocks | ${built.build.toFixed(1)} s (${(built.plain / built.build).toFixed(2)}× the plain index's speed) |
| build rate | ${rate(shape.blocks, built.build)} blocks, ${rate(shape.txs, built.build)} transactions, ${rate(shape.outputs + shape.inputs, built.build)} outputs and inputs |
| history tables after the build | ${(built.historyBytes / 1e6).toFixed(1)} MB |`,
    );
    return { goalMet: true };
  } finally {
    rmSync(root, { recursive: true, force: true });
    untrackDir(root);
  }
}

/** Section history-pages: GET page 1 and page 1,000 of an address with ADDRSUM_BENCH_HISTORY_DEEP transactions. */
export async function runHistoryPagesBench(): Promise<{ goalMet: boolean }> {
  const deep = Number(process.env.ADDRSUM_BENCH_HISTORY_DEEP ?? 1_000_000);
  const load1 = loadavg()[0]!;
  const root = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-history-pages-'));
  trackDir(root);
  try {
    const pages = await httpPages(root, deep);
    const met = pages.first.p99 <= GOALS.pageP99Ms && pages.thousandth.p99 <= GOALS.pageP99Ms;
    const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
    writeSection(
      'history-pages',
      `## history-pages — history pages over HTTP at any depth (issue 33)

Command: \`npm run bench -- history-pages\`. An API process over an index whose target address has ${n(deep)} transactions;
GET …/address/{a}/transactions?limit=${PAGE}, one request at a time over a kept-alive node:http connection (the time
from sending to the end of the body, client included), ${n(PAGE_REQUESTS)} each for page 1 and for page 1,000 (its cursor
from walking the pages), after ${n(WARMUP)} warm-up requests alternating the two. The API process and this one are pinned
to a core each. Run ${today()}, load average ${load1.toFixed(1)} at start; ${machineLine()}.

| measure | p50 | p99 | goal |
| --- | ---: | ---: | --- |
| GET page 1 of ${PAGE} | ${pages.first.p50.toFixed(2)} ms | ${pages.first.p99.toFixed(2)} ms | p99 ≤ ${GOALS.pageP99Ms} ms ${verdict(pages.first.p99 <= GOALS.pageP99Ms)} |
| GET page 1,000 of ${PAGE}, same address | ${pages.thousandth.p50.toFixed(2)} ms | ${pages.thousandth.p99.toFixed(2)} ms | p99 ≤ ${GOALS.pageP99Ms} ms ${verdict(pages.thousandth.p99 <= GOALS.pageP99Ms)} |`,
    );
    return { goalMet: met };
  } finally {
    rmSync(root, { recursive: true, force: true });
    untrackDir(root);
  }
}
