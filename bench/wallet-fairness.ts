/**
 * Benchmark "wallet-fairness" (issue 31): a heavy wallet request must not stall other callers. The real API
 * process, side by side for the code before the change (wallets derived on the event loop, priced by
 * scripts) and after it (derived on worker threads, taken in turn across callers, priced by key
 * derivations).
 *
 *   ADDRSUM_BENCH_BEFORE_REPO=<a checkout of the code before> npx tsx bench/wallet-fairness.ts
 *   npm run bench -- wallet-fairness     (this checkout only, unless ADDRSUM_BENCH_BEFORE_REPO is set)
 *
 * "after" is this checkout; "before" is the repository root named by ADDRSUM_BENCH_BEFORE_REPO (its
 * node_modules installed); when unset, only "after" is measured and the section says so. Runs alternate
 * before, after, ADDRSUM_BENCH_WALLET_ROUNDS times (default 2); each run has a fresh data directory (an LTC
 * regtest index of two empty blocks and a keys.sqlite with two private keys, A and B) and its own API
 * process (`node --import tsx src/api-process/addrsum-api.ts` from that root, default settings, anonymous callers
 * allowed), stopped afterwards.
 *
 * Scenario HTTP: key A POSTs /api/v1/LTC/xpub with a 1-of-16 multisig of fresh tpubs, both branches, range
 * 10,000 (16 × 2 × 10,000 = 320,000 child derivations). From 0.3 s after that request is sent until its
 * answer arrives, key B looks up an address every 0.5 s, each probe on its own connection, fired on a timer
 * without waiting for the previous one; every probe's latency is kept. Then A sends the same wallet again
 * at once. Scenario WS: an anonymous WebSocket sends one subscribe with 5 such multisigs (fresh keys) at
 * range 2,500 (400,000 derivations); B probes the same way until the reply arrives. At least 3 probes are
 * fired in either scenario, so an answer faster than the first probe still leaves figures.
 *
 * Goals (after): B's probes answered 200 with a median ≤ 250 ms and none over 1 s, in both scenarios; the
 * subscribe answered within 5 s; the second heavy wallet in a row not answered 200.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import WebSocket from 'ws';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { ecc } from '../src/wallet/ecc.js';
import { trackChild, trackDir, untrackDir } from './emergency.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';
import { SyntheticChain } from './synthetic-chain.js';

const AFTER_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE_ENV = 'ADDRSUM_BENCH_BEFORE_REPO';
const ROUNDS_ENV = 'ADDRSUM_BENCH_WALLET_ROUNDS';
/** A regtest bech32 address, never on chain here: the lookup answers 200 with zeros. */
const ADDRESS = 'rltc1qcswcz6dxhm2pgd6amemskh48azmfleqsrgcuyd';
const LOOKUP = `/api/v1/LTC/address/${ADDRESS}`;
const MULTISIG_KEYS = 16;
const HTTP_RANGE = 10_000;
const WS_WALLETS = 5;
const WS_RANGE = 2500;
const HTTP_DERIVATIONS = MULTISIG_KEYS * 2 * HTTP_RANGE;
const WS_DERIVATIONS = WS_WALLETS * MULTISIG_KEYS * 2 * WS_RANGE;
const PROBE_START_MS = 300;
const PROBE_EVERY_MS = 500;
const MIN_PROBES = 3;
/** Client-side deadline of every request and of the subscribe reply: the code before may take a minute. */
const TIMEOUT_MS = 300_000;
const GOALS = { probeMedianMs: 250, probeMaxMs: 1000, subscribeMs: 5000 };
/** api.requestTimeoutMs in config/default.toml on both sides: the API destroys a request's socket past it. */
const SERVER_DEADLINE_MS = 30_000;
const CORES = availableParallelism();
/** What api.walletThreads = 0 (the default) gives after the change (src/api/derivation-pool.ts). */
const DERIVATION_THREADS = Math.max(1, Math.min(4, CORES - 1));

