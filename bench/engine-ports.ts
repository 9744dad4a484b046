/**
 * Benchmark "engine-ports" (issue 32): the index behind Promise-returning ports must cost what the direct
 * synchronous calls cost. The code before the ports and this checkout, side by side in one run, alternating:
 *
 *   ADDRSUM_BENCH_BEFORE_REPO=<a checkout of the code before> npm run bench -- engine-ports
 *
 * (a) snapshot bootstrap of ADDRSUM_BENCH_PORTS_COINS coins (default 10,000,000; the synthetic snapshot of
 * bench/scale-snapshot.ts, written once) and (b) block apply: 50 blocks of 3,000 txs on top, one commit
 * each — both in a fresh child process per run (bench/engine-ports-probe.ts) with that side's code;
 * (c) API req/s: both sides' API processes on one index (bench/request.ts's), servers pinned to core 0 and
 * the load to core 1 where taskset exists, load windows alternating between them. Rounds:
 * ADDRSUM_BENCH_PORTS_ROUNDS (default 3) for (a) and (b), ADDRSUM_BENCH_PORTS_API_ROUNDS (default 7) for
 * (c); the side that goes first alternates by round.
 * Goals: after ÷ before ≥ 0.95 for each of the three medians.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, median, today, writeSection } from './report.js';
import { buildIndex, checkApi, createKey, load, pinning, startApi, stopChild, type Target } from './request.js';
import { writeSyntheticSnapshot } from './scale-snapshot.js';
import { BASE_HEIGHT } from './scale.js';

const AFTER_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE_ENV = 'ADDRSUM_BENCH_BEFORE_REPO';
const GOAL = 0.95;
const LOAD_SECONDS = 8;
const WARMUP_SECONDS = 2;

type Side = 'before' | 'after';
interface StoreFigures {
  bootstrapSeconds: number;
  blocksPerSec: number;
  through: string;
}

function commitOf(root: string): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
}

/** Sides in the order of round `r`: the first side alternates, so neither always runs on a warmer machine. */
const order = (r: number): Side[] => (r % 2 === 0 ? ['before', 'after'] : ['after', 'before']);

