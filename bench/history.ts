/**
 * Benchmark "history" (issue 33): what keeping history costs, side by side in one run.
 *
 *   npm run bench -- history
 *
 * (a) A synthetic chain with mainnet-like transaction shapes (bench/history-chain.ts;
 *     ADDRSUM_BENCH_HISTORY_TXS transactions, default 300,000) is indexed with history off and on,
 *     alternating over ADDRSUM_BENCH_HISTORY_ROUNDS rounds (default 3), in catch-up commits of 10
 *     blocks: the catch-up ratio (goal ≥ 0.5×), and the bytes history adds, per entry, per transaction
 *     (txids) and in total, from SQLite's dbstat, projected to Bitcoin mainnet (docs/history-size.md).
 * (b) Summary req/s of one address with history on and off: an API process on each index, servers on
 *     core 0 and the load on core 1 where taskset exists, load windows alternating (goal ≥ 0.9×).
 * (c) Pages of 25 of a script with ADDRSUM_BENCH_HISTORY_DEEP transactions (default 1,000,000): page 1
 *     and page 1,000 through the reader port, p99 over 2,000 reads each (goal ≤ 5 ms). The HTTP route
 *     arrives with the transactions routes; until then this is the engine's part of the cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { chainParams } from '../src/chain/params.js';
import { scriptToAddress } from '../src/chain/address.js';
import { chainDbPath } from '../src/store/paths.js';
import { scriptKey } from '../src/store/script-key.js';
import { openSqliteReader } from '../src/store/sqlite/engine.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import type { BlockToApply, HistoryPosition } from '../src/store/index-model.js';
import Database from '../src/store/sqlite/sqlite-driver.js';
import { decodeHead, encodeChunk } from '../src/store/history-chunk.js';
import { trackDir, untrackDir } from './emergency.js';
import { historyChain, hotScript, type HistoryChainFigures } from './history-chain.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';
import { createKey, load, pinning, startApi, stopChild, type Target } from './request.js';
import { SyntheticChain, p2wpkh } from './synthetic-chain.js';

/** mainnetGB: issue 33's history alone; withSpendsGB: issue 45's whole index, the txid and spend indexes included. */
const GOALS = { catchUp: 0.5, requests: 0.9, pageP99Ms: 5, mainnetGB: 133, withSpendsGB: 160 };
const BATCH = 10;
const LOAD_SECONDS = 5;
const API_ROUNDS = 5;
const PAGE = 25;
const PAGE_READS = 2000;

/**
 * Bitcoin mainnet at height 935,000 (Feb 2026), for the projection (sources in docs/history-size.md):
 * transactions ever, history entries ((script, transaction) pairs, estimated), distinct scripts ever
 * paid (estimated), and the UTXO set with the bytes per UTXO our 185M scale run measured.
 */
export const MAINNET = {
  txs: 1_305_397_408,
  entries: 6_300_000_000,
  scripts: 1_650_000_000,
  utxos: 164_241_311,
  bytesPerUtxo: 90.1,
  /** Non-coinbase inputs ever, each a row of the spend index (docs/history-size.md). */
  inputs: 3_260_000_000,
};

type Side = 'off' | 'on';
const order = (r: number): Side[] => (r % 2 === 0 ? ['off', 'on'] : ['on', 'off']);

function build(file: string, blocks: readonly BlockToApply[], history: boolean): number {
  for (const p of [file, `${file}-wal`, `${file}-shm`]) rmSync(p, { force: true });
  // Catch-up runs far below the tip, where no block keeps undo data: a small window, as there.
  const store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet', undoDepth: 6 });
  try {
    store.setHistory(history);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < blocks.length; i += BATCH) store.applyBlocks(blocks.slice(i, i + BATCH));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const tip = store.tip()!;
    store.setNodeHeight(tip.height, new Date());
    store.truncateWal();
    return seconds;
  } finally {
    store.close();
  }
}

/** Records that the node was heard from now, at the index's tip. */
function nodeSeenNow(file: string): void {
  const store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet', undoDepth: 6 });
  try {
    store.setNodeHeight(store.tip()!.height, new Date());
    store.truncateWal();
  } finally {
    store.close();
  }
}