const bip32 = BIP32Factory(ecc);
const say = (line: string): void => void process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** A 1-of-16 multisig of fresh tpubs, both branches: every script derives one child of each of the 16 keys. */
function multisig(): string {
  const keys = Array.from({ length: MULTISIG_KEYS }, () => bip32.fromSeed(randomBytes(32), networks.testnet).neutered().toBase58());
  return `wsh(multi(1,${keys.map((k) => `${k}/<0;1>/*`).join(',')}))`;
}

// --- the data directory and the API process ----------------------------------------------------------

interface DataDir {
  readonly dir: string;
  createKey(): string;
  remove(): void;
}

/** An LTC regtest index of two empty blocks at the node's height, and a keys.sqlite: what the API serves. */
function makeDataDir(): DataDir {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-wallet-fairness-'));
  trackDir(dir);
  const chain = ChainStore.open(path.join(dir, 'ltc.sqlite'), { chain: 'LTC', network: 'regtest' });
  try {
    const blocks = new SyntheticChain('wallet-fairness');
    chain.applyBlocks([blocks.block([]), blocks.block([])]);
    chain.setNodeHeight(1, new Date());
  } finally {
    chain.close();
  }
  return {
    dir,
    createKey() {
      const store = KeyStore.open(path.join(dir, 'keys.sqlite'));
      try {
        return store.create('private', 'wallet-fairness bench').key;
      } finally {
        store.close();
      }
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
      untrackDir(dir);
    },
  };
}

/** Environment for the API serving `dir`: LTC regtest, no node, no Redis, one process, anonymous callers allowed. */
function apiEnv(dir: string): Record<string, string> {
  return {
    ADDRSUM_DATA_DIR: dir,
    ADDRSUM_LTC_NETWORK: 'regtest',
    ADDRSUM_LTC_RPC_URL: 'http://user:pass@127.0.0.1:1',
    ADDRSUM_CONFIG: '',
    ADDRSUM_REDIS_URL: '',
    ADDRSUM_API_WORKERS: '',
    ADDRSUM_HOST: '127.0.0.1',
    ADDRSUM_PORT: '0',
    ADDRSUM_ALLOW_ANONYMOUS: 'true',
    ADDRSUM_LOG_LEVEL: 'info',
  };
}

interface Api {
  readonly url: string;
  stop(): Promise<void>;
}

/** The API's entry point in the checkout at `root`: a "before" checkout may predate src/api-process/. */
function apiEntryAt(root: string): string | null {
  return ['src/api-process/addrsum-api.ts', 'src/api/addrsum-api.ts'].find((entry) => existsSync(path.join(root, entry))) ?? null;
}

/** The real API of the repository at `root` (as harness/api-process.ts starts this one's), on a free port. */
async function startApiAt(root: string, env: Record<string, string>): Promise<Api> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', apiEntryAt(root)!], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // An API busy deriving on its event loop handles SIGTERM only afterwards: do not wait for that.
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`API did not start:\n${out}`)), 60_000);
      child.stdout!.on('data', (d: Buffer) => {
        // Kept only until it listens: the request log of a long run is not needed here.
        if (out.length < 1_000_000) out += d.toString();
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.stderr!.on('data', (d: Buffer) => {
        if (out.length < 1_000_000) out += d.toString();
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`API exited (${String(child.exitCode ?? child.signalCode)}):\n${out}`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

// --- requests and probes -------------------------------------------------------------------------------

interface Answer {
  /** The HTTP status, or what happened instead: the client's deadline passed, or the connection broke. */
  readonly status: number | 'timeout' | 'reset';
  readonly ms: number;
  readonly code: string | null;
}

/** One request on its own connection, timed from its start to the end of the answer. */
function call(url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: Answer['status'], text = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      let code: string | null = null;
      try {
        code = (JSON.parse(text) as { data?: { code?: string } }).data?.code ?? null;
      } catch {
        // not JSON: no code
      }
      resolve({ status, ms: performance.now() - started, code });
    };
    const req = http.request(url, { method: body === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done(res.statusCode ?? 0, text));
      res.on('error', () => done('reset'));
      res.on('aborted', () => done('reset'));
    });
    const timer = setTimeout(() => {
      done('timeout');
      req.destroy();
    }, TIMEOUT_MS);
    req.on('error', () => done('reset'));
    req.end(body);
  });
}

/**
 * Key B's lookups: the first PROBE_START_MS after now, then one every PROBE_EVERY_MS on a fixed schedule,
 * each without waiting for the others, until `until` settles (and at least MIN_PROBES); then every
 * probe's answer, the late ones included.
 */
