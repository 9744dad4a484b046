/**
 * Benchmark "scale-out" (issue 34): the index in PostgreSQL beside the same index in SQLite, side by side
 * in one run (`npm run bench -- scale-out`). PostgreSQL is a throwaway primary and a streaming standby
 * (harness/postgres.ts) on this machine, so API, database and load generator share its cores: the
 * figures are the whole cost of each engine, and the SQLite ones are measured under the same load.
 *
 * (a) block apply: the same chain into each engine through the writer port: BASE_TXS × 100 outputs in
 *     one batch, then APPLY_BLOCKS blocks of TXS_PER_BLOCK spends, one commit each (blocks/s); ROUNDS
 *     rounds, a fresh index each, the engine going first alternating.
 * (b) lookup latency over loopback: one keep-alive connection, sequential GETs of one address (p50/p99)
 *     from the API on SQLite, on the PostgreSQL primary, and on the standby.
 * (c) API req/s per process: 10 connections, closed loop, windows alternating SQLite / standby.
 * (d) commit on the primary to an answer from the standby's API while following blocks: a block is
 *     committed every FOLLOW_EVERY_MS; the standby's API is asked every 2 ms until it states it.
 * (e) the aggregate req/s of 1, 2 and 4 API processes on one standby (10 connections each).
 * Goals: lookup p99 ≤ 2 ms; req/s ≥ 0.5× SQLite's; block apply ≥ 0.5× SQLite's; (d) p99 ≤ 1 s.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApi, type ApiProcess } from '../harness/api-process.js';
import { startPrimary, startStandby, waitForReplay, type PgCluster } from '../harness/postgres.js';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import type { BlockToApply } from '../src/store/index-model.js';
import type { IndexWriter } from '../src/store/ports.js';
import { openPostgresReader, openPostgresWriter } from '../src/store/postgres/engine.js';
import { openSqliteReader, openSqliteWriter } from '../src/store/sqlite/engine.js';
import type { IndexReader } from '../src/store/ports.js';
import { addressToScript } from '../src/chain/address.js';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { timedRequest } from './bench-api.js';
import { trackChild, trackDir, untrackDir } from './emergency.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';
import { p2wpkh, sha, SyntheticChain } from './synthetic-chain.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 1 : 3;
const BASE_TXS = QUICK ? 500 : 2_000;
const OUTPUTS_PER_BASE_TX = 100;
const SCRIPTS = 50_000;
const APPLY_BLOCKS = QUICK ? 10 : 30;
const TXS_PER_BLOCK = 2_000;
const FOLLOW_BLOCKS = QUICK ? 20 : 60;
const FOLLOW_TXS = 200;
const FOLLOW_EVERY_MS = 250;
const LOOKUPS = QUICK ? 2_000 : 10_000;
const LATENCY_ROUNDS = QUICK ? 1 : 3;
const WARMUP_LOOKUPS = 1_000;
const LOAD_SECONDS = QUICK ? 4 : 8;
const LOAD_ROUNDS = QUICK ? 1 : 3;
const CONNECTIONS = 10;
const TARGET_UTXOS = 7;
const GOAL = { p99Ms: 2, rps: 0.5, apply: 0.5, followP99Ms: 1000 };

interface Autocannon {
  (
    opts: object,
    cb: (err: Error | null, result: { requests: { total: number }; duration: number; non2xx: number; errors: number }) => void,
  ): unknown;
}
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

type Engine = 'sqlite' | 'postgres';

/** The chain both engines index: base coins, blocks that spend them, and the blocks followed in (d). */
interface Plan {
  base: BlockToApply[];
  apply: BlockToApply[];
  follow: BlockToApply[];
  address: string;
  balance: bigint;
}