/** The bytes the history rows spend on entries themselves (varints), apart from keys, totals and b-tree overhead. */
function entryBytes(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    let bytes = 0;
    for (const row of db.prepare('SELECT chunk, data FROM history').iterate() as Iterable<{ chunk: number; data: Buffer }>)
      bytes += row.chunk === 0 ? encodeChunk(decodeHead(row.data).entries).length : row.data.length;
    return bytes;
  } finally {
    db.close();
  }
}

/** Bytes of each table (b-tree pages, with their free space) of a database file. */
function tableBytes(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[];
    return new Map(rows.map((r) => [r.name, r.bytes]));
  } finally {
    db.close();
  }
}

async function requestRounds(dirs: Record<Side, string>, address: string): Promise<{ rps: Record<Side, number[]>; pinned: boolean }> {
  const { serverPrefix, pinned } = pinning();
  const targets = {} as Record<Side, Target>;
  const children = [];
  try {
    for (const side of ['off', 'on'] as const) {
      const api = await startApi(dirs[side], serverPrefix);
      children.push(api.child);
      targets[side] = {
        pid: api.child.pid,
        url: `${api.url}/api/v1/LTC/address/${address}`,
        headers: { 'x-api-key': createKey(dirs[side]) },
      };
      const body = await (await fetch(targets[side].url, { headers: targets[side].headers })).text();
      if ((side === 'on') !== body.includes('"txCount"') || !body.includes('"status":"success"'))
        throw new Error(`history bench: the ${side} API answered ${body}`);
    }
    const rps: Record<Side, number[]> = { off: [], on: [] };
    for (const side of ['off', 'on'] as const) await load(targets[side], 2);
    for (let r = 0; r < API_ROUNDS; r++)
      for (const side of order(r)) {
        const f = await load(targets[side], LOAD_SECONDS);
        if (f.non2xx + f.errors > 0) throw new Error(`history bench: ${side} answered ${f.non2xx} non-2xx, ${f.errors} errors`);
        rps[side].push(f.rps);
      }
    return { rps, pinned };
  } finally {
    for (const c of children) await stopChild(c);
  }
}

/** p99 of reading page 1 and page 1,000 (of PAGE) of a script with `deep` transactions. */
function pageReads(dir: string, deep: number): { first: number; thousandth: number; buildSeconds: number } {
  const file = path.join(dir, 'deep.sqlite');
  const chain = new SyntheticChain('history-deep');
  const target = p2wpkh('history deep target');
  const blocks: BlockToApply[] = [chain.block([chain.tx('genesis', [{ script: target, value: 1 }], true)])];
  const perBlock = 5000;
  for (let made = 0; made < deep; made += perBlock) {
    const txs = [chain.tx(`cb ${made}`, [{ script: p2wpkh(`miner ${made}`), value: 50e8 }], true)];
    for (let i = 0; i < perBlock && made + i < deep; i++)
      txs.push(chain.tx(`pay ${made + i}`, [{ script: target, value: 1000 + i }], false));
    blocks.push(chain.block(txs));
  }
  const buildSeconds = build(file, blocks, true);
  const reader = openSqliteReader(file).reader;
  try {
    const key = scriptKey(target);
    let after: HistoryPosition | null = null;
    for (let p = 1; p < 1000; p++) after = reader.historyPage({ key, after, limit: PAGE })!.page!.next;
    const time = (cursor: HistoryPosition | null): number => {
      const ms: number[] = [];
      for (let i = 0; i < PAGE_READS; i++) {
        const t0 = process.hrtime.bigint();
        const page = reader.historyPage({ key, after: cursor, limit: PAGE })!.page!;
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (page.items.length !== PAGE) throw new Error('history bench: a short page');
      }
      return percentile(
        ms.sort((a, b) => a - b),
        0.99,
      );
    };
    return { first: time(null), thousandth: time(after), buildSeconds };
  } finally {
    reader.close();
  }
}