async function probeUntil(baseUrl: string, key: string, until: Promise<unknown>): Promise<Answer[]> {
  let over = false;
  void until.then(
    () => (over = true),
    () => (over = true),
  );
  const start = performance.now();
  const fired: Promise<Answer>[] = [];
  for (let n = 0; !over || fired.length < MIN_PROBES; n++) {
    await sleep(Math.max(0, start + PROBE_START_MS + n * PROBE_EVERY_MS - performance.now()));
    if (over && fired.length >= MIN_PROBES) break;
    fired.push(call(baseUrl + LOOKUP, { 'x-api-key': key }));
  }
  return Promise.all(fired);
}

interface Probes {
  readonly count: number;
  readonly notOk: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly maxMs: number;
}

function probeFigures(answers: readonly Answer[]): Probes {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  return {
    count: answers.length,
    notOk: answers.filter((a) => a.status !== 200).length,
    medianMs: median(ms),
    p90Ms: percentile(ms, 0.9),
    maxMs: ms.at(-1) ?? Number.NaN,
  };
}

// --- the scenarios -------------------------------------------------------------------------------------

interface HttpFigures {
  readonly first: Answer;
  readonly second: Answer;
  readonly probes: Probes;
}

async function httpScenario(api: Api, keyA: string, keyB: string): Promise<HttpFigures> {
  const body = JSON.stringify({ key: multisig(), range: HTTP_RANGE });
  const post = (): Promise<Answer> =>
    call(
      `${api.url}/api/v1/LTC/xpub`,
      { 'x-api-key': keyA, 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    );
  const first = post();
  const probes = probeFigures(await probeUntil(api.url, keyB, first));
  const answered = await first;
  say(
    `  HTTP: heavy wallet ${answered.status} in ${(answered.ms / 1000).toFixed(1)} s; ${probes.count} probes, max ${probes.maxMs.toFixed(0)} ms`,
  );
  const second = await post();
  say(`  HTTP: the same wallet again: ${second.status}${second.code ? ` ${second.code}` : ''} in ${(second.ms / 1000).toFixed(2)} s`);
  return { first: answered, second, probes };
}

interface WsReply {
  /** "success"/"fail" as the reply says, or what happened instead. */
  readonly status: string;
  readonly code: string | null;
  readonly ms: number;
}

interface WsFigures {
  readonly reply: WsReply;
  readonly probes: Probes;
}

async function wsScenario(api: Api, keyB: string): Promise<WsFigures> {
  const xpubs = Array.from({ length: WS_WALLETS }, () => ({ key: multisig(), range: WS_RANGE }));
  const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/api/v1/ws`);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('wallet-fairness bench: the WebSocket did not open in 30 s')), 30_000);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    let started = 0;
    const reply = new Promise<WsReply>((resolve) => {
      const timer = setTimeout(() => resolve({ status: 'timeout', code: null, ms: performance.now() - started }), TIMEOUT_MS);
      ws.on('message', (raw: Buffer) => {
        const m = JSON.parse(raw.toString()) as { id?: unknown; status?: string; data?: { code?: string } };
        if (m.id !== 1) return;
        clearTimeout(timer);
        resolve({ status: m.status ?? 'no status', code: m.data?.code ?? null, ms: performance.now() - started });
      });
      ws.once('close', (code: number) => {
        clearTimeout(timer);
        resolve({ status: `closed ${code}`, code: null, ms: performance.now() - started });
      });
    });
    started = performance.now();
    ws.send(JSON.stringify({ op: 'subscribe', id: 1, chain: 'LTC', xpubs }));
    const probes = probeFigures(await probeUntil(api.url, keyB, reply));
    const answered = await reply;
    say(
      `  WS: subscribe ${answered.status}${answered.code ? ` ${answered.code}` : ''} in ${(answered.ms / 1000).toFixed(2)} s; ` +
        `${probes.count} probes, max ${probes.maxMs.toFixed(0)} ms`,
    );
    return { reply: answered, probes };
  } finally {
    ws.terminate();
  }
}

// --- runs and the report -------------------------------------------------------------------------------

type Side = 'before' | 'after';

interface RunFigures {
  readonly side: Side;
  readonly load: number;
  readonly http: HttpFigures;
  readonly ws: WsFigures;
}

async function run(side: Side, root: string): Promise<RunFigures> {
  const load = loadavg()[0]!;
  say(`${side}: load average ${load.toFixed(2)}`);
  const data = makeDataDir();
  let api: Api | null = null;
  try {
    const keyA = data.createKey();
    const keyB = data.createKey();
    api = await startApiAt(root, apiEnv(data.dir));
    const http = await httpScenario(api, keyA, keyB);
    await sleep(1000);
    const ws = await wsScenario(api, keyB);
    return { side, load, http, ws };
  } finally {
    await api?.stop();
    data.remove();
  }
}

function afterGoals(r: RunFigures): { probes: boolean; subscribe: boolean; second: boolean } {
  const ok = (p: Probes): boolean => p.notOk === 0 && p.medianMs <= GOALS.probeMedianMs && p.maxMs <= GOALS.probeMaxMs;
  return {
    probes: ok(r.http.probes) && ok(r.ws.probes),
    subscribe: r.ws.reply.ms <= GOALS.subscribeMs,
    second: r.http.second.status !== 200,
  };
}

function commitOf(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const status = (a: Answer): string => `${a.status}${a.code ? ` ${a.code}` : ''}`;

interface Row {
  readonly name: string;
  readonly cell: (r: RunFigures) => string;
  /** A number per run for the ratio before ÷ after (of the runs' means); none for statuses. */
  readonly value?: (r: RunFigures) => number;
}

const msCell = (v: number): string => (Number.isFinite(v) ? v.toFixed(0) : '—');
const sCell = (v: number): string => (v / 1000).toFixed(v < 10_000 ? 2 : 1);

function probeRows(scenario: 'HTTP' | 'WS', pick: (r: RunFigures) => Probes): Row[] {
  return [
    { name: `${scenario}: B's probes (not 200)`, cell: (r) => `${pick(r).count} (${pick(r).notOk})` },
    { name: `${scenario}: probe median, ms`, cell: (r) => msCell(pick(r).medianMs), value: (r) => pick(r).medianMs },
    { name: `${scenario}: probe p90, ms`, cell: (r) => msCell(pick(r).p90Ms), value: (r) => pick(r).p90Ms },
    { name: `${scenario}: probe max, ms`, cell: (r) => msCell(pick(r).maxMs), value: (r) => pick(r).maxMs },
  ];
}

