/**
 * Benchmark "electrum" (issue 35): the Electrum server of the real API process over a synthetic LTC index
 * with history (bench/electrum-index.ts), from clients on this machine (`npm run bench -- electrum`).
 *
 * (a) get_history and subscribe (the status) on a script with 100,000 transactions, and on one with 10:
 *     p99 of each over REQUESTS sequential requests on one connection (goal: p99 ≤ 50 ms); then
 *     get_history of the long one right after each of CHANGES blocks paying it, their disconnections
 *     and mempool transactions paying it (what the kept history costs to bring up to date).
 * (b) 10,000 scripthashes subscribed over 100 connections, then blocks each touching 500 of them: ms
 *     from the writer's commit to each notification's arrival, p99 over every notification of
 *     FOLLOW_BLOCKS blocks (goal ≤ 200 ms). First at the default api.live.pollMs (100 ms); if that
 *     misses, again at 50 ms, with the API's CPU while idle with the subscriptions held at each.
 * (c) The API's RSS and V8 heap before and after 100 connections and 10,000 (then 50,000) subscriptions:
 *     bytes per connection and per subscription; the heap after a full GC, in an API process of its own.
 * Limits that are not measured are raised: connections per network, the anonymous tier's token bucket.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApi, type ApiProcess } from '../harness/api-process.js';
import { DEFAULT_LIVE_LIMITS } from '../src/api/live/limits.js';
import type { BlockToApply } from '../src/store/index-model.js';
import { chainDbPath } from '../src/store/paths.js';
import {
  buildElectrumIndex,
  collectedHeapBytes,
  cpuSeconds,
  heapSnapshotOptions,
  NOTIFIED,
  rssBytes,
  TOUCHED,
  type ElectrumIndex,
} from './electrum-index.js';
import { BenchElectrum, scripthash } from './electrum-wire.js';
import { trackChild, trackDir, untrackDir } from './emergency.js';
import { machineLine, percentile, today, writeSection } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const DEEP_TXS = 100_000;
const REQUESTS = QUICK ? 50 : 500;
const WARMUP = QUICK ? 5 : 20;
const CONNECTIONS = 100;
const MORE_SUBSCRIPTIONS = 50_000;
const FOLLOW_BLOCKS = QUICK ? 4 : 12;
const IDLE_SECONDS = QUICK ? 5 : 20;
const DEFAULT_POLL_MS = DEFAULT_LIVE_LIMITS.pollMs;
const SMALL_POLL_MS = 50;
/** Changes to the deep script (blocks, then mempool transactions) each followed by a timed get_history. */
const CHANGES = QUICK ? 5 : 30;
const GOAL = { requestP99Ms: 50, notifyP99Ms: 200 };

interface Served {
  api: ApiProcess;
  port: number;
  /** Where the API writes the heap snapshots that collect its garbage (collectedHeapBytes). */
  diag: string;
}

async function serve(dataDir: string, pollMs: number): Promise<Served> {
  const diag = path.join(dataDir, 'diag');
  mkdirSync(diag, { recursive: true });
  const api = await startApi({
    NODE_OPTIONS: heapSnapshotOptions(diag),
    ADDRSUM_DATA_DIR: dataDir,
    ADDRSUM_SERVE_CHAINS: 'LTC',
    ADDRSUM_LTC_NETWORK: 'mainnet',
    ADDRSUM_LTC_HISTORY: 'true',
    ADDRSUM_LTC_UTXO_LIST: 'true',
    ADDRSUM_LTC_ELECTRUM_PORT: '0',
    // 100 connections from one address: over the default 32 per network, which is not what is measured.
    ADDRSUM_ELECTRUM_CONNECTIONS_PER_NETWORK: String(CONNECTIONS * 2),
    ADDRSUM_LIVE_POLL_MS: String(pollMs),
    ADDRSUM_STALE_AFTER_SECONDS: '0',
    ADDRSUM_REQUEST_LOG: 'errors',
  });
  trackChild(api.child);
  const m = /"port":(\d+)[^\n]*"msg":"electrum listening"/.exec(api.output());
  if (!m) {
    await api.stop();
    throw new Error(`electrum bench: no Electrum port in the API's log:\n${api.output()}`);
  }
  return { api, port: Number(m[1]), diag };
}