function probe(root: string, snapshot: string, db: string, baseHash: Buffer, groups: number): StoreFigures {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bench/engine-ports-probe.ts', root, snapshot, db, baseHash.toString('hex'), String(groups)],
    { cwd: AFTER_ROOT, encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  for (const p of [db, `${db}-wal`, `${db}-shm`, `${db}.lock`]) rmSync(p, { force: true });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`engine-ports probe in ${root} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(line) as StoreFigures;
}

async function apiRounds(
  roots: Record<Side, string>,
  rounds: number,
  dir: string,
): Promise<{ figures: Record<Side, number[]>; cpuUs: Record<Side, number[]>; pinned: boolean }> {
  const { serverPrefix, pinned } = pinning();
  const index = buildIndex(dir);
  const headers = { 'x-api-key': createKey(dir) };
  const route = `/api/v1/LTC/address/${index.address}`;
  const children: ChildProcess[] = [];
  try {
    const targets = {} as Record<Side, Target>;
    for (const side of ['before', 'after'] as const) {
      const api = await startApi(dir, serverPrefix, [], roots[side]);
      children.push(api.child);
      targets[side] = { pid: api.child.pid, url: api.url + route, headers };
    }
    const bodies = await Promise.all([checkApi(targets.before, index), checkApi(targets.after, index)]);
    if (bodies[0] !== bodies[1]) throw new Error(`engine-ports bench: the two APIs answer differently:\n${bodies[0]}\n${bodies[1]}`);
    for (const side of ['before', 'after'] as const) await load(targets[side], WARMUP_SECONDS);
    const figures: Record<Side, number[]> = { before: [], after: [] };
    const cpuUs: Record<Side, number[]> = { before: [], after: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of order(r)) {
        const f = await load(targets[side], LOAD_SECONDS);
        if (f.non2xx + f.errors > 0) throw new Error(`engine-ports bench: ${side} answered ${f.non2xx} non-2xx, ${f.errors} errors`);
        figures[side].push(f.rps);
        if (f.serverCpu !== null) cpuUs[side].push((f.serverCpu / f.rps) * 1e6);
      }
    }
    return { figures, cpuUs, pinned };
  } finally {
    for (const child of children) await stopChild(child);
  }
}

const ratios = (after: number[], before: number[]): number[] => after.map((a, i) => a / before[i]!);
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

export async function runEnginePortsBench(): Promise<{ goalMet: boolean }> {
  const beforeRoot = process.env[BEFORE_ENV];
  if (!beforeRoot || !existsSync(path.join(beforeRoot, 'indexer/bootstrap.ts')))
    throw new Error(`engine-ports bench: set ${BEFORE_ENV} to a checkout of the code before the ports (its node_modules installed)`);
  const roots: Record<Side, string> = { before: beforeRoot, after: AFTER_ROOT };
  const coins = Number(process.env.ADDRSUM_BENCH_PORTS_COINS ?? 10_000_000);
  const rounds = Number(process.env.ADDRSUM_BENCH_PORTS_ROUNDS ?? 3);
  // A load window costs seconds where a bootstrap costs a minute: the API gets more rounds against noise.
  const apiRoundCount = Number(process.env.ADDRSUM_BENCH_PORTS_API_ROUNDS ?? 7);
  const load1 = loadavg()[0] ?? 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-ports-'));
  trackDir(dir);
  try {
    const snapshot = path.join(dir, 'utxo.dat');
    const snap = writeSyntheticSnapshot(snapshot, coins, BASE_HEIGHT);
    // The blocks on top spend 150,000 distinct txids of the snapshot (bench/scale.ts blocksOnTop).
    if (snap.groups < 200_000) throw new Error(`engine-ports bench: ${coins} coins are too few; take at least 400,000`);
    console.log(`engine-ports: snapshot of ${coins} coins written; ${rounds} rounds, sides alternating`);
    const store: Record<Side, StoreFigures[]> = { before: [], after: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of order(r)) {
        const f = probe(roots[side], snapshot, path.join(dir, `${side}.sqlite`), snap.baseHash, snap.groups);
        console.log(
          `  round ${r + 1} ${side.padEnd(6)} (${f.through}): bootstrap ${f.bootstrapSeconds.toFixed(1)} s, ${f.blocksPerSec.toFixed(2)} blocks/s`,
        );
        store[side].push(f);
      }
    }
    rmSync(snapshot, { force: true });
    const api = await apiRounds(roots, apiRoundCount, path.join(dir, 'api'));
    console.log(
      `  API req/s before ${api.figures.before.map((x) => x.toFixed(0)).join(', ')}; after ${api.figures.after.map((x) => x.toFixed(0)).join(', ')}`,
    );

    // Bootstrap is a time (less is better): its ratio is before ÷ after, so every ratio reads "after's speed".
    const speed = (side: Side): number[] => store[side].map((f) => 1 / f.bootstrapSeconds);
    const apply = (side: Side): number[] => store[side].map((f) => f.blocksPerSec);
    const rows = [
      {
        what: `snapshot bootstrap, ${coins.toLocaleString('en-US')} coins`,
        unit: 's',
        before: store.before.map((f) => f.bootstrapSeconds),
        after: store.after.map((f) => f.bootstrapSeconds),
        r: ratios(speed('after'), speed('before')),
      },
      {
        what: 'block apply, 3,000-tx blocks, one commit each',
        unit: 'blocks/s',
        before: apply('before'),
        after: apply('after'),
        r: ratios(apply('after'), apply('before')),
      },
      {
        what: 'API req/s, one address, 10 connections',
        unit: 'req/s',
        before: api.figures.before,
        after: api.figures.after,
        r: ratios(api.figures.after, api.figures.before),
      },
    ];
    const goalMet = rows.every((row) => median(row.r) >= GOAL);
    // The API server's CPU per answer: a cost, less is better (before ÷ after, as for the bootstrap); it
    // is this process's load alone, so it shifts less with the machine's other work than req/s does.
    if (api.cpuUs.before.length === apiRoundCount && api.cpuUs.after.length === apiRoundCount)
      rows.push({
        what: 'API server CPU per answer (not a goal)',
        unit: 'µs',
        before: api.cpuUs.before,
        after: api.cpuUs.after,
        r: ratios(api.cpuUs.before, api.cpuUs.after),
      });
    const table = [
      `| measure | before (median) | after (median) | after's speed ÷ before's, median (goal ≥ ${GOAL}) | per round |`,
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows.map((row) => {
        const m = median(row.r);
        const fmt = (xs: number[]): string => `${median(xs).toFixed(row.unit === 'blocks/s' || row.unit === 's' ? 2 : 0)} ${row.unit}`;
        const verdict = row.unit === 'µs' ? '' : m >= GOAL ? ' met' : ' **missed**';
        return `| ${row.what} | ${fmt(row.before)} | ${fmt(row.after)} | ${m.toFixed(2)}${verdict} | ${range(row.r)} |`;
      }),
    ].join('\n');
    writeSection(
      'engine-ports',
      `## engine-ports — the index behind Promise-returning ports, before and after (issue 32)

Command: \`${BEFORE_ENV}=<checkout of the code before> npm run bench -- engine-ports\`. Before = commit
${commitOf(beforeRoot)} (synchronous ChainStore/ChainReader calls), after = commit ${commitOf(AFTER_ROOT)} (every
call through src/store/ports.ts, block apply as a change set, amounts as bigint). ${rounds} rounds of bootstrap
and block apply, each in a fresh child process, and ${apiRoundCount} rounds of API load windows of ${LOAD_SECONDS} s on
both APIs over one index, the side going first alternating by round${api.pinned ? ' (servers on core 0, load generator on core 1)' : ''}. Run ${today()}, load average ${load1.toFixed(1)} at start;
${machineLine()}.

${table}
`,
    );
    console.log(table);
    return { goalMet };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { goalMet } = await runEnginePortsBench();
  console.log(`engine-ports goal ${goalMet ? 'met' : 'NOT met'}`);
}