const ROWS: Row[] = [
  { name: '1-min load average at the run start', cell: (r) => r.load.toFixed(2) },
  { name: `HTTP: heavy wallet of A (${HTTP_DERIVATIONS.toLocaleString('en')} derivations): status`, cell: (r) => status(r.http.first) },
  { name: 'HTTP: heavy wallet of A: time, s', cell: (r) => sCell(r.http.first.ms), value: (r) => r.http.first.ms },
  ...probeRows('HTTP', (r) => r.http.probes),
  { name: 'HTTP: the same wallet again at once: status', cell: (r) => status(r.http.second) },
  // No ratio: before it is a cache hit answered 200, after it a refusal; both take milliseconds.
  { name: 'HTTP: the same wallet again: time, s', cell: (r) => sCell(r.http.second.ms) },
  {
    name: `WS: anonymous subscribe of ${WS_WALLETS} wallets (${WS_DERIVATIONS.toLocaleString('en')} derivations): reply`,
    cell: (r) => `${r.ws.reply.status}${r.ws.reply.code ? ` ${r.ws.reply.code}` : ''}`,
  },
  { name: 'WS: reply time, s', cell: (r) => sCell(r.ws.reply.ms), value: (r) => r.ws.reply.ms },
  ...probeRows('WS', (r) => r.ws.probes),
];