function makePlan(): Plan {
  const chain = new SyntheticChain('scale-out');
  const target = p2wpkh('scale-out target');
  const scripts = Array.from({ length: SCRIPTS }, (_, i) => p2wpkh(`scale-out script ${i}`));
  const spendable: { prevTxid: Buffer; vout: number }[] = [];
  let balance = 0n;
  const base: BlockToApply[] = [chain.block([chain.tx('genesis', [{ script: target, value: 1 }], true)])];
  const targetOutputs = Array.from({ length: TARGET_UTXOS }, (_, i) => ({ script: target, value: 10_000 + i }));
  for (const o of targetOutputs) balance += BigInt(o.value);
  base.push(chain.block([chain.tx('coinbase 1', [{ script: scripts[0]!, value: 50e8 }], true), chain.tx('target', targetOutputs, false)]));
  for (let made = 0; made < BASE_TXS;) {
    const txs = [chain.tx(`coinbase base ${made}`, [{ script: scripts[1]!, value: 50e8 }], true)];
    for (let i = 0; i < 100 && made < BASE_TXS; i++, made++) {
      const outputs = Array.from({ length: OUTPUTS_PER_BASE_TX }, (_, o) => ({
        script: scripts[((made * OUTPUTS_PER_BASE_TX + o) * 7919) % SCRIPTS]!,
        value: 10_000 + ((made + o) % 1000),
      }));
      const tx = chain.tx(`base ${made}`, outputs, false);
      for (let vout = 0; vout < outputs.length; vout++) spendable.push({ prevTxid: tx.txid, vout });
      txs.push(tx);
    }
    base.push(chain.block(txs));
  }
  // Spent in a scattered order, as a real chain's inputs are.
  let pick = 0;
  const next = (): { prevTxid: Buffer; vout: number } => spendable[(pick++ * 104_729) % spendable.length]!;
  const spending = (label: string, count: number): BlockToApply => {
    const txs: ParsedTx[] = [chain.tx(`coinbase ${label}`, [{ script: scripts[2]!, value: 50e8 }], true)];
    for (let t = 1; t < count; t++) {
      const seq = pick;
      txs.push({
        txid: sha(`scale-out ${label} ${t}`),
        inputs: [next()],
        outputs: [
          { script: scripts[(seq * 31) % SCRIPTS]!, value: 5_000n },
          { script: p2wpkh(`scale-out change ${seq}`), value: 4_000n },
        ],
        coinbase: false,
        hogEx: false,
        mweb: false,
      });
    }
    return chain.block(txs);
  };
  const apply = Array.from({ length: APPLY_BLOCKS }, (_, b) => spending(`apply ${b}`, TXS_PER_BLOCK));
  const follow = Array.from({ length: FOLLOW_BLOCKS }, (_, b) => spending(`follow ${b}`, FOLLOW_TXS));
  if (pick > spendable.length) throw new Error('scale-out bench: more spends than base coins');
  return { base, apply, follow, address: scriptToAddress(chainParams('LTC', 'mainnet'), target)!, balance };
}

const WRITER = { chain: 'LTC', network: 'mainnet', undoDepth: 100 } as const;

/** Builds the base in one commit, then times the apply blocks one commit each; leaves the writer open. */
async function buildAndApply(writer: IndexWriter, plan: Plan): Promise<number> {
  await writer.applyBlocks(plan.base);
  const started = performance.now();
  for (const block of plan.apply) await writer.applyBlocks([block]);
  const blocksPerSec = plan.apply.length / ((performance.now() - started) / 1000);
  const tip = (await writer.tip())!;
  await writer.setNodeHeight(tip.height, new Date());
  return blocksPerSec;
}

interface Served {
  api: ApiProcess;
  key: string;
}