export async function runHistoryBench(): Promise<{ goalMet: boolean }> {
  const txTarget = Number(process.env.ADDRSUM_BENCH_HISTORY_TXS ?? 300_000);
  const rounds = Number(process.env.ADDRSUM_BENCH_HISTORY_ROUNDS ?? 3);
  const deep = Number(process.env.ADDRSUM_BENCH_HISTORY_DEEP ?? 1_000_000);
  const load1 = loadavg()[0] ?? 0;
  const root = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-history-'));
  trackDir(root);
  try {
    const { blocks, figures } = historyChain(txTarget, 1000);
    console.log(`history: ${figures.txs} txs, ${figures.entries} entries, ${figures.scripts} scripts in ${blocks.length} blocks`);
    const dirs: Record<Side, string> = { off: path.join(root, 'off'), on: path.join(root, 'on') };
    const seconds: Record<Side, number[]> = { off: [], on: [] };
    for (let r = 0; r < rounds; r++)
      for (const side of order(r)) {
        seconds[side].push(build(chainDbPath(dirs[side], 'LTC'), blocks, side === 'on'));
        console.log(`  round ${r + 1} history ${side}: ${seconds[side].at(-1)!.toFixed(1)} s`);
      }
    const sizes = { off: tableBytes(chainDbPath(dirs.off, 'LTC')), on: tableBytes(chainDbPath(dirs.on, 'LTC')) };
    const historyBytes = sizes.on.get('history') ?? 0;
    const entriesOnly = entryBytes(chainDbPath(dirs.on, 'LTC'));
    const txidBytes = (sizes.on.get('history_txids') ?? 0) + (sizes.on.get('history_blocks') ?? 0);
    const added = total(sizes.on) - total(sizes.off);
    const address = scriptToAddress(chainParams('LTC', 'mainnet'), hotScript(1))!;
    // The API answers only while the node was heard from lately: a slow round must not age the other index out.
    for (const side of ['off', 'on'] as const) nodeSeenNow(chainDbPath(dirs[side], 'LTC'));
    const api = await requestRounds(dirs, address);
    const pages = pageReads(root, deep);
    return report({ figures, seconds, rounds, historyBytes, entriesOnly, txidBytes, added, sizes, api, pages, deep, load1 });
  } finally {
    rmSync(root, { recursive: true, force: true });
    untrackDir(root);
  }
}

interface Measured {
  figures: HistoryChainFigures;
  seconds: Record<Side, number[]>;
  rounds: number;
  historyBytes: number;
  /** Of historyBytes, what the entries' varints take; the rest is per script (key, totals, row and page overhead). */
  entriesOnly: number;
  txidBytes: number;
  added: number;
  sizes: Record<Side, Map<string, number>>;
  api: { rps: Record<Side, number[]>; pinned: boolean };
  pages: { first: number; thousandth: number; buildSeconds: number };
  deep: number;
  load1: number;
}