function table(runs: readonly RunFigures[], withBefore: boolean): string {
  const of = (side: Side) => runs.filter((r) => r.side === side);
  const before = of('before');
  const after = of('after');
  const cells = (rs: readonly RunFigures[], row: Row): string => rs.map(row.cell).join(' / ');
  const ratio = (row: Row): string => {
    if (!row.value || before.length === 0 || after.length === 0) return '';
    const r = mean(before.map(row.value)) / mean(after.map(row.value));
    return Number.isFinite(r) ? `${r.toFixed(r < 10 ? 2 : 0)}×` : '—';
  };
  if (!withBefore) {
    return ['| measure | after |', '|---|---:|', ...ROWS.map((row) => `| ${row.name} | ${cells(after, row)} |`)].join('\n');
  }
  return [
    `| measure | before (${before.length === 1 ? 'one run' : 'run 1 / run 2 …'}) | after (${after.length === 1 ? 'one run' : 'run 1 / run 2 …'}) | before ÷ after |`,
    '|---|---:|---:|---:|',
    ...ROWS.map((row) => `| ${row.name} | ${cells(before, row)} | ${cells(after, row)} | ${ratio(row)} |`),
  ].join('\n');
}

/** What the figures of this run call for in words: unanswered requests, answers past the deadline, a refusal before deriving. */
function notes(runs: readonly RunFigures[]): string[] {
  const out: string[] = [];
  for (const side of ['before', 'after'] as const) {
    const rs = runs.filter((r) => r.side === side);
    const cut = rs.filter((r) => r.http.first.status !== 200);
    if (cut.length > 0) {
      out.push(
        `${side}: in ${cut.length} of ${rs.length} runs the heavy wallet got no 200 (${cut.map((r) => `${status(r.http.first)} after ${sCell(r.http.first.ms)} s`).join(', ')}). ` +
          `"reset" is a connection closed without an answer, "timeout" no answer within the client's ${TIMEOUT_MS / 1000} s; the API ` +
          `destroys a request's socket ${SERVER_DEADLINE_MS / 1000} s after it arrived (\`api.requestTimeoutMs\`)${
            side === 'after'
              ? ', and after the change its event loop is free to do so while the derivation threads are still at work (the ' +
                "wallet's tokens are already charged; the derivation goes on and is cached)"
              : ''
          }.`,
      );
    }
    const late = rs.filter((r) => r.http.first.status === 200 && r.http.first.ms > SERVER_DEADLINE_MS);
    if (late.length > 0) {
      out.push(
        `${side}: in ${late.length} of ${rs.length} runs the heavy wallet was answered 200 after more than the ${SERVER_DEADLINE_MS / 1000} s request ` +
          `deadline${side === 'before' ? ': the deadline is a timer on the event loop, which the derivation held' : ''}.`,
      );
    }
  }
  const after = runs.filter((r) => r.side === 'after');
  if (after.length > 0 && after.every((r) => r.ws.reply.code === 'TOO_MANY_SUBSCRIPTIONS')) {
    out.push(
      'WS: after the change the subscribe is refused by the subscription caps before anything is derived, so its probes ' +
        `(the minimum of ${MIN_PROBES}) ran beside an idle derivation pool` +
        (runs.some((r) => r.side === 'before' && r.ws.reply.code === 'TOO_MANY_SUBSCRIPTIONS')
          ? `; before it, the API derived all ${WS_DERIVATIONS.toLocaleString('en')} on its event loop and only then refused the subscribe.`
          : '.'),
    );
  }
  const both = ['before', 'after'].map((side) => runs.filter((r) => r.side === side && r.http.first.status === 200));
  if (both.every((rs) => rs.length > 0)) {
    const [b, a] = both.map((rs) => mean(rs.map((r) => r.http.first.ms))) as [number, number];
    out.push(
      `HTTP: the heavy wallet itself (runs answered 200) took ${sCell(b)} s before and ${sCell(a)} s after: the change moves the ` +
        'derivation off the event loop and shares it fairly, it does not make it faster (here ' +
        `${DERIVATION_THREADS} derivation thread${DERIVATION_THREADS === 1 ? '' : 's'}: \`api.walletThreads\` = 0 is one fewer than the ${CORES} cores).`,
    );
  }
  return out;
}