interface Timing {
  p50: number;
  p99: number;
}

const timing = (ms: number[]): Timing => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

/** p50 and p99 of `method` on `script` over REQUESTS sequential requests; `check` sees the last result. */
async function timeMethod(client: BenchElectrum, method: string, script: Buffer, check: (result: unknown) => void): Promise<Timing> {
  const params = [scripthash(script)];
  for (let i = 0; i < WARMUP; i++) await client.call(method, params);
  const ms: number[] = [];
  let last: unknown;
  for (let i = 0; i < REQUESTS; i++) {
    const { ms: one, result } = await client.timed(method, params);
    ms.push(one);
    last = result;
  }
  check(last);
  return timing(ms);
}

interface Requests {
  deepHistory: Timing;
  deepStatus: Timing;
  /** get_history right after a block paying the deep script: what follows its kept part read. */
  deepAfterBlock: Timing;
  /** get_history right after that block is disconnected: read whole. */
  deepAfterReorg: Timing;
  /** get_history right after a mempool transaction paying it: what follows its kept part read. */
  deepAfterMempool: Timing;
  shallowHistory: Timing;
  shallowStatus: Timing;
}

async function requests(s: Served, index: ElectrumIndex): Promise<Requests> {
  const client = await BenchElectrum.connect(s.port);
  try {
    await client.call('server.version', ['addrsum-bench', '1.4']);
    // The deep script's history grows by a transaction with each change below.
    const length =
      (n: number, grows = false) =>
      (result: unknown) => {
        if (!Array.isArray(result) || result.length < n || (!grows && result.length !== n))
          throw new Error(`electrum bench: a history of ${(result as unknown[]).length}, not ${n}`);
      };
    const params = [scripthash(index.deep)];
    const history = async (): Promise<number> => {
      const { ms, result } = await client.timed('blockchain.scripthash.get_history', params);
      length(DEEP_TXS, true)(result);
      return ms;
    };
    const apply = (block: BlockToApply) => index.writer.applyBlocks([block], { height: block.height, at: new Date() });
    const afterBlock: number[] = [];
    const afterReorg: number[] = [];
    const afterMempool: number[] = [];
    // Each round: a block paying the deep script, then its disconnection (a reorg), then the block again.
    const rounds = async (): Promise<void> => {
      for (let i = 0; i < CHANGES; i++) {
        const block = index.deepBlock();
        await apply(block);
        afterBlock.push(await history());
        await index.writer.rollbackTip();
        afterReorg.push(await history());
        await apply(block);
      }
      for (let i = 0; i < CHANGES; i++) {
        const added = await index.writer.mempool.add([index.deepSpend(i)]);
        if (added.added !== 1) throw new Error(`electrum bench: the mempool took ${JSON.stringify(added)}`);
        afterMempool.push(await history());
      }
    };
    const status = (result: unknown): void => {
      if (typeof result !== 'string' || result.length !== 64) throw new Error(`electrum bench: status ${JSON.stringify(result)}`);
    };
    return {
      deepHistory: await timeMethod(client, 'blockchain.scripthash.get_history', index.deep, length(DEEP_TXS)),
      deepStatus: await timeMethod(client, 'blockchain.scripthash.subscribe', index.deep, status),
      ...(await rounds().then(() => ({
        deepAfterBlock: timing(afterBlock),
        deepAfterReorg: timing(afterReorg),
        deepAfterMempool: timing(afterMempool),
      }))),
      shallowHistory: await timeMethod(client, 'blockchain.scripthash.get_history', index.shallow, length(index.shallowTxs)),
      shallowStatus: await timeMethod(client, 'blockchain.scripthash.subscribe', index.shallow, status),
    };
  } finally {
    client.close();
  }
}

interface Memory {
  rss: number;
  heap: number;
}

/** RSS, and with `heap` the heap used after a full GC (a snapshot, whose own native memory then stays in the RSS). */
async function memory(s: Served, heap: boolean): Promise<Memory> {
  await sleep(1000); // what was just allocated settles
  const rss = rssBytes(s.api.child.pid!);
  return { rss, heap: heap ? await collectedHeapBytes(s.api.child.pid!, s.api.url, s.diag) : NaN };
}

