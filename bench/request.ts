/**
 * Benchmark "request": GET /api/v1/LTC/address/<addr> on the real API process (src/api-process/addrsum-api.ts, auth and
 * limits on, a private-tier key whose limits are raised for the run, an LTC ltc.sqlite on disk written
 * through ChainStore) against Express 5 hello-world JSON and a bare node:http server answering the same
 * body, and against the floor (bench/request-floor.ts: Express with only the address decode, the index
 * read and the body), in the same run.
 *
 *   npx tsx bench/request.ts
 *
 * autocannon runs in this process, the API in one child and the references in another. With taskset and
 * two or more cores, every server runs pinned to core 0 and this process (the load generator) to core 1,
 * so a figure is one server's work on one core, not a fight for it. Rounds rotate which server goes
 * first; figures are medians over rounds. A last load run with `node --cpu-prof` on the API says which
 * layer the CPU goes to (bench/profile-layers.ts). Goals: API ≥ 0.6× Express with p99 ≤ 5 ms at that
 * load; the ratio to bare node:http beside its own goal (0.8×).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { chainParams } from '../src/chain/params.js';
import { scriptToAddress } from '../src/chain/address.js';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { monotonicUs, readLayerShares, type LayerShare } from './profile-layers.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';
import { p2wpkh, SyntheticChain, type BenchOutputs } from './synthetic-chain.js';
import type { BlockToApply } from '../src/store/index-model.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** API req/s over Express hello-world JSON's, on the same core. */
const GOAL_EXPRESS = 0.6;
/** p99 latency of the API at that load. */
const GOAL_P99_MS = 5;
/** API req/s over bare node:http's (the earlier goal, kept beside its figure). */
const GOAL_BARE = 0.8;
const PROFILE_SECONDS = 8;
const CONNECTIONS = 10;
/** BENCH_QUICK=1: one short round, no profile, nothing written (for comparing changes while working). */
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 4 : 8;
const WARMUP_SECONDS = 2;
const ROUNDS = QUICK ? 1 : 3;
const RAISED_LIMIT = 1_000_000;
const UTXOS = 4_000;
const SCRIPTS = 1_000;
/** UTXOs of the address the benchmark asks for. */
const TARGET_UTXOS = 7;