export async function runWalletFairnessBench(): Promise<{ goalMet: boolean }> {
  const startLoad = loadavg();
  const beforeRoot = process.env[BEFORE_ENV] || null;
  if (beforeRoot !== null && apiEntryAt(beforeRoot) === null) {
    throw new Error(`wallet-fairness bench: ${BEFORE_ENV} does not name a checkout of this repository`);
  }
  const rounds = Math.max(1, Number(process.env[ROUNDS_ENV] ?? 2) || 2);
  const runs: RunFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    if (beforeRoot !== null) runs.push(await run('before', beforeRoot));
    runs.push(await run('after', AFTER_ROOT));
  }
  const after = runs.filter((r) => r.side === 'after');
  const goals = after.map(afterGoals);
  const probesOk = goals.every((g) => g.probes);
  const subscribeOk = goals.every((g) => g.subscribe);
  const secondOk = goals.every((g) => g.second);
  const goalMet = probesOk && subscribeOk && secondOk;
  const verdict = (name: string, ok: boolean): string => `${name} **${ok ? 'met' : 'missed'}**`;
  const sides =
    beforeRoot !== null
      ? `before = commit ${commitOf(beforeRoot)} (the checkout named by \`${BEFORE_ENV}\`), after = commit ${commitOf(AFTER_ROOT)}; ` +
        `${rounds} round${rounds === 1 ? '' : 's'} of (before, after), alternating`
      : `**only "after" was measured** (commit ${commitOf(AFTER_ROOT)}): \`${BEFORE_ENV}\` was not set; ${rounds} run${rounds === 1 ? '' : 's'}`;
  writeSection(
    'wallet-fairness',
    `## wallet-fairness — a heavy wallet request does not stall other callers (issue 31)

Goals (after the change): another key's address lookups answered 200 with a median ≤ ${GOALS.probeMedianMs} ms and none over
${GOALS.probeMaxMs / 1000} s while a heavy wallet derives, over HTTP and over a WebSocket subscribe; the subscribe answered within
${GOALS.subscribeMs / 1000} s; the same heavy wallet sent again at once not answered 200.
${verdict('Lookups', probesOk)}, ${verdict('subscribe', subscribeOk)}, ${verdict('second wallet refused', secondOk)}.

${table(runs, beforeRoot !== null)}

Runs: ${sides}.
Each run: a fresh data directory (an LTC regtest index of two empty blocks, a keys.sqlite
with two \`private\` keys A and B) and its own API process of that side (\`node --import tsx src/api-process/addrsum-api.ts\`,
default settings: one process, \`api.walletThreads\` = 0 (one fewer than the cores), \`api.requestTimeoutMs\` = 30000,
anonymous callers allowed), stopped after the run.
**HTTP:** A POSTs \`/api/v1/LTC/xpub\` with \`wsh(multi(1, 16 fresh tpubs/<0;1>/*))\` at range ${HTTP_RANGE.toLocaleString('en')}
(${HTTP_DERIVATIONS.toLocaleString('en')} child derivations, ${(2 * HTTP_RANGE).toLocaleString('en')} scripts); from ${PROBE_START_MS / 1000} s after it is sent until
its answer arrives, B GETs \`/api/v1/LTC/address/…\` every ${PROBE_EVERY_MS / 1000} s on a timer, each probe on its own connection and
not waiting for the others (at least ${MIN_PROBES}); a probe's latency runs from its start to the end of its answer, so probes
sent during a stall count the whole wait. Then A sends the same wallet again at once.
**WS:** an anonymous WebSocket sends one subscribe of ${WS_WALLETS} such multisigs (fresh keys) at range ${WS_RANGE.toLocaleString('en')}
(${WS_DERIVATIONS.toLocaleString('en')} derivations, ${(WS_WALLETS * 2 * WS_RANGE) / 200} subscriptions as the caps count wallets, over the anonymous
per-connection cap of 100); B probes the same way until the reply arrives. Client deadline ${TIMEOUT_MS / 1000} s per request.
A ratio is the mean of the before runs over the mean of the after runs.
${notes(runs)
  .map((n) => `\n- ${n}`)
  .join('')}

Measured on a shared ${CORES}-core machine with other jobs running: 1-min / 5-min / 15-min load average at the start
${startLoad.map((l) => l.toFixed(2)).join(' / ')} (each run's own in the table), so absolute times are inflated and the sides
are compared run by run. ${machineLine()}, ${today()}. Command:
\`${BEFORE_ENV}=<checkout of the code before> npx tsx bench/wallet-fairness.ts\` (or \`npm run bench -- wallet-fairness\`;
\`${ROUNDS_ENV}\` sets the rounds, default 2).`,
  );
  return { goalMet };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A missed goal is a measurement, not a failure (bench/run.ts).
  await runWalletFairnessBench();
  process.exit(0);
}
