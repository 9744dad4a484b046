/**
 * Benchmark "mempool-follow": the API's latency while the indexer follows a mempool growing by 2,000
 * transactions a second over ZMQ, against the same API with the follower idle, in the same run.
 *
 *   npx tsx bench/mempool-follow.ts
 *
 * One LTC index (ChainStore) with 28,000 confirmed coins; the real API process on it; the writer child
 * (bench/mempool-follow-writer.ts: ChainStore + MempoolFollower + the ZMQ subscription, as the indexer
 * runs them) fed by the publisher child (bench/mempool-follow-publisher.ts: a real zeromq PUB in
 * bitcoind's rawtx/sequence format) at 2,000 new transactions a second, each spending one confirmed
 * coin to two addresses. Every party is its own process, so sending never delays the measuring client. Phases alternate quiet / follow; one
 * keep-alive client sends `GET …/address/{a}?mempool=true` back to back throughout.
 * Goal: p99 during the follow ≤ 1.5× the quiet p99, with the follower keeping up (held = published).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { startRaisedApi } from './bench-api.js';
import { trackChild } from './emergency.js';
import { machineLine, percentile, today, writeSection } from './report.js';
import { followBlocks, followScript, RATE, SCRIPTS } from './mempool-follow-txs.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const GOAL = 1.5;
const PHASE_SECONDS = 6;
const ROUNDS = 2;
const COINS = RATE * PHASE_SECONDS * ROUNDS + 4_000;

function buildIndex(dir: string): void {
  const store = ChainStore.open(chainDbPath(dir, 'LTC'), { chain: 'LTC', network: 'mainnet' });
  try {
    store.applyBlocks(followBlocks(COINS));
    store.setNodeHeight(store.tip()!.height, new Date());
  } finally {
    store.close();
  }
}

/** A child's stdout as parsed JSON lines. */
function jsonLines(child: ChildProcess, on: (msg: Record<string, unknown>) => void): void {
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let at: number;
    while ((at = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, at);
      buf = buf.slice(at + 1);
      if (line.trim()) on(JSON.parse(line) as Record<string, unknown>);
    }
  });
}