/** Subscribes scripts [from, to) spread over the clients, pipelined on each connection. */
async function subscribe(clients: BenchElectrum[], scripts: Buffer[], from: number, to: number): Promise<void> {
  await Promise.all(
    clients.map((c, k) => {
      const mine: Promise<unknown>[] = [];
      for (let i = from + k; i < to; i += clients.length) mine.push(c.call('blockchain.scripthash.subscribe', [scripthash(scripts[i]!)]));
      return Promise.all(mine);
    }),
  );
}

/** ms from each follow block's commit to each of its TOUCHED notifications' arrival. */
async function notifications(clients: BenchElectrum[], index: ElectrumIndex, blocks: number): Promise<number[]> {
  const arrived = new Map<string, number>();
  for (const c of clients)
    c.onNotification = (note, at) => void (note.method === 'blockchain.scripthash.subscribe' && arrived.set(note.params[0] as string, at));
  const samples: number[] = [];
  let rng = 0x2545f491;
  for (let b = 0; b < blocks; b++) {
    arrived.clear();
    const { block, touched } = index.followBlock();
    const wanted = new Set(touched.map((i) => scripthash(index.scripts[i]!)));
    await index.writer.applyBlocks([block], { height: block.height, at: new Date() });
    const committed = performance.now();
    while ([...wanted].some((h) => !arrived.has(h))) {
      if (performance.now() - committed > 30_000)
        throw new Error(`electrum bench: ${arrived.size} of ${wanted.size} notifications in 30 s`);
      await sleep(5);
    }
    for (const h of wanted) samples.push(arrived.get(h)! - committed);
    // A pause of 0.5–1 s, varied: commits land at every phase of the API's poll, not always the same one.
    rng = (rng * 1103515245 + 12345) >>> 0;
    await sleep(500 + (rng % 500));
  }
  return samples.sort((a, b) => a - b);
}

interface Session {
  pollMs: number;
  notify: number[];
  idleCpu: number;
  base: Memory;
  connected: Memory;
  subscribed: Memory;
  more?: Memory;
  requests?: Requests;
}

/**
 * One API process at `pollMs`, in one of three modes: `full` measures the RSS, the idle CPU and (b) with
 * NOTIFIED subscriptions, then the RSS at MORE_SUBSCRIPTIONS, then (a); `notify` only the idle CPU and (b);
 * `heap` only the heap used at each step (the snapshots that collect it would spoil the RSS of the others).
 */
async function session(
  dataDir: string,
  index: ElectrumIndex,
  pollMs: number,
  blocks: number,
  mode: 'full' | 'notify' | 'heap',
): Promise<Session> {
  const s = await serve(dataDir, pollMs);
  const clients: BenchElectrum[] = [];
  try {
    // Memory first, on a fresh process: the 9 MB answers of (a) would leave garbage in the figures.
    const heap = mode === 'heap';
    const base = await memory(s, heap);
    for (let i = 0; i < CONNECTIONS; i++) clients.push(await BenchElectrum.connect(s.port));
    await Promise.all(clients.map((c) => c.call('server.version', ['addrsum-bench', '1.4'])));
    const connected = await memory(s, heap);
    await subscribe(clients, index.scripts, 0, NOTIFIED);
    const subscribed = await memory(s, heap);
    const cpu0 = cpuSeconds(s.api.child.pid!);
    if (!heap) await sleep(IDLE_SECONDS * 1000);
    const idleCpu = heap ? NaN : (cpuSeconds(s.api.child.pid!) - cpu0) / IDLE_SECONDS;
    const notify = await notifications(clients, index, blocks);
    let more: Memory | undefined;
    if (mode !== 'notify' && index.scripts.length >= MORE_SUBSCRIPTIONS) {
      await subscribe(clients, index.scripts, NOTIFIED, MORE_SUBSCRIPTIONS);
      more = await memory(s, heap);
    }
    const requestFigures = mode === 'full' ? await requests(s, index) : undefined;
    if (!heap)
      console.log(
        `electrum: poll ${pollMs} ms: notify p50 ${percentile(notify, 0.5).toFixed(1)} / p99 ${percentile(notify, 0.99).toFixed(1)} ms, idle CPU ${idleCpu.toFixed(4)} s/s`,
      );
    return { pollMs, notify, idleCpu, base, connected, subscribed, more, requests: requestFigures };
  } finally {
    for (const c of clients) c.close();
    await s.api.stop();
  }
}

