/**
 * Benchmark "scale": how the index's cost grows with the UTXO set, from a synthetic Bitcoin Core
 * snapshot of N coins (bench/scale-snapshot.ts) loaded by the real bootstrap path.
 *
 *   npm run bench -- scale                       (N = 500,000: a routine run)
 *   ADDRSUM_BENCH_SCALE_COINS=185000000 npm run bench -- scale
 *   ADDRSUM_BENCH_SCALE_ORDER=random npm run bench -- scale      (txids out of order: the sorting path)
 *
 * Figures per N: (a) bootstrap time and coins/s (file → queryable index, WAL checkpoint included),
 * (b) bytes per UTXO (database + WAL), (c) blocks/s applying 50 synthetic 3,000-tx blocks on top, one
 * commit per block as when following the tip, (d) lookup p50/p99 over 20,000 random scripts. For N
 * above 1M the run also builds a 1M index side by side and reports block apply as a ratio to it.
 * Results of every N are kept in bench/scale-results.json and the section shows them all.
 * Files go to ADDRSUM_BENCH_SCALE_DIR (default data/bench/scale) and are deleted afterwards.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { syntheticHeader } from '../src/chain/block-header.js';
import { ChainReader } from '../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../src/store/sqlite/engine.js';
import { SnapshotFile } from '../indexer/snapshot-reader.js';
import { loadSnapshot } from '../indexer/bootstrap.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, percentile, today, writeSection } from './report.js';
import { mix, scriptOf, txidOf, writeSyntheticSnapshot, type TxidOrder } from './scale-snapshot.js';
import type { BlockToApply } from '../src/store/index-model.js';

const RESULTS = fileURLToPath(new URL('./scale-results.json', import.meta.url));
export const BASE_HEIGHT = 880_000;
const BLOCKS = 50;
const TXS_PER_BLOCK = 3000;
const LOOKUPS = 20_000;
const GOALS = { coinsPerSec: 400_000, bytesPerUtxo: 100, applyRatio: 0.5, lookupP99Ms: 2 };

export interface ScaleResult {
  coins: number;
  /** Txid order of the file (absent in results from before the append path: those were random). */
  order?: TxidOrder;
  date: string;
  machine: string;
  genSeconds: number;
  fileBytes: number;
  bootstrapSeconds: number;
  /** CPU seconds (user + system) of this process during the bootstrap: the machine is shared, wall time is not ours alone. */
  bootstrapCpuSeconds: number;
  coinsPerSec: number;
  utxos: number;
  scripts: number;
  dbBytes: number;
  bytesPerUtxo: number;
  blocksPerSec: number;
  /** blocksPerSec ÷ the same measure on a 1M index built in the same run (1 for N ≤ 1M). */
  applyRatio: number;
  lookupP50Ms: number;
  lookupP99Ms: number;
  /** Peak resident memory of the benchmark process so far, MiB (the bootstrap dominates it). */
  maxRssMiB?: number;
  /** MiB the process read from the storage device per applied block (page-cache hits not counted; Linux only). */
  diskReadMiBPerBlock?: number;
  phases: Record<string, number>;
}