async function serve(dir: string, env: Record<string, string>): Promise<Served> {
  const keys = KeyStore.open(path.join(dir, 'keys.sqlite'));
  const key = keys.create('private', 'scale-out bench').key;
  keys.close();
  const config = path.join(dir, `api-${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(config, '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
  const api = await startApi({
    ADDRSUM_CONFIG: config,
    ADDRSUM_DATA_DIR: dir,
    ADDRSUM_SERVE_CHAINS: 'LTC',
    ADDRSUM_LTC_NETWORK: 'mainnet',
    ADDRSUM_STALE_AFTER_SECONDS: '0',
    ADDRSUM_REQUEST_LOG: 'errors',
    ...env,
  });
  trackChild(api.child);
  return { api, key };
}

/** VACUUM (ANALYZE) and CHECKPOINT on the database at `url`: no background catch-up left from the bulk writes. */
async function settle(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** Sequential lookups over one kept-alive connection: what one request costs, not a queue. */
async function latency(s: Served, address: string, expected: bigint): Promise<{ p50: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { port } = new URL(s.api.url);
  const headers = { 'x-api-key': s.key };
  const one = async (): Promise<number> => {
    const r = await timedRequest(agent, '127.0.0.1', port, `/api/v1/LTC/address/${address}`, headers);
    if (r.status !== 200 || !r.text.includes(`"balanceSatoshi":${expected},`)) throw new Error(`scale-out bench: ${r.status} ${r.text}`);
    return r.ms;
  };
  try {
    for (let i = 0; i < WARMUP_LOOKUPS; i++) await one();
    const ms: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) ms.push(await one());
    ms.sort((a, b) => a - b);
    return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
  } finally {
    agent.destroy();
  }
}

/** The same lookup through the reader port in this process: what the engine's read costs without HTTP. */
async function readLatency(reader: IndexReader, address: string): Promise<{ p50: number; p99: number }> {
  const decoded = addressToScript(chainParams('LTC', 'mainnet'), address);
  if (!decoded.ok) throw decoded.error;
  try {
    for (let i = 0; i < WARMUP_LOOKUPS; i++) await reader.summary(decoded.script);
    const ms: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const started = performance.now();
      await reader.summary(decoded.script);
      ms.push(performance.now() - started);
    }
    ms.sort((a, b) => a - b);
    return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
  } finally {
    await reader.close();
  }
}

/** Closed-loop load on every target at once for LOAD_SECONDS; req/s answered 200 by each. */
async function rps(targets: readonly Served[], address: string): Promise<number[]> {
  return Promise.all(
    targets.map(
      (t) =>
        new Promise<number>((resolve, reject) => {
          autocannon(
            {
              url: `${t.api.url}/api/v1/LTC/address/${address}`,
              connections: CONNECTIONS,
              duration: LOAD_SECONDS,
              headers: { 'x-api-key': t.key },
            },
            (err, result) => {
              if (err) return reject(err);
              if (result.non2xx > 0 || result.errors > 0)
                return reject(new Error(`scale-out bench: ${result.non2xx} non-2xx, ${result.errors} errors at ${t.api.url}`));
              resolve(result.requests.total / result.duration);
            },
          );
        }),
    ),
  );
}

/** (d): a block on the primary every FOLLOW_EVERY_MS; ms from each commit to the standby's API stating it. */
async function followLatency(writer: IndexWriter, onStandby: Served, plan: Plan): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { port } = new URL(onStandby.api.url);
  const headers = { 'x-api-key': onStandby.key };
  const samples: number[] = [];
  try {
    for (const block of plan.follow) {
      await writer.applyBlocks([block], { height: block.height, at: new Date() });
      const committed = performance.now();
      for (;;) {
        const r = await timedRequest(agent, '127.0.0.1', port, `/api/v1/LTC/address/${plan.address}`, headers);
        if (r.status === 200 && r.text.includes(`"blockHeight":${block.height},`)) break;
        if (performance.now() - committed > 30_000) throw new Error(`scale-out bench: the standby never stated ${block.height}: ${r.text}`);
        await sleep(2);
      }
      samples.push(performance.now() - committed);
      await sleep(FOLLOW_EVERY_MS);
    }
  } finally {
    agent.destroy();
  }
  return samples.sort((a, b) => a - b);
}

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const met = (ok: boolean): string => (ok ? 'met' : 'not met');

export async function runScaleOutBench(): Promise<{ goalMet: boolean }> {
  const load = loadavg()[0]!;
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-scale-out-'));
  trackDir(dir);
  const say = (line: string): void => console.log(`scale-out: ${line}`);
  const plan = makePlan();
  const clusters: PgCluster[] = [];
  const servers: Served[] = [];
  try {
    // A cache as a real server has (the harness's 32MB is for tests), as SQLite gets its cache_size.
    const primary = await startPrimary({
      settings: { hot_standby_feedback: 'on', max_standby_streaming_delay: '5s', shared_buffers: '512MB' },
    });
    clusters.push(primary);
    // (a) block apply, alternating; the last round's indexes are the ones served.
    const apply: Record<Engine, number[]> = { sqlite: [], postgres: [] };
    let pgUrl = '';
    let sqliteDir = '';
    for (let round = 0; round < ROUNDS; round++) {
      const engines: Engine[] = round % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
      for (const engine of engines) {
        if (engine === 'sqlite') {
          sqliteDir = path.join(dir, `sqlite-${round}`);
          const writer = openSqliteWriter(chainDbPath(sqliteDir, 'LTC'), WRITER);
          apply.sqlite.push(await buildAndApply(writer, plan).finally(() => writer.close()));
        } else {
          await primary.sql(`CREATE DATABASE scale_out_${round}`);
          const url = new URL(primary.url);
          url.pathname = `/scale_out_${round}`;
          pgUrl = url.toString();
          const writer = await openPostgresWriter(pgUrl, WRITER);
          apply.postgres.push(await buildAndApply(writer, plan).finally(() => writer.close()));
        }
        say(`round ${round + 1} ${engine}: ${fmt(apply[engine].at(-1)!, 2)} blocks/s`);
      }
    }
    // Settled before anything is served: the earlier rounds' databases dropped and the served one vacuumed
    // and checkpointed, as an operator does after a bulk load. Otherwise autovacuum and the checkpointer
    // work through three databases' churn while (b) measures, and their I/O is what the tail shows.
    for (let round = 0; round < ROUNDS - 1; round++) await primary.sql(`DROP DATABASE IF EXISTS scale_out_${round}`);
    await settle(pgUrl);
    const standby = await startStandby(primary);
    clusters.push(standby);
    await waitForReplay(primary, standby);
    const standbyUrl = new URL(pgUrl);
    standbyUrl.port = String(standby.port);

    // Each API's own data directory: its keys.sqlite, and no index file (the index is in PostgreSQL).
    const keysDir = (name: string): string => mkdtempSync(path.join(dir, `${name}-`));
    const onSqlite = await serve(sqliteDir, {});
    const onPrimary = await serve(keysDir('primary'), { ADDRSUM_LTC_INDEX_URL: pgUrl });
    const onStandby = await serve(keysDir('standby'), { ADDRSUM_LTC_INDEX_URL: standbyUrl.toString() });
    servers.push(onSqlite, onPrimary, onStandby);

    // (b) latency, one connection, LATENCY_ROUNDS rounds in a rotating order; the median of each figure.
    // Unpinned: pinning the servers to one core (API and database backend taking turns on it) made every
    // p99 worse here, SQLite's too.
    const targets = { sqlite: onSqlite, primary: onPrimary, standby: onStandby };
    const rounds: Record<keyof typeof targets, { p50: number; p99: number }[]> = { sqlite: [], primary: [], standby: [] };
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      const names = Object.keys(targets) as (keyof typeof targets)[];
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length]!;
        rounds[name].push(await latency(targets[name], plan.address, plan.balance));
      }
    }
    const mid = (xs: { p50: number; p99: number }[]) => ({ p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)) });
    const lat = { sqlite: mid(rounds.sqlite), primary: mid(rounds.primary), standby: mid(rounds.standby) };
    const p99s = (name: keyof typeof targets): string => rounds[name].map((r) => fmt(r.p99, 2)).join(', ');
    say(`latency p99 rounds: sqlite ${p99s('sqlite')}; primary ${p99s('primary')}; standby ${p99s('standby')}`);
    say(`latency p99: sqlite ${fmt(lat.sqlite.p99, 2)} ms, primary ${fmt(lat.primary.p99, 2)} ms, standby ${fmt(lat.standby.p99, 2)} ms`);
    const read = {
      sqlite: await readLatency(openSqliteReader(chainDbPath(sqliteDir, 'LTC')), plan.address),
      standby: await readLatency(await openPostgresReader(standbyUrl.toString(), WRITER), plan.address),
    };

    // (c) req/s per process, alternating.
    const perProcess: Record<'sqlite' | 'standby', number[]> = { sqlite: [], standby: [] };
    await rps([onSqlite], plan.address); // warm-up
    await rps([onStandby], plan.address);
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      const order: ('sqlite' | 'standby')[] = round % 2 === 0 ? ['sqlite', 'standby'] : ['standby', 'sqlite'];
      for (const side of order) perProcess[side].push((await rps([side === 'sqlite' ? onSqlite : onStandby], plan.address))[0]!);
    }
    say(`req/s: sqlite ${fmt(median(perProcess.sqlite))}, standby ${fmt(median(perProcess.standby))}`);

    // (e) 1, 2, 4 API processes on the standby.
    const pool = [onStandby];
    while (pool.length < 4) {
      const s = await serve(keysDir(`standby-${pool.length}`), { ADDRSUM_LTC_INDEX_URL: standbyUrl.toString() });
      servers.push(s);
      pool.push(s);
    }
    const aggregate: Record<number, number> = {};
    for (const n of [1, 2, 4]) {
      const rounds: number[] = [];
      for (let r = 0; r < LOAD_ROUNDS; r++) rounds.push((await rps(pool.slice(0, n), plan.address)).reduce((a, b) => a + b, 0));
      aggregate[n] = median(rounds);
      say(`${n} API processes on the standby: ${fmt(aggregate[n])} req/s`);
    }

    // (d) commit → standby answer while following blocks.
    const writer = await openPostgresWriter(pgUrl, WRITER);
    const follow = await followLatency(writer, onStandby, plan).finally(() => writer.close());
    const followP50 = percentile(follow, 0.5);
    const followP99 = percentile(follow, 0.99);
    say(`commit → standby answer: p50 ${fmt(followP50, 1)} ms, p99 ${fmt(followP99, 1)} ms`);

    const applyRatio = median(apply.postgres) / median(apply.sqlite);
    const rpsRatio = median(perProcess.standby) / median(perProcess.sqlite);
    const goals = {
      p99: Math.max(lat.primary.p99, lat.standby.p99) <= GOAL.p99Ms,
      rps: rpsRatio >= GOAL.rps,
      apply: applyRatio >= GOAL.apply,
      follow: followP99 <= GOAL.followP99Ms,
    };
    const lines = [
      '## scale-out — the index in PostgreSQL (primary and streaming standby) beside SQLite (issue 34)',
      '',
      `Command: \`npm run bench -- scale-out\`${QUICK ? ' (BENCH_QUICK=1)' : ''}. One synthetic LTC chain indexed by both engines through the writer port:`,
      `${fmt(BASE_TXS * OUTPUTS_PER_BASE_TX)} coins over ${fmt(SCRIPTS)} scripts in one commit, then ${APPLY_BLOCKS} blocks of ${fmt(TXS_PER_BLOCK)} spends,`,
      `one commit each (${ROUNDS} rounds, fresh indexes, the engine going first alternating). PostgreSQL 15: a throwaway primary and a`,
      'streaming standby (`pg_basebackup -R`, `hot_standby_feedback = on`, `shared_buffers = 512MB`) on this machine; nothing pinned, so API processes, PostgreSQL',
      `and the load generator share its cores. Run ${today()}, load average ${load.toFixed(1)} at start; ${machineLine()}.`,
      '',
      '| measure | SQLite | PostgreSQL | PostgreSQL ÷ SQLite | goal | |',
      '| --- | ---: | ---: | ---: | --- | --- |',
      `| block apply, ${fmt(TXS_PER_BLOCK)}-tx blocks, one commit each (median) | ${fmt(median(apply.sqlite), 2)} blocks/s | ${fmt(median(apply.postgres), 2)} blocks/s | **${applyRatio.toFixed(2)}×** | ≥ 0.5× | ${met(goals.apply)} |`,
      `| API req/s, one process, ${CONNECTIONS} connections (median of ${LOAD_ROUNDS}) | ${fmt(median(perProcess.sqlite))} | ${fmt(median(perProcess.standby))} (on the standby) | **${rpsRatio.toFixed(2)}×** | ≥ 0.5× | ${met(goals.rps)} |`,
      `| lookup over loopback, one connection, p50 / p99 (${fmt(LOOKUPS)} sequential, median of ${LATENCY_ROUNDS} rounds) | ${fmt(lat.sqlite.p50, 2)} / ${fmt(lat.sqlite.p99, 2)} ms | primary ${fmt(lat.primary.p50, 2)} / **${fmt(lat.primary.p99, 2)}** ms; standby ${fmt(lat.standby.p50, 2)} / **${fmt(lat.standby.p99, 2)}** ms | – | p99 ≤ 2 ms | ${met(goals.p99)} |`,
      `| the reader port's summary in-process, no HTTP, p50 / p99 (not a goal) | ${fmt(read.sqlite.p50, 2)} / ${fmt(read.sqlite.p99, 2)} ms | standby ${fmt(read.standby.p50, 2)} / ${fmt(read.standby.p99, 2)} ms | – | – | |`,
      `| commit on the primary → the standby's API states it, p50 / p99 (${FOLLOW_BLOCKS} blocks of ${FOLLOW_TXS} txs, one every ${FOLLOW_EVERY_MS} ms) | – | ${fmt(followP50, 1)} / **${fmt(followP99, 1)}** ms | – | p99 ≤ 1 s | ${met(goals.follow)} |`,
      '',
      '| API processes on one standby | 1 | 2 | 4 |',
      '| --- | ---: | ---: | ---: |',
      `| aggregate req/s (${CONNECTIONS} connections each, median of ${LOAD_ROUNDS}) | ${fmt(aggregate[1]!)} | ${fmt(aggregate[2]!)} | ${fmt(aggregate[4]!)} |`,
      '',
      `Lookup p99 of each round: SQLite ${p99s('sqlite')} ms; primary ${p99s('primary')} ms; standby ${p99s('standby')} ms. The primary's`,
      'earlier rounds were dropped and the served database vacuumed and checkpointed before anything was served.',
      'Every answer was checked (balance of the target address, 200, no errors); the lookup latency is per request with nothing',
      "queued, the req/s a closed loop. The aggregate cannot grow past what this machine's two cores give the API processes,",
      'PostgreSQL and the load generator together, so this run cannot show how it grows on a standby with more cores.',
    ];
    writeSection('scale-out', lines.join('\n'));
    return { goalMet: Object.values(goals).every(Boolean) };
  } finally {
    for (const s of servers) await s.api.stop().catch(() => undefined);
    for (const c of clusters.reverse()) await c.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
  }
}