export async function runElectrumBench(): Promise<{ goalMet: boolean }> {
  const load = loadavg()[0]!;
  const root = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-electrum-'));
  trackDir(root);
  const subscribable = QUICK ? NOTIFIED : MORE_SUBSCRIPTIONS;
  const index = await buildElectrumIndex(chainDbPath(root, 'LTC'), DEEP_TXS, subscribable);
  try {
    console.log(`electrum: index built in ${index.buildSeconds.toFixed(1)} s`);
    const sessions = [await session(root, index, DEFAULT_POLL_MS, FOLLOW_BLOCKS, 'full')];
    if (percentile(sessions[0]!.notify, 0.99) > GOAL.notifyP99Ms)
      sessions.push(await session(root, index, SMALL_POLL_MS, FOLLOW_BLOCKS, 'notify'));
    const heap = await session(root, index, DEFAULT_POLL_MS, 0, 'heap');
    return report(sessions, heap, load, index.buildSeconds);
  } finally {
    await index.writer.close();
    rmSync(root, { recursive: true, force: true });
    untrackDir(root);
  }
}

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const met = (ok: boolean): string => (ok ? 'met' : '**not met**');
const perEach = (after: number, before: number, count: number): string =>
  Number.isNaN(after - before) ? '–' : `${fmt((after - before) / count)} B`;

