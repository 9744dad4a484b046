/**
 * Benchmark "push": live summaries over WebSocket at scale.
 *
 *   npx tsx bench/push.ts           (or: npm run bench -- push)
 *
 * Setup: an LTC regtest index of 10,000 funded P2WPKH scripts built straight through ChainStore (this
 * process is the indexer: it commits blocks with the real write path, change feed included); the real
 * API process over it (api.live.pollMs = 50, the smallest setting); 1,000 WebSocket connections from this
 * process, each subscribing 10 of the scripts (10,000 subscriptions). One sample: a block paying 500
 * subscribed scripts (on 500 different connections) is committed; the clock starts when the commit
 * returns and stops, per script, when its client receives the new summary. Blocks are spaced by random
 * pauses so commits fall at random points of the API's poll timer. Then the same with
 * ADDRSUM_API_WORKERS=2. Also: the API's memory per subscription (RSS of its processes with the
 * 10,000 subscriptions held, minus before the connections opened, over 10,000; so it includes the
 * connections' own cost) and its CPU while idle with them held.
 * Goals: p99 ≤ 100 ms from commit to push; ≤ 2 KB per subscription; idle CPU near zero (≤ 2 % of a core).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { startApi, type ApiProcess } from '../harness/api-process.js';
import { makeDataDir, waitFor } from '../harness/indexer-process.js';
import { SeededRng } from '../harness/seeded-rng.js';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { trackChild, trackDir } from './emergency.js';
import { machineLine, percentile, today, writeSection } from './report.js';
import { p2wpkh, SyntheticChain } from './synthetic-chain.js';

const CHAIN = 'LTC';
const PARAMS = chainParams(CHAIN, 'regtest');
const CONNECTIONS = 1000;
const PER_CONNECTION = 10;
const SCRIPTS = CONNECTIONS * PER_CONNECTION;
const TOUCHED = 500;
const BLOCKS = 20;
const POLL_MS = 50;
const GOALS = { p99Ms: 100, bytesPerSub: 2048, idleCpuPercent: 2 };
const IDLE_WINDOW_MS = 5000;

interface Figures {
  workers: number;
  latenciesMs: number[];
  missing: number;
  wrong: number;
  bytesPerSub: number;
  bytesPerConnection: number;
  idleCpuPercent: number;
}

/** Resident memory and CPU ticks of a process and its children (the workers), from /proc. */
function processTree(pid: number): { rssBytes: number; ticks: number } {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  let rssBytes = 0;
  let ticks = 0;
  for (const p of pids) {
    const status = readFileSync(`/proc/${p}/status`, 'utf8');
    rssBytes += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return { rssBytes, ticks };
}

class Client {
  /** Per address: arrival time and balance of its last summary. */
  readonly got = new Map<string, { at: number; balance: number; height: number }>();
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer) => {
      const at = performance.now();
      const m = JSON.parse(raw.toString()) as { event?: string; data?: { address: string; balanceSatoshi: number; blockHeight: number } };
      if (m.event === 'summary' && m.data) this.got.set(m.data.address, { at, balance: m.data.balanceSatoshi, height: m.data.blockHeight });
    });
  }
}