// autocannon ships no types; this is the part of its programmatic API used here.
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  throughput: { total: number };
}
interface AutocannonInstance {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (
  opts: { url: string; connections: number; duration: number; headers?: Record<string, string>; overallRate?: number },
  done: (err: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One server's figures: medians over rounds. */
export interface LoadFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerResponse: number;
  /** Server CPU seconds per second of load (Linux /proc; null elsewhere). */
  serverCpu: number | null;
  /** Totals over the timed rounds. */
  responses: number;
  non2xx: number;
  errors: number;
}

export interface RequestBenchResult {
  api: LoadFigures;
  bare: LoadFigures;
  express: LoadFigures;
  /** Express with only the read and the body (bench/request-floor.ts): the most the API could reach. */
  floor: LoadFigures;
  /** floor/express req/s: the ceiling of the goal's ratio with the work every answer must do. */
  floorVsExpress: number;
  /** api/express req/s (the goal's ratio): of the medians, and the range over rounds. */
  vsExpress: number;
  vsExpressMin: number;
  vsExpressMax: number;
  /** api/bare req/s, and its range over rounds. */
  vsBare: number;
  vsBareMin: number;
  vsBareMax: number;
  load: number; // 1-minute load average when the run started
  pinned: boolean;
  /**
   * The API at the goal's load: offered GOAL_EXPRESS × Express's req/s (open loop), so its p99 is the
   * latency of serving that rate, not the queueing of a saturated closed loop.
   */
  atGoalLoad: LoadFigures & { offered: number };
  /** Where the API's CPU went under load (null when the profile could not be read). */
  layers: LayerShare[] | null;
  goalMet: boolean;
}

export type Target = { pid: number | undefined; url: string; headers: Record<string, string> };

/**
 * Pinning: servers on core 0 (`taskset -c 0` before the command), this process and its threads on core 1.
 * Empty when taskset is missing or there is one core; the report says which.
 */
const SERVER_CORE = '0';
const LOADGEN_CORE = '1';
export function pinning(): { serverPrefix: string[]; pinned: boolean } {
  if (cpus().length < 2) return { serverPrefix: [], pinned: false };
  const self = spawnSync('taskset', ['-a', '-cp', LOADGEN_CORE, String(process.pid)], { stdio: 'ignore' });
  if (self.status !== 0) return { serverPrefix: [], pinned: false };
  return { serverPrefix: ['taskset', '-c', SERVER_CORE], pinned: true };
}

/** spawn() of process.execPath, behind the pinning prefix when there is one (taskset execs: same pid). */
function spawnNode(prefix: readonly string[], args: string[], options: Parameters<typeof spawn>[2]): ChildProcess {
  const [command, ...rest] = prefix.length > 0 ? [...prefix, process.execPath, ...args] : [process.execPath, ...args];
  return spawn(command!, rest, options);
}

/** An LTC mainnet index with UTXOS outputs over SCRIPTS scripts; returns the target address and its sums. */
export function buildIndex(dataDir: string): { address: string; balance: number; tipHeight: number } {
  const store = ChainStore.open(chainDbPath(dataDir, 'LTC'), { chain: 'LTC', network: 'mainnet' });
  try {
    const chain = new SyntheticChain('request-bench');
    const target = p2wpkh('request-bench target');
    const scripts = Array.from({ length: SCRIPTS }, (_, i) => p2wpkh(`request-bench script ${i}`));
    let balance = 0;
    const blocks: BlockToApply[] = [];
    const addBlock = (txs: ParsedTx[]): void => void blocks.push(chain.block(txs));
    addBlock([chain.tx('tx 0', [{ script: target, value: 50_0000_0000 }], true)]); // genesis: never connected
    const perBlock = 100;
    const stride = Math.floor(UTXOS / TARGET_UTXOS);
    for (let made = 0, tx = 1; made < UTXOS; tx++) {
      const outputs: BenchOutputs = [];
      for (let o = 0; o < perBlock && made < UTXOS; o++, made++) {
        const isTarget = made % stride === 0 && made / stride < TARGET_UTXOS;
        const value = 10_000 + ((made * 7919) % 5_000_000);
        if (isTarget) balance += value;
        outputs.push({ script: isTarget ? target : scripts[made % SCRIPTS]!, value });
      }
      addBlock([chain.tx(`tx ${tx}`, outputs, true)]);
    }
    store.applyBlocks(blocks);
    const tip = store.tip()!;
    // The indexer records the node's height; level with the tip, the API answers (not CHAIN_SYNCING).
    store.setNodeHeight(tip.height, new Date());
    return { address: scriptToAddress(chainParams('LTC', 'mainnet'), target)!, balance, tipHeight: tip.height };
  } finally {
    store.close();
  }
}

/** The API of the repository at `root` (this one unless given: bench/engine-ports.ts starts an older checkout's too). */
export async function startApi(
  dir: string,
  prefix: readonly string[],
  nodeFlags: string[] = [],
  root: string = REPO_ROOT,
): Promise<{ child: ChildProcess; url: string }> {
  const configFile = path.join(dir, 'bench.toml');
  writeFileSync(configFile, `[api.tiers.private]\nrate = ${RAISED_LIMIT}\nburst = ${RAISED_LIMIT}\n`);
  const logFile = path.join(dir, `api-${Date.now()}.log`);
  const fd = openSync(logFile, 'w');
  // Our environment minus every ADDRSUM_* variable, plus the run's. The RPC URL makes LTC a served chain;
  // the API itself never talks to the node.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ADDRSUM_')));
  Object.assign(env, { ADDRSUM_CONFIG: configFile, ADDRSUM_DATA_DIR: dir, ADDRSUM_HOST: '127.0.0.1', ADDRSUM_PORT: '0' });
  Object.assign(env, { ADDRSUM_LTC_NETWORK: 'mainnet', ADDRSUM_LTC_RPC_URL: 'http://bench:bench@127.0.0.1:9' });
  const child = spawnNode(prefix, [...nodeFlags, '--import', 'tsx', 'src/api-process/addrsum-api.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  for (let waited = 0; waited < 300_000; waited += 50) {
    const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(readFileSync(logFile, 'utf8'));
    if (m) return { child, url: `http://127.0.0.1:${m[1]}` };
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`request bench: the API did not start:\n${readFileSync(logFile, 'utf8')}`);
}

/**
 * The references, in one child process on two ports: a bare node:http server and a minimal Express 5 app
 * with the API's route pattern, both answering the fixed body with Content-Type and Content-Length only.
 * The Express one is not the goal's reference; it shows how much of the gap is the framework's floor.
 */
export const REFERENCE_SERVERS = `
const http = require('node:http');
const express = require('express');
const body = Buffer.from(process.env.BENCH_BODY, 'utf8');
const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };
const answer = (req, res) => res.writeHead(200, headers).end(body);
const bare = http.createServer(answer);
const app = express();
app.get('/api/v1/:chain/address/:address', answer);
const framed = http.createServer(app);
bare.listen(0, '127.0.0.1', () => framed.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ bare: bare.address().port, express: framed.address().port }) + '\\n')));
`;

export async function startReferences(
  body: string,
  prefix: readonly string[],
): Promise<{ child: ChildProcess; bare: string; express: string }> {
  const child = spawnNode(prefix, ['--input-type=commonjs', '-e', REFERENCE_SERVERS], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ports = await firstJsonLine<{ bare: number; express: number }>(child, 'the reference servers');
  return { child, bare: `http://127.0.0.1:${ports.bare}`, express: `http://127.0.0.1:${ports.express}` };
}

/** The first line a server child prints (its ports, as JSON). */
function firstJsonLine<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as T);
    });
    child.on('exit', (code) => reject(new Error(`request bench: ${name} exited (${String(code)})`)));
  });
}