/** Bytes this process has had read from the storage device (Linux /proc; null elsewhere): not page-cache hits. */
export function diskReadBytes(): number | null {
  try {
    const m = /^read_bytes: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/**
 * `count` (default 50) blocks of 3,000 txs on top of the snapshot: each tx spends vout 0 of a random distinct group and pays
 * 2 outputs. New txids are random whatever the snapshot's order, as on a real chain (ascending ones would
 * all be appended at the end of `utxos`, which flatters block apply).
 */
export function blocksOnTop(groups: number, baseHash: Buffer, order: TxidOrder, count = BLOCKS): BlockToApply[] {
  const used = new Set<number>();
  const blocks: BlockToApply[] = [];
  let prev = baseHash;
  let seq = 0;
  for (let b = 0; b < count; b++) {
    const height = BASE_HEIGHT + 1 + b;
    const txs: ParsedTx[] = [];
    const out = (): ParsedTx['outputs'] => [
      { value: BigInt(10_000 + (seq % 1000)), script: scriptOf(mix(seq++, 3) % 1_000_000) },
      { value: 20_000n, script: scriptOf(0x40000000 + seq++) },
    ];
    txs.push({
      txid: txidOf(0x50000000 + height, 'random'),
      inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
      outputs: out(),
      coinbase: true,
      hogEx: false,
      mweb: false,
    });
    for (let t = 1; t < TXS_PER_BLOCK; t++) {
      let g: number;
      do g = mix(seq++, 77) % groups;
      while (used.has(g));
      used.add(g);
      txs.push({
        txid: txidOf(0x60000000 + height * 4096 + t, 'random'),
        inputs: [{ prevTxid: txidOf(g, order), vout: 0 }],
        outputs: out(),
        coinbase: false,
        hogEx: false,
        mweb: false,
      });
    }
    const { header, hash } = syntheticHeader(
      prev,
      txs.map((tx) => tx.txid),
      0,
      height,
    );
    blocks.push({ height, hash, prevHash: prev, header, txs });
    prev = hash;
  }
  return blocks;
}

type RunOutcome = Omit<ScaleResult, 'applyRatio' | 'date' | 'machine'>;

async function runOnce(coins: number, order: TxidOrder, dir: string, say: (line: string) => void): Promise<RunOutcome> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `utxo-${coins}.dat`);
  const dbPath = join(dir, `btc-${coins}.sqlite`);
  for (const p of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) rmSync(p, { force: true });
  let t = performance.now();
  const snap = writeSyntheticSnapshot(file, coins, BASE_HEIGHT, undefined, order);
  const genSeconds = (performance.now() - t) / 1000;
  say(
    `N=${coins} (${order} txids): wrote ${snap.bytes} bytes (${snap.groups} txids, ${snap.scripts} scripts) in ${genSeconds.toFixed(1)} s`,
  );
  const phases: Record<string, number> = {};
  const store = ChainStore.open(dbPath, { chain: 'BTC', network: 'regtest' });
  try {
    const log = {
      info: (obj: object, msg: string): void => {
        const o = obj as { phase?: string; seconds?: number };
        if (o.phase !== undefined && o.seconds !== undefined) phases[o.phase] = o.seconds;
        say(`  ${msg}`);
      },
    };
    t = performance.now();
    const cpu = process.cpuUsage();
    await loadSnapshot(
      { file: SnapshotFile.open(file, 'BTC', 'regtest'), height: BASE_HEIGHT, hash: snap.baseHash, prevHash: Buffer.alloc(32) },
      new SqliteIndexWriter(store, 'BTC', 'regtest'),
      log,
    );
    const bootstrapSeconds = (performance.now() - t) / 1000;
    const used = process.cpuUsage(cpu);
    const bootstrapCpuSeconds = (used.user + used.system) / 1e6;
    say(
      `  bootstrap: ${bootstrapSeconds.toFixed(1)} s wall, ${bootstrapCpuSeconds.toFixed(1)} s CPU, load average ${loadavg()[0]!.toFixed(1)}`,
    );
    rmSync(file, { force: true });
    const totals = store.totals();
    const dbBytes = fileSize(dbPath) + fileSize(`${dbPath}-wal`);
    const blocks = blocksOnTop(snap.groups, snap.baseHash, order);
    const readBefore = diskReadBytes();
    t = performance.now();
    for (const b of blocks) store.applyBlocks([b]);
    const blocksPerSec = BLOCKS / ((performance.now() - t) / 1000);
    const readMiB = ((diskReadBytes() ?? 0) - (readBefore ?? 0)) / 2 ** 20 / BLOCKS;
    say(
      `  applied ${BLOCKS} blocks of ${TXS_PER_BLOCK} txs: ${blocksPerSec.toFixed(2)} blocks/s` +
        (readBefore === null ? '' : `, ${readMiB.toFixed(1)} MiB read from disk per block (all threads)`),
    );
    const reader = ChainReader.open(dbPath);
    const times: number[] = [];
    try {
      let hits = 0;
      for (let i = 0; i < LOOKUPS; i++) {
        const script = scriptOf(mix(i, 4242) % snap.scripts);
        const s = performance.now();
        const r = reader.summary(script);
        times.push(performance.now() - s);
        if (r && r.utxoCount > 0) hits++;
      }
      say(`  ${LOOKUPS} lookups, ${hits} with coins`);
    } finally {
      reader.close();
    }
    times.sort((a, b) => a - b);
    return {
      coins,
      order,
      genSeconds,
      fileBytes: snap.bytes,
      bootstrapSeconds,
      bootstrapCpuSeconds,
      coinsPerSec: coins / bootstrapSeconds,
      utxos: totals.utxos,
      scripts: totals.scripts,
      dbBytes,
      bytesPerUtxo: dbBytes / totals.utxos,
      blocksPerSec,
      lookupP50Ms: percentile(times, 0.5),
      lookupP99Ms: percentile(times, 0.99),
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      ...(readBefore !== null && { diskReadMiBPerBlock: readMiB }),
      phases,
    };
  } finally {
    store.close();
    rmSync(file, { force: true });
    for (const p of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) rmSync(p, { force: true });
  }
}

function loadResults(): ScaleResult[] {
  return existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as ScaleResult[]) : [];
}

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const mark = (ok: boolean): string => (ok ? 'met' : '**missed**');

const orderOf = (r: ScaleResult): TxidOrder => r.order ?? 'random';