function report(m: Measured): { goalMet: boolean } {
  const f = m.figures;
  const catchUp = m.seconds.off.map((s, i) => s / m.seconds.on[i]!);
  const requests = m.api.rps.on.map((x, i) => x / m.api.rps.off[i]!);
  const perEntry = m.historyBytes / f.entries;
  // Split: entries cost their varints; everything else of the table is charged per script.
  const entryOnly = m.entriesOnly / f.entries;
  const perScript = (m.historyBytes - m.entriesOnly) / f.scripts;
  const perTx = m.txidBytes / f.txs;
  const projectedGB =
    (MAINNET.utxos * MAINNET.bytesPerUtxo + MAINNET.txs * perTx + MAINNET.entries * entryOnly + MAINNET.scripts * perScript) / 1e9;
  const perTxidRow = (m.sizes.on.get('history_txid_index') ?? 0) / f.txs;
  const perSpend = (m.sizes.on.get('history_spends') ?? 0) / f.inputs;
  const withSpendsGB = projectedGB + (MAINNET.txs * perTxidRow + MAINNET.inputs * perSpend) / 1e9;
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**');
  const met = {
    catchUp: median(catchUp) >= GOALS.catchUp,
    requests: median(requests) >= GOALS.requests,
    pages: Math.max(m.pages.first, m.pages.thousandth) <= GOALS.pageP99Ms,
    size: projectedGB <= GOALS.mainnetGB,
    withSpends: withSpendsGB <= GOALS.withSpendsGB,
  };
  const n = (x: number): string => x.toLocaleString('en-US');
  const table = [
    '| measure | history off | history on | ratio or figure | goal |',
    '| --- | ---: | ---: | ---: | --- |',
    `| catch-up, ${n(f.txs)} txs in commits of ${BATCH} blocks (median of ${m.rounds}) | ${median(m.seconds.off).toFixed(1)} s | ${median(m.seconds.on).toFixed(1)} s | ${median(catchUp).toFixed(2)}× (${Math.min(...catchUp).toFixed(2)}–${Math.max(...catchUp).toFixed(2)}) | ≥ ${GOALS.catchUp}× ${verdict(met.catchUp)} |`,
    `| summary req/s, one address (median of ${API_ROUNDS}) | ${median(m.api.rps.off).toFixed(0)} | ${median(m.api.rps.on).toFixed(0)} | ${median(requests).toFixed(2)}× | ≥ ${GOALS.requests}× ${verdict(met.requests)} |`,
    `| database size | ${(total(m.sizes.off) / 1e6).toFixed(1)} MB | ${(total(m.sizes.on) / 1e6).toFixed(1)} MB | +${(m.added / 1e6).toFixed(1)} MB | |`,
    `| history table per entry (${n(f.entries)} entries, ${n(f.scripts)} scripts) | | ${perEntry.toFixed(1)} B | ${(f.entries / f.scripts).toFixed(2)} entries per script | |`,
    `| of which the entry itself, and per script (key, totals, row and page overhead) | | ${entryOnly.toFixed(1)} B + ${perScript.toFixed(1)} B per script | | |`,
    `| txids and block numbers per transaction | | ${perTx.toFixed(1)} B | | |`,
    `| projected whole index at Bitcoin mainnet (${n(MAINNET.txs)} txs, ${n(MAINNET.entries)} entries, ${n(MAINNET.scripts)} scripts, ${n(MAINNET.utxos)} UTXOs × ${MAINNET.bytesPerUtxo} B) | | | ${projectedGB.toFixed(0)} GB | ≤ ${GOALS.mainnetGB} GB ${verdict(met.size)} |`,
    `| txid index (migrations/0011) per transaction | | ${perTxidRow.toFixed(1)} B | | |`,
    `| spend index (migrations/0013) per spent output (${n(f.inputs)} inputs) | | ${perSpend.toFixed(1)} B | | |`,
    `| projected whole index at Bitcoin mainnet with the txid and spend indexes (+ ${n(MAINNET.inputs)} inputs) | | | ${withSpendsGB.toFixed(0)} GB | ≤ ${GOALS.withSpendsGB} GB ${verdict(met.withSpends)} |`,
    `| page 1 of ${PAGE}, script with ${n(m.deep)} txs, p99 of ${n(PAGE_READS)} reader calls | | ${m.pages.first.toFixed(3)} ms | | ≤ ${GOALS.pageP99Ms} ms ${verdict(m.pages.first <= GOALS.pageP99Ms)} |`,
    `| page 1,000 of ${PAGE}, same script | | ${m.pages.thousandth.toFixed(3)} ms | | ≤ ${GOALS.pageP99Ms} ms ${verdict(m.pages.thousandth <= GOALS.pageP99Ms)} |`,
  ].join('\n');
  writeSection(
    'history',
    `## history — what keeping history costs (issue 33)

Command: \`npm run bench -- history\`. A synthetic chain with mainnet-like shapes (bench/history-chain.ts: ${n(f.inputs)}
inputs and ${n(f.outputs)} outputs over ${n(f.txs)} transactions, half the outputs to fresh scripts, the rest reusing a
hot set or earlier scripts, change back to an input's script now and then) indexed with history off and on,
alternating by round in one run; sizes from SQLite's dbstat (pages, free space included) of the last build;
an API process on each index for the summary rate${m.api.pinned ? ' (servers on core 0, load on core 1)' : ''}; the deep script's ${n(m.deep)}
transactions built in ${m.pages.buildSeconds.toFixed(0)} s. The projection multiplies the measured bytes per entry
and per transaction by mainnet's counts (docs/history-size.md) and adds the UTXO index. Run ${today()}, load
average ${m.load1.toFixed(1)} at start; ${machineLine()}.

${table}
`,
  );
  console.log(table);
  return { goalMet: Object.values(met).every(Boolean) };
}

const total = (sizes: Map<string, number>): number => [...sizes.values()].reduce((a, b) => a + b, 0);