/** utime + stime of a process in seconds, from /proc (Linux, USER_HZ = 100); null elsewhere. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** `rate`: offered requests per second over all connections (autocannon's overallRate); unset = as fast as answered. */
export function load(target: Target, seconds: number, rate?: number): Promise<LoadFigures> {
  const times: number[] = [];
  let non2xx = 0;
  const cpu0 = cpuSeconds(target.pid);
  return new Promise((resolve, reject) => {
    const opts = {
      url: target.url,
      connections: CONNECTIONS,
      duration: seconds,
      headers: target.headers,
      ...(rate !== undefined && { overallRate: Math.round(rate) }),
    };
    const instance = autocannon(opts, (err, result) => {
      if (err) return reject(err);
      const cpu1 = cpuSeconds(target.pid);
      times.sort((a, b) => a - b);
      resolve({
        rps: times.length / result.duration,
        p50Ms: percentile(times, 0.5),
        p99Ms: percentile(times, 0.99),
        bytesPerResponse: result.throughput.total / Math.max(1, times.length),
        serverCpu: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / result.duration,
        responses: times.length,
        non2xx,
        errors: result.errors + result.timeouts,
      });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      times.push(ms);
      if (status < 200 || status > 299) non2xx++;
    });
  });
}

function summarize(rounds: readonly LoadFigures[]): LoadFigures {
  const cpu = rounds.map((r) => r.serverCpu).filter((c): c is number => c !== null);
  const total = (f: (r: LoadFigures) => number): number => rounds.reduce((s, r) => s + f(r), 0);
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    bytesPerResponse: median(rounds.map((r) => r.bytesPerResponse)),
    serverCpu: cpu.length === rounds.length ? median(cpu) : null,
    responses: total((r) => r.responses),
    non2xx: total((r) => r.non2xx),
    errors: total((r) => r.errors),
  };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export function createKey(dir: string): string {
  const keys = KeyStore.open(path.join(dir, 'keys.sqlite'));
  const { key } = keys.create('private', 'request bench');
  keys.close();
  return key;
}