function render(results: ScaleResult[]): string {
  const rows = [...results].sort((a, b) => a.coins - b.coins || orderOf(a).localeCompare(orderOf(b)));
  const lines = [
    '## scale — bootstrap from a UTXO snapshot, and how cost grows with N',
    '',
    'Command: `ADDRSUM_BENCH_SCALE_COINS=N npm run bench -- scale` (default N = 500,000). A synthetic Bitcoin',
    'Core v2 snapshot of N coins (mainnet-like script mix, 40 % address reuse, txids ascending as in a real',
    'dump; `ADDRSUM_BENCH_SCALE_ORDER=random` for random order, which takes the sorting path) is loaded by',
    'the real bootstrap path (`--bootstrap`), then 50 blocks of 3,000 txs are applied one commit each, then',
    '20,000 random scripts are looked up. Goals: bootstrap ≥ 400,000 coins/s; ≤ 100 B/UTXO at 185M; block',
    'apply at 185M ≥ 0.5× its speed on a 1M index built in the same run; lookup p99 ≤ 2 ms at 185M.',
    '',
    '| N coins | date | bootstrap | CPU s | coins/s (goal ≥ 400,000) | B/UTXO (goal ≤ 100) | blocks/s | vs 1M (goal ≥ 0.5) | lookup p50 | lookup p99 (goal ≤ 2 ms) | scripts |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${fmt(r.coins)}${orderOf(r) === 'random' ? ' (random order)' : ''} | ${r.date} | ${fmt(r.bootstrapSeconds, 1)} s | ${r.bootstrapCpuSeconds === undefined ? '–' : fmt(r.bootstrapCpuSeconds, 1)} | ${fmt(r.coinsPerSec)} ${mark(r.coinsPerSec >= GOALS.coinsPerSec)} | ` +
        `${fmt(r.bytesPerUtxo, 1)} ${mark(r.bytesPerUtxo <= GOALS.bytesPerUtxo)} | ${fmt(r.blocksPerSec, 2)} | ${fmt(r.applyRatio, 2)} ${mark(r.applyRatio >= GOALS.applyRatio)} | ` +
        `${fmt(r.lookupP50Ms, 3)} ms | ${fmt(r.lookupP99Ms, 3)} ms ${mark(r.lookupP99Ms <= GOALS.lookupP99Ms)} | ${fmt(r.scripts)} |`,
    );
  }
  lines.push('', 'Bootstrap phases (seconds since start, as the progress log reports them):', '');
  for (const r of rows) {
    lines.push(
      `- N = ${fmt(r.coins)}, ${orderOf(r)} txids: ${Object.entries(r.phases)
        .map(([k, v]) => `${k} at ${v} s`)
        .join(', ')}, done at ${fmt(r.bootstrapSeconds, 1)} s; peak RSS ${r.maxRssMiB === undefined ? '?' : fmt(r.maxRssMiB)} MiB; ` +
        `${r.diskReadMiBPerBlock === undefined ? '' : `block apply read ${fmt(r.diskReadMiBPerBlock, 1)} MiB per block from disk; `}machine: ${r.machine}`,
    );
  }
  return lines.join('\n');
}

export async function runScaleBench(opts: { coins?: number; dir?: string } = {}): Promise<{ goalMet: boolean }> {
  const coins = opts.coins ?? Number(process.env.ADDRSUM_BENCH_SCALE_COINS ?? 500_000);
  // The blocks on top spend 150,000 distinct txids (≈ 0.56 per coin): below 400k coins there are too few.
  if (!Number.isSafeInteger(coins) || coins < 400_000)
    throw new Error(`ADDRSUM_BENCH_SCALE_COINS must be an integer ≥ 400,000, got ${String(process.env.ADDRSUM_BENCH_SCALE_COINS)}`);
  const order: TxidOrder = process.env.ADDRSUM_BENCH_SCALE_ORDER === 'random' ? 'random' : 'ascending';
  const dir = opts.dir ?? process.env.ADDRSUM_BENCH_SCALE_DIR ?? fileURLToPath(new URL('../data/bench/scale', import.meta.url));
  const say = (line: string): void => void process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  trackDir(dir);
  try {
    const main = await runOnce(coins, order, dir, say);
    const reference = coins > 1_000_000 ? await runOnce(1_000_000, order, dir, say) : null;
    const result: ScaleResult = {
      ...main,
      date: today(),
      machine: machineLine(),
      applyRatio: reference ? main.blocksPerSec / reference.blocksPerSec : 1,
    };
    // The side-by-side 1M reference is the newest 1M measurement: it replaces an older 1M row.
    const results = loadResults().filter(
      (r) => orderOf(r) !== order || (r.coins !== coins && (reference === null || r.coins !== reference.coins)),
    );
    results.push(result);
    if (reference) results.push({ ...reference, date: today(), machine: machineLine(), applyRatio: 1 });
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    writeSection('scale', render(results));
    say(render([result]));
    return {
      goalMet:
        result.coinsPerSec >= GOALS.coinsPerSec &&
        result.lookupP99Ms <= GOALS.lookupP99Ms &&
        result.applyRatio >= GOALS.applyRatio &&
        result.bytesPerUtxo <= GOALS.bytesPerUtxo,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runScaleBench();