async function run(workers: number): Promise<Figures> {
  const dir = await makeDataDir('addrsum-bench-push-');
  trackDir(dir);
  const keys = KeyStore.open(path.join(dir, 'keys.sqlite'));
  const key = keys.create('private', 'push bench').key;
  keys.close();
  const scripts = Array.from({ length: SCRIPTS }, (_, i) => p2wpkh(`push ${i}`));
  const addresses = scripts.map((s) => scriptToAddress(PARAMS, s)!);
  const store = ChainStore.open(chainDbPath(dir, CHAIN), { chain: CHAIN, network: 'regtest', undoDepth: 10 });
  const chain = new SyntheticChain('push');
  const balances = new Array<number>(SCRIPTS).fill(1000);
  store.applyBlocks([
    chain.block([chain.tx('genesis', [{ value: 50, script: scripts[0]! }], true)]),
    chain.block([
      chain.tx(
        'fund',
        scripts.map((script) => ({ value: 1000, script })),
        false,
      ),
    ]),
  ]);
  let height = 1;
  store.setNodeHeight(height, new Date());

  const config = path.join(dir, 'api.toml');
  writeFileSync(
    config,
    `[api]\nmaxConnections = 4096\n[api.live]\npollMs = ${POLL_MS}\nconnectionsPerNetwork = 4096\n[api.live.subscriptionsPerKey]\nprivate = ${SCRIPTS * 2}\n`,
  );
  const api: ApiProcess = await startApi({
    ADDRSUM_CONFIG: config,
    ADDRSUM_DATA_DIR: dir,
    ADDRSUM_SERVE_CHAINS: CHAIN,
    [`ADDRSUM_${CHAIN}_NETWORK`]: 'regtest',
    ADDRSUM_API_WORKERS: String(workers),
  });
  trackChild(api.child);
  const clients: Client[] = [];
  try {
    // The start waits for the first worker only.
    const listening = () =>
      api
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"listening"') && l.includes('"worker":')).length;
    if (workers > 1) await waitFor('every worker listening', () => listening() >= workers, 60_000);
    const before = processTree(api.child.pid!).rssBytes;
    const wsUrl = `${api.url.replace(/^http/, 'ws')}/api/v1/ws`;
    for (let c = 0; c < CONNECTIONS; c += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, CONNECTIONS - c) }, async () => {
          const ws = new WebSocket(wsUrl, { headers: { 'x-api-key': key } });
          await new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve());
            ws.once('error', reject);
          });
          return new Client(ws);
        }),
      );
      clients.push(...batch);
    }
    await sleep(2000);
    const connected = processTree(api.child.pid!).rssBytes;
    clients.forEach((client, c) =>
      client.ws.send(
        JSON.stringify({ op: 'subscribe', id: 1, chain: CHAIN, addresses: addresses.slice(c * PER_CONNECTION, (c + 1) * PER_CONNECTION) }),
      ),
    );
    await waitFor('every first summary', () => clients.every((cl) => cl.got.size === PER_CONNECTION), 120_000);
    await sleep(2000);
    const held = processTree(api.child.pid!);
    const bytesPerSub = (held.rssBytes - connected) / SCRIPTS;
    const bytesPerConnection = (connected - before) / CONNECTIONS;
    await sleep(IDLE_WINDOW_MS);
    const idleCpuPercent = ((processTree(api.child.pid!).ticks - held.ticks) / 100 / (IDLE_WINDOW_MS / 1000)) * 100;

    const rng = new SeededRng(24);
    const latenciesMs: number[] = [];
    let missing = 0;
    let wrong = 0;
    for (let round = 0; round < BLOCKS; round++) {
      const touched = Array.from({ length: TOUCHED }, (_, i) => i * (SCRIPTS / TOUCHED) + (round % (SCRIPTS / TOUCHED)));
      for (const i of touched) balances[i]! += 1;
      height++;
      const block = chain.block([
        chain.tx(
          `round ${round}`,
          touched.map((i) => ({ value: 1, script: scripts[i]! })),
          false,
        ),
      ]);
      await sleep(100 + rng.int(POLL_MS * 4));
      store.applyBlocks([block], { height, at: new Date() });
      const t0 = performance.now();
      const arrived = () => touched.every((i) => (clients[Math.floor(i / PER_CONNECTION)]!.got.get(addresses[i]!)?.height ?? 0) >= height);
      await waitFor(`the pushes of block ${height}`, arrived, 10_000).catch(() => undefined);
      for (const i of touched) {
        const got = clients[Math.floor(i / PER_CONNECTION)]!.got.get(addresses[i]!);
        if (!got || got.height < height) missing++;
        else {
          latenciesMs.push(got.at - t0);
          if (got.balance !== balances[i]) wrong++;
        }
      }
    }
    return { workers, latenciesMs: latenciesMs.sort((a, b) => a - b), missing, wrong, bytesPerSub, bytesPerConnection, idleCpuPercent };
  } finally {
    for (const client of clients) client.ws.terminate();
    await api.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (v: number): string => `${v.toFixed(1)} ms`;

function line(f: Figures): string {
  const l = f.latenciesMs;
  return (
    `| ${f.workers} | ${l.length.toLocaleString('en')} | ${ms(percentile(l, 0.5))} | ${ms(percentile(l, 0.99))} | ${ms(l.at(-1) ?? NaN)} | ` +
    `${f.missing} / ${f.wrong} | ${(f.bytesPerSub / 1024).toFixed(2)} KB | ${(f.bytesPerConnection / 1024).toFixed(1)} KB | ` +
    `${((f.bytesPerSub + f.bytesPerConnection / PER_CONNECTION) / 1024).toFixed(2)} KB | ${f.idleCpuPercent.toFixed(1)} % |`
  );
}

export async function runPushBench(): Promise<{ goalMet: boolean }> {
  const results: Figures[] = [];
  for (const workers of [1, 2]) {
    const f = await run(workers);
    console.log(line(f));
    results.push(f);
  }
  const verdict = (name: string, ok: boolean): string => `${name} **${ok ? 'met' : 'missed'}**`;
  const p99Ok = results.every((f) => percentile(f.latenciesMs, 0.99) <= GOALS.p99Ms && f.missing === 0 && f.wrong === 0);
  const memOk = results.every((f) => f.bytesPerSub <= GOALS.bytesPerSub);
  const cpuOk = results.every((f) => f.idleCpuPercent <= GOALS.idleCpuPercent);
  writeSection(
    'push',
    `## push — live summaries to 10,000 WebSocket subscriptions

Goals: every push within ${GOALS.p99Ms} ms p99 of the index commit; at most 2 KB of server memory per
subscription; idle CPU near zero (here: ≤ ${GOALS.idleCpuPercent} % of one core); the same with 2 workers.
${verdict('Latency', p99Ok)}, ${verdict('memory', memOk)}, ${verdict('idle CPU', cpuOk)}.

| workers | pushes timed | p50 | p99 | max | missing / wrong | RSS per subscription | per connection | both, per subscription | idle CPU |
|---|---|---|---|---|---|---|---|---|---|
${results.map(line).join('\n')}

Setup: an LTC regtest index of ${SCRIPTS.toLocaleString('en')} funded scripts; this process commits blocks with the
real write path (ChainStore, change feed included) and holds ${CONNECTIONS.toLocaleString('en')} WebSocket connections of
${PER_CONNECTION} subscriptions each to the real API process; ${BLOCKS} blocks each pay ${TOUCHED} subscribed scripts on
${TOUCHED} connections; latency runs from the commit's return to the client's receipt of the new summary
(its balance is checked). \`api.live.pollMs\` = ${POLL_MS} (the minimum; the default 250 adds up to 200 ms:
each API process reads the feed on a timer, so the poll interval bounds the latency). Memory (RSS of the API's
processes, 2 s after each step): per subscription, with the subscriptions held minus with only the
connections open, over ${SCRIPTS.toLocaleString('en')}; per connection, with the connections open minus before, over
${CONNECTIONS.toLocaleString('en')}; "both" charges each subscription its share of a ${PER_CONNECTION}-subscription connection. The goal is
judged on the per-subscription figure. Idle CPU: the API's processes over ${IDLE_WINDOW_MS / 1000} s with everything held and no block.
${machineLine()}, ${today()}. Command: \`npm run bench -- push\`.`,
  );
  return { goalMet: p99Ok && memOk && cpuOk };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // A missed goal is a measurement, not a failure (bench/run.ts).
  await runPushBench();
  process.exit(0);
}