/** The API must answer right, with auth and limits in force, before its speed means anything. Returns the body. */
export async function checkApi(api: Target, expected: { balance: number; tipHeight: number }): Promise<string> {
  const refused = await fetch(api.url);
  if (refused.status !== 401) throw new Error(`request bench: without a key the API answered ${refused.status}, not 401`);
  const ok = await fetch(api.url, { headers: api.headers });
  const body = await ok.text();
  const data = (JSON.parse(body) as { data?: { balanceSatoshi?: number; utxoCount?: number; blockHeight?: number } }).data;
  if (
    ok.status !== 200 ||
    data?.balanceSatoshi !== expected.balance ||
    data.utxoCount !== TARGET_UTXOS ||
    data.blockHeight !== expected.tipHeight
  ) {
    throw new Error(`request bench: unexpected answer ${ok.status} ${body}`);
  }
  const limit = ok.headers.get('ratelimit-limit');
  if (limit !== String(RAISED_LIMIT))
    throw new Error(`request bench: RateLimit-Limit is ${limit}: the raised private tier is not in force`);
  return body;
}

/** One more load run on an API started with --cpu-prof; the profile is written when it exits. */
async function profileApi(
  dir: string,
  prefix: readonly string[],
  route: string,
  headers: Record<string, string>,
): Promise<LayerShare[] | null> {
  const profDir = path.join(dir, 'cpu-prof');
  const window = { fromUs: 0, toUs: 0 };
  const server = await startApi(dir, prefix, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  try {
    await load({ pid: server.child.pid, url: server.url + route, headers }, WARMUP_SECONDS);
    window.fromUs = monotonicUs();
    await load({ pid: server.child.pid, url: server.url + route, headers }, PROFILE_SECONDS);
    window.toUs = monotonicUs();
  } finally {
    await stopChild(server.child);
  }
  // Only the samples of the timed load count: start-up (module loading, TypeScript through tsx) and the
  // warm-up would otherwise weigh in, the more so on a busy machine where the load gets little CPU.
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return null;
  // BENCH_KEEP_PROFILE=<path>: keep the profile (e.g. for Chrome DevTools' Performance panel).
  if (process.env.BENCH_KEEP_PROFILE) copyFileSync(path.join(profDir, file), process.env.BENCH_KEEP_PROFILE);
  return readLayerShares(path.join(profDir, file), window);
}

/** bench/request-floor.ts on the index in `dir`; resolves with its URL once it listens. */
async function startFloor(dir: string, prefix: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnNode(prefix, ['--import', 'tsx', 'bench/request-floor.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await firstJsonLine<{ port: number }>(child, 'the floor server');
  return { child, url: `http://127.0.0.1:${port.port}` };
}

export async function runRequestBench(opts: { write?: boolean } = {}): Promise<RequestBenchResult> {
  const load1 = loadavg()[0] ?? 0;
  const { serverPrefix, pinned } = pinning();
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-request-'));
  const children: ChildProcess[] = [];
  try {
    const index = buildIndex(dir);
    const headers = { 'x-api-key': createKey(dir) };
    const route = `/api/v1/LTC/address/${index.address}`;
    const apiServer = await startApi(dir, serverPrefix);
    children.push(apiServer.child);
    const api: Target = { pid: apiServer.child.pid, url: apiServer.url + route, headers };
    const body = await checkApi(api, index);
    const refs = await startReferences(body, serverPrefix);
    children.push(refs.child);
    const bare: Target = { pid: refs.child.pid, url: refs.bare + route, headers };
    const express: Target = { pid: refs.child.pid, url: refs.express + route, headers };
    const floorServer = await startFloor(dir, serverPrefix);
    children.push(floorServer.child);
    const floor: Target = { pid: floorServer.child.pid, url: floorServer.url + route, headers };
    for (const t of [bare, express, floor]) {
      const res = await fetch(t.url);
      if (res.status !== 200 || (await res.text()) !== body) throw new Error(`request bench: ${t.url} answers differently`);
    }

    const targets = [api, bare, express, floor];
    for (const t of targets) await load(t, WARMUP_SECONDS);
    const rounds: LoadFigures[][] = targets.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate who goes first, so no server always runs right after another's load.
      for (let k = 0; k < targets.length; k++) {
        const i = (k + r) % targets.length;
        rounds[i]!.push(await load(targets[i]!, SECONDS));
      }
    }
    const [apiFig, bareFig, expressFig, floorFig] = rounds.map(summarize) as [LoadFigures, LoadFigures, LoadFigures, LoadFigures];
    const offered = GOAL_EXPRESS * expressFig.rps;
    const atGoalLoad = { ...(await load(api, SECONDS, offered)), offered };
    await stopChild(apiServer.child);
    const layers = QUICK && !process.env.BENCH_KEEP_PROFILE ? null : await profileApi(dir, serverPrefix, route, headers);

    const perRound = (ref: number): number[] => rounds[0]!.map((a, i) => a.rps / rounds[ref]![i]!.rps);
    const vsBareRounds = perRound(1);
    const vsExpressRounds = perRound(2);
    const vsExpress = apiFig.rps / expressFig.rps;
    const result: RequestBenchResult = {
      api: apiFig,
      bare: bareFig,
      express: expressFig,
      floor: floorFig,
      floorVsExpress: floorFig.rps / expressFig.rps,
      vsExpress,
      vsExpressMin: Math.min(...vsExpressRounds),
      vsExpressMax: Math.max(...vsExpressRounds),
      vsBare: apiFig.rps / bareFig.rps,
      vsBareMin: Math.min(...vsBareRounds),
      vsBareMax: Math.max(...vsBareRounds),
      load: load1,
      pinned,
      atGoalLoad,
      layers,
      goalMet:
        vsExpress >= GOAL_EXPRESS &&
        keptUp(atGoalLoad) &&
        atGoalLoad.p99Ms <= GOAL_P99_MS &&
        apiFig.non2xx + atGoalLoad.non2xx === 0 &&
        apiFig.errors + atGoalLoad.errors === 0,
    };

    const line = (name: string, f: LoadFigures): string =>
      `  ${name.padEnd(8)} ${f.rps.toFixed(0).padStart(6)} req/s  p50 ${f.p50Ms.toFixed(2)} ms  p99 ${f.p99Ms.toFixed(2)} ms  ` +
      `server CPU ${f.serverCpu?.toFixed(2) ?? '?'} s/s (${f.serverCpu === null ? '?' : ((f.serverCpu / f.rps) * 1e6).toFixed(0)} µs/req)  non-2xx ${f.non2xx}/${f.responses}  errors ${f.errors}`;
    console.log(
      `request: ${CONNECTIONS} connections, ${ROUNDS} rotated rounds of ${SECONDS} s per server, ${pinned ? 'servers on core 0, load on core 1' : 'not pinned'}`,
    );
    console.log([line('api', apiFig), line('bare', bareFig), line('express', expressFig), line('floor', floorFig)].join('\n'));
    console.log(`  floor/express ${result.floorVsExpress.toFixed(2)}×: the most the API could reach with the read and body it must do`);
    console.log(
      `  api/express ${vsExpress.toFixed(2)}× (per-round ${result.vsExpressMin.toFixed(2)}–${result.vsExpressMax.toFixed(2)}×), goal ≥ ${GOAL_EXPRESS}× with p99 ≤ ${GOAL_P99_MS} ms: ${result.goalMet ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `  api/bare ${result.vsBare.toFixed(2)}× (per-round ${result.vsBareMin.toFixed(2)}–${result.vsBareMax.toFixed(2)}×), goal ≥ ${GOAL_BARE}×`,
    );
    console.log(
      `  api at ${atGoalLoad.offered.toFixed(0)} req/s offered (${GOAL_EXPRESS}× Express): ${atGoalLoad.rps.toFixed(0)} answered, p50 ${atGoalLoad.p50Ms.toFixed(2)} ms, p99 ${atGoalLoad.p99Ms.toFixed(2)} ms`,
    );
    for (const l of layers ?? []) console.log(`  ${(l.share * 100).toFixed(1).padStart(5)} %  ${l.layer}`);

    if (opts.write !== false && !QUICK) writeSection('request', report(result, index.address, body.length));
    return result;
  } finally {
    for (const child of children) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The API answered (nearly) all it was offered: an open-loop rate it cannot serve only queues up. */
function keptUp(f: LoadFigures & { offered: number }): boolean {
  return f.rps >= 0.97 * f.offered;
}

function report(r: RequestBenchResult, address: string, bodyBytes: number): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const met = (ok: boolean): string => (ok ? 'met' : 'not met');
  const row = (name: string, f: LoadFigures, vs: string): string =>
    `| ${name} | ${n(Math.round(f.rps))} | ${f.p50Ms.toFixed(2)} | ${f.p99Ms.toFixed(2)} | ${f.bytesPerResponse.toFixed(0)} | ` +
    `${f.serverCpu === null ? '–' : f.serverCpu.toFixed(2)} | ${f.serverCpu === null ? '–' : ((f.serverCpu / f.rps) * 1e6).toFixed(0)} | ${f.non2xx} of ${n(f.responses)} | ${vs} |`;
  const layers = r.layers
    ? r.layers.map((l) => `| ${l.layer} | ${(l.share * 100).toFixed(1)} % |`).join('\n')
    : '| (the profile could not be read) | |';
  return `## request — address summary over HTTP, API vs Express hello-world and bare node:http

\`GET /api/v1/LTC/address/${address}\` (${TARGET_UTXOS} UTXOs) on the real API process (\`src/api-process/addrsum-api.ts\`), against
Express 5 with one route and a bare \`node:http\` server, both answering the same ${bodyBytes}-byte JSON body.
${CONNECTIONS} connections, keep-alive, no pipelining. ${r.pinned ? 'Every server pinned to core 0 (`taskset -c 0`), the load generator to core 1.' : '**Not pinned** (taskset missing or one core): servers and load generator share the cores.'}

| server | req/s (median of ${ROUNDS}) | p50 ms | p99 ms | bytes/response | server CPU s/s | CPU µs/request | non-2xx | API ÷ this |
|---|---|---|---|---|---|---|---|---|
${row('API: auth + limits + SQLite lookup + info log line', r.api, '–')}
${row('Express 5, one route, fixed body', r.express, `**${r.vsExpress.toFixed(2)}×**`)}
${row('bare `node:http`, fixed body', r.bare, `**${r.vsBare.toFixed(2)}×**`)}
${row('floor: Express 5 + the address decode, index read and body only', r.floor, `${(r.api.rps / r.floor.rps).toFixed(2)}×`)}

The floor (\`bench/request-floor.ts\`) answers the same body with nothing but the work no answer can skip: decoding the
address, the API's one SQL statement and its JSON body, under Express — no key, limits, request id, log line, metrics,
freshness check or ETag. **Floor ÷ Express: ${r.floorVsExpress.toFixed(2)}×**, the ceiling of the goal's ratio on this machine.

| figure | measured | goal | |
|---|---|---|---|
| API ÷ Express req/s | **${r.vsExpress.toFixed(2)}×** (rounds ${r.vsExpressMin.toFixed(2)}–${r.vsExpressMax.toFixed(2)}×) | ≥ ${GOAL_EXPRESS}× | ${met(r.vsExpress >= GOAL_EXPRESS)} |
| API p99 at that load: ${n(Math.round(r.atGoalLoad.offered))} req/s offered (${GOAL_EXPRESS}× Express's), ${n(Math.round(r.atGoalLoad.rps))} answered | ${r.atGoalLoad.p99Ms.toFixed(2)} ms (p50 ${r.atGoalLoad.p50Ms.toFixed(2)} ms) | ≤ ${GOAL_P99_MS} ms | ${met(keptUp(r.atGoalLoad) && r.atGoalLoad.p99Ms <= GOAL_P99_MS)} |
| API ÷ bare \`node:http\` req/s | **${r.vsBare.toFixed(2)}×** (rounds ${r.vsBareMin.toFixed(2)}–${r.vsBareMax.toFixed(2)}×) | ≥ ${GOAL_BARE}× | ${met(r.vsBare >= GOAL_BARE)} |

Goal (≥ ${GOAL_EXPRESS}× Express with p99 ≤ ${GOAL_P99_MS} ms, every answer 200): **${met(r.goalMet)}**. Socket errors and timeouts: API ${r.api.errors}, bare ${r.bare.errors}, Express ${r.express.errors}.

Where the API's CPU goes under this load (\`node --cpu-prof\` on the API process; only the samples of ${PROFILE_SECONDS} s of load after a
${WARMUP_SECONDS} s warm-up, same run; each sample charged to the innermost frame of a named layer, \`bench/profile-layers.ts\`):

| layer | share of busy CPU |
|---|---|
${layers}

- Command: \`npm run bench -- request\` or \`npx tsx bench/request.ts\` (${ROUNDS} rounds of ${SECONDS} s per server after a ${WARMUP_SECONDS} s
  warm-up of each; the server that goes first rotates; figures are medians over rounds, non-2xx totals).
- Measured ${today()} on ${machineLine()};
  1-minute load average ${r.load.toFixed(2)} at the start (other work on this shared machine shows there and moves figures between runs).
- API setup: started as \`npm run api\` does (\`node --import tsx src/api-process/addrsum-api.ts\`, one process), configured by
  config/default.toml + an \`ADDRSUM_CONFIG\` file raising the \`private\` tier to ${n(RAISED_LIMIT)}/s (burst ${n(RAISED_LIMIT)})
  + \`ADDRSUM_*\` variables; in-process token buckets (no Redis). Every request carries a \`private\` key from a real
  keys.sqlite (held in memory, checked for changes once per event-loop turn: the header's change counter and the file's identity),
  passes the token bucket, and reads an LTC mainnet ltc.sqlite on disk holding ${n(UTXOS)} UTXOs over
  ${n(SCRIPTS + 1)} scripts (one SQL statement: balance with the tip, node height and freshness it is true at). Log level info (the default): one JSON
  line per request, to a file. Checked before timing: no key → 401; with the key → 200 with the written
  balance, UTXO count and tip, and \`RateLimit-Limit: ${RAISED_LIMIT}\`.
- Load: autocannon 9 in the benchmark process; the API in one child process, the two references in another
  (each idle while another is measured). The references send 2 headers; the API also sends X-Request-Id,
  ETag, Cache-Control, RateLimit-* and X-Content-Type-Options. Latencies are per response (autocannon's
  \`response\` event), not its 1 ms histogram. The p50/p99 columns of the first table are at saturation (a
  closed loop of ${CONNECTIONS} connections: latency there is mostly queueing); the goal's p99 is measured in one more
  ${SECONDS} s run offering the API ${GOAL_EXPRESS}× Express's req/s at a fixed rate (autocannon \`overallRate\`), which it must
  also keep up with (≥ 97 % answered).`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runRequestBench();
}