function report(sessions: Session[], heap: Session, load: number, buildSeconds: number): { goalMet: boolean } {
  const [first, second] = sessions as [Session, Session | undefined];
  const r = first.requests!;
  const notifyRow = (s: Session): string => {
    const p = (q: number): string => fmt(percentile(s.notify, q), 1);
    const tag = s.pollMs === DEFAULT_POLL_MS ? 'the default' : 'a smaller';
    return `| commit → notification, p50 / p99 / max (${fmt(s.notify.length)} notifications, ${FOLLOW_BLOCKS} blocks × ${TOUCHED}), pollMs ${s.pollMs} (${tag}) | ${p(0.5)} / **${p(0.99)}** / ${fmt(s.notify.at(-1)!, 1)} ms | ≤ ${GOAL.notifyP99Ms} ms | ${met(percentile(s.notify, 0.99) <= GOAL.notifyP99Ms)} |`;
  };
  const idleRow = (s: Session): string =>
    `| API CPU while idle with ${fmt(NOTIFIED)} subscriptions, pollMs ${s.pollMs} (${IDLE_SECONDS} s, /proc/<pid>/stat) | ${fmt(s.idleCpu, 4)} CPU s/s | – | |`;
  const reqRow = (what: string, t: Timing): string =>
    `| ${what}, p50 / p99 of ${fmt(REQUESTS)} sequential on one connection | ${fmt(t.p50, 2)} / **${fmt(t.p99, 2)}** ms | p99 ≤ ${GOAL.requestP99Ms} ms | ${met(t.p99 <= GOAL.requestP99Ms)} |`;
  const changeRow = (what: string, t: Timing): string =>
    `| ${what}, p50 / p99 of ${fmt(CHANGES)} | ${fmt(t.p50, 2)} / ${fmt(t.p99, 2)} ms | – | |`;
  const mem = first;
  const notifyMet = sessions.some((s) => percentile(s.notify, 0.99) <= GOAL.notifyP99Ms);
  const goals =
    [r.deepHistory, r.deepStatus].every((t) => t.p99 <= GOAL.requestP99Ms) && percentile(first.notify, 0.99) <= GOAL.notifyP99Ms;
  const rows = [
    reqRow(`get_history, script with ${fmt(DEEP_TXS)} txs`, r.deepHistory),
    reqRow(`subscribe (status), script with ${fmt(DEEP_TXS)} txs`, r.deepStatus),
    changeRow('get_history of that script right after a block paying it (what follows the kept part read)', r.deepAfterBlock),
    changeRow('… right after that block is disconnected (a reorg: read whole)', r.deepAfterReorg),
    changeRow('… right after a mempool transaction paying it (what follows the kept part read)', r.deepAfterMempool),
    reqRow('get_history, script with 10 txs', r.shallowHistory),
    reqRow('subscribe (status), script with 10 txs', r.shallowStatus),
    notifyRow(first),
    ...(second ? [notifyRow(second)] : []),
    idleRow(first),
    ...(second ? [idleRow(second)] : []),
    `| RSS / V8 heap used per connection (${CONNECTIONS} connections, after server.version) | ${perEach(mem.connected.rss, mem.base.rss, CONNECTIONS)} / ${perEach(heap.connected.heap, heap.base.heap, CONNECTIONS)} | – | |`,
    `| RSS / V8 heap used per subscription (${fmt(NOTIFIED)} over ${CONNECTIONS} connections) | ${perEach(mem.subscribed.rss, mem.connected.rss, NOTIFIED)} / ${perEach(heap.subscribed.heap, heap.connected.heap, NOTIFIED)} | – | |`,
    ...(mem.more
      ? [
          `| RSS / V8 heap used per subscription (${fmt(MORE_SUBSCRIPTIONS)} over ${CONNECTIONS} connections) | ${perEach(mem.more.rss, mem.connected.rss, MORE_SUBSCRIPTIONS)} / ${heap.more ? perEach(heap.more.heap, heap.connected.heap, MORE_SUBSCRIPTIONS) : '–'} | – | |`,
        ]
      : []),
    `| API RSS: idle / ${CONNECTIONS} connections / + ${fmt(NOTIFIED)} subscriptions${mem.more ? ` / ${fmt(MORE_SUBSCRIPTIONS)}` : ''} | ${[mem.base, mem.connected, mem.subscribed, ...(mem.more ? [mem.more] : [])].map((m) => fmt(m.rss / 1e6, 1)).join(' / ')} MB | – | |`,
  ];
  const lines = [
    '## electrum — the Electrum server: history, notifications, memory (issue 35)',
    '',
    `Command: \`npm run bench -- electrum\`${QUICK ? ' (BENCH_QUICK=1)' : ''}. A synthetic LTC index with history kept, built through the writer port`,
    `in ${fmt(buildSeconds, 1)} s: a script paid by ${fmt(DEEP_TXS)} transactions, one by 10, and ${fmt(QUICK ? NOTIFIED : MORE_SUBSCRIPTIONS)} scripts with one each. The real API`,
    'process serves it on an Electrum TCP port (history on); the clients are this process over loopback, and the follow blocks',
    'are committed by a writer in this process, so commit and arrival are read on one clock. The notification blocks land',
    `0.5–1 s apart at varied phases of the API's change-feed poll (api.live.pollMs, ADDRSUM_LIVE_POLL_MS): measured at the default`,
    `${DEFAULT_POLL_MS} ms${second ? `, which misses the goal, and then at ${SMALL_POLL_MS} ms with the idle CPU that costs` : ''}; on SQLite the API also reads the feed a few ms after`,
    "each write to the index's WAL file (inotify), so a commit need not wait for the poll. The 100,000-transaction history is",
    'kept by the API after its first read (history-cache.ts): the rows after it show what bringing it up to date costs.',
    'Memory: RSS from /proc/<pid>/status 1 s after each step; the V8 heap used from /metrics (prom-client) after a full GC (a heap',
    `snapshot on SIGUSR2, --heapsnapshot-signal) at the same steps in a process of its own. Run ${today()}, load average ${load.toFixed(1)} at start; ${machineLine()}.`,
    '',
    '| measure | figure | goal | met |',
    '| --- | ---: | --- | --- |',
    ...rows,
  ];
  if (second && notifyMet)
    lines.push(
      '',
      `The notification goal is met at pollMs ${SMALL_POLL_MS}, not at the default ${DEFAULT_POLL_MS}; the default is unchanged.`,
    );
  writeSection('electrum', lines.join('\n'));
  console.log(rows.join('\n'));
  return { goalMet: goals };
}