function get(agent: http.Agent, url: URL, pathname: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host: url.hostname, port: url.port, path: pathname, agent, headers: { 'x-api-key': key } }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`API answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

export interface MempoolFollowResult {
  quietP99: number;
  followP99: number;
  quietP50: number;
  followP50: number;
  ratio: number;
  published: number;
  held: number;
  achievedRate: number;
  peakRssMiB: number;
  goalMet: boolean;
}

export async function runMempoolFollowBench(): Promise<MempoolFollowResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-mempool-'));
  const children: ChildProcess[] = [];
  try {
    buildIndex(dir);
    const params = chainParams('LTC', 'mainnet');
    const addresses = Array.from({ length: SCRIPTS }, (_, i) => scriptToAddress(params, followScript(i))!);
    const { api, key } = await startRaisedApi(dir, 'mainnet', 'http://bench:bench@127.0.0.1:9');

    const pub = spawn(process.execPath, ['--import', 'tsx', 'bench/mempool-follow-publisher.ts'], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(pub);
    trackChild(pub);
    const pubMsgs: Array<Record<string, unknown>> = [];
    jsonLines(pub, (m) => pubMsgs.push(m));
    const until = async (what: string, ok: () => boolean): Promise<void> => {
      for (let waited = 0; !ok(); waited += 20) {
        if (waited > 120_000) throw new Error(`mempool-follow bench: timed out waiting for ${what}`);
        await sleep(20);
      }
    };
    await until('the publisher', () => pubMsgs.some((m) => typeof m.endpoint === 'string'));
    const endpoint = pubMsgs.find((m) => typeof m.endpoint === 'string')!.endpoint as string;

    const writer = spawn(process.execPath, ['--import', 'tsx', 'bench/mempool-follow-writer.ts', chainDbPath(dir, 'LTC'), endpoint], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(writer);
    trackChild(writer);
    let last = { held: 0, rss: 0, peakRss: 0 };
    let ready = false;
    jsonLines(writer, (m) => {
      if (m.ready === true) ready = true;
      else last = m as typeof last;
    });
    await until('the writer', () => ready && pubMsgs.some((m) => m.connected === true));
    await sleep(500); // the SUB socket's subscription reaches the PUB side just after it connects

    const url = new URL(api.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const quiet: number[] = [];
    const follow: number[] = [];
    let published = 0;
    let followSeconds = 0;
    try {
      const load = async (into: number[], seconds: number): Promise<void> => {
        const end = performance.now() + seconds * 1000;
        for (let i = 0; performance.now() < end; i++)
          into.push(await get(agent, url, `/api/v1/LTC/address/${addresses[(i * 7919) % addresses.length]!}?mempool=true`, key));
      };
      const phase = async (): Promise<void> => {
        const done = pubMsgs.length;
        pub.stdin!.write(`go ${PHASE_SECONDS}\n`);
        // The publisher prepares the phase's transactions first; measure from its first message on.
        await until('the publisher to start', () => last.held > published || pubMsgs.length > done);
        await load(follow, PHASE_SECONDS - 1);
        await until('the phase to end', () => pubMsgs.length > done);
        const r = pubMsgs[pubMsgs.length - 1]!;
        published += r.published as number;
        followSeconds += r.seconds as number;
      };
      await load([], 2); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        await load(quiet, PHASE_SECONDS);
        await phase();
      }
      await load(quiet, PHASE_SECONDS);
      await sleep(1500); // the writer's last report
    } finally {
      agent.destroy();
      pub.stdin!.end();
      writer.kill('SIGTERM');
      await api.stop();
    }
    const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
    const q = sorted(quiet);
    const f = sorted(follow);
    const result: MempoolFollowResult = {
      quietP99: percentile(q, 0.99),
      followP99: percentile(f, 0.99),
      quietP50: percentile(q, 0.5),
      followP50: percentile(f, 0.5),
      ratio: percentile(f, 0.99) / percentile(q, 0.99),
      published,
      held: last.held,
      achievedRate: published / followSeconds,
      peakRssMiB: last.peakRss / 2 ** 20,
      goalMet: false,
    };
    result.goalMet = result.ratio <= GOAL && result.held === published && result.achievedRate >= RATE * 0.95;
    writeSection('mempool-follow', report(result, quiet.length, follow.length));
    process.stdout.write(`${report(result, quiet.length, follow.length)}\n`);
    return result;
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(r: MempoolFollowResult, nQuiet: number, nFollow: number): string {
  return `## mempool-follow: API latency while the mempool grows by ${RATE.toLocaleString('en')} transactions a second

Goal: the API's p99 during the follow ≤ ${GOAL}× its p99 with the follower idle, the follower keeping up.
**${r.goalMet ? 'Met' : 'Not met'}**: p99 ${r.ratio.toFixed(2)}× (${r.followP99.toFixed(2)} ms following vs ${r.quietP99.toFixed(2)} ms quiet;
p50 ${r.followP50.toFixed(2)} vs ${r.quietP50.toFixed(2)} ms); ${r.published.toLocaleString('en')} transactions published at
${r.achievedRate.toFixed(0)}/s, ${r.held.toLocaleString('en')} held by the view at the end.

Setup: an LTC index of ${COINS.toLocaleString('en')} confirmed coins over ${SCRIPTS.toLocaleString('en')} scripts; the real API process;
the writer child running the indexer's ChainStore + MempoolFollower + ZMQ subscription, fed by a real
zeromq PUB in bitcoind's rawtx/sequence format (each transaction spends one confirmed coin to two
addresses); phases of ${PHASE_SECONDS} s alternate quiet / follow (${ROUNDS} follow phases, ${nFollow} requests;
${nQuiet} quiet requests); one keep-alive client sends \`GET …/address/{a}?mempool=true\` back to back.
Writer memory: peak RSS ${r.peakRssMiB.toFixed(0)} MiB holding ${r.held.toLocaleString('en')} mempool transactions (the view is in
SQLite; the process holds the page cache, the ZMQ stash ≤ 16 MiB and one batch).
${machineLine()}, ${today()}. Command: \`npm run bench -- mempool-follow\`.`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMempoolFollowBench();
}
