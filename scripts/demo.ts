/**
 * `npm run demo`: the whole service on one machine, live, in the foreground.
 *
 *   regtest litecoind (data/demo/litecoind) → LTC indexer (data/demo/ltc.sqlite) → API (127.0.0.1:8080)
 *
 * First run: builds a varied chain (every address kind, MWEB peg-ins and peg-outs; ~20 s). Later runs
 * reuse it and mine two more blocks with activity. Then it creates a key, prints ready-to-paste curl
 * lines with the answers the API gave and the node's own `scantxoutset` figures beside them, and mines
 * a block with activity every 10 s. Ctrl-C (SIGINT) or SIGTERM: API and indexer get SIGTERM, litecoind
 * a graceful `stop`, exit 0. Any failure: everything is stopped as well, exit 1.
 *
 * The node harness, chain builder and scans come from harness/: they are the project's regtest
 * tools, shared by the integration tests, the benchmarks and this demo.
 *
 * Environment (for tests and the curious): ADDRSUM_DEMO_DIR (default data/demo), ADDRSUM_DEMO_PORT
 * (default 8080 when free, else any free port; 0 = any free port). The demo's node and processes are
 * described in <demo dir>/demo.json (RPC URL, cookie file, pids) while it runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENV_VARIABLES } from '../src/config.js';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { indexedTip } from '../harness/index-check.js';
import { REPO_ROOT } from '../harness/indexer-process.js';
import { startLitecoind, type Litecoind } from '../harness/litecoind.js';
import { freePort } from '../harness/ports.js';
import { buildVariedChain, mineWithActivity, type ChainManifest } from '../harness/regtest-chain.js';
import { loadManifest, saveManifest } from './demo-manifest.js';
import { startChild, waitUntil, type DemoChild } from './demo-processes.js';
import { printMempoolAndBatch } from './demo-mempool.js';
import { printUtxos } from './demo-utxos.js';
import { balanceChanges, chooseShowcase, printOps, printShowcase, type ApiTarget } from './demo-showcase.js';

const DEMO_DIR = resolve(process.env.ADDRSUM_DEMO_DIR || join(REPO_ROOT, 'data', 'demo'));
const NODE_DIR = join(DEMO_DIR, 'litecoind');
const MANIFEST_FILE = join(DEMO_DIR, 'manifest.json');
const INFO_FILE = join(DEMO_DIR, 'demo.json');
const DB_PATH = chainDbPath(DEMO_DIR, 'LTC');
const BLOCK_EVERY_MS = 10_000;
const LITECOIND = process.env.ADDRSUM_LITECOIND ?? 'litecoind';

const say = (line: string): void => void process.stdout.write(`${line}\n`);
/** Paths as the user would type them from where they started the demo. */
const shown = (path: string): string => {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

let node: Litecoind | undefined;
let nodeStarting: Promise<Litecoind> | undefined;
const children: DemoChild[] = [];
const stopSignal = new AbortController();
let stopping: Promise<void> | undefined;

/** Stops what runs, in order: API and indexer (they read the node and the index), then the node. */
function shutdown(): Promise<void> {
  stopping ??= (async () => {
    stopSignal.abort();
    say('');
    say('stopping: API and indexer (SIGTERM), then litecoind …');
    await Promise.all(children.map((c) => c.stop()));
    const n = node ?? (await nodeStarting?.catch(() => undefined));
    await n?.stop();
    await rm(INFO_FILE, { force: true });
    say('stopped.');
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`demo: stopping failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  });
}

function requireLitecoind(): void {
  const probe = spawnSync(LITECOIND, ['-version'], { stdio: 'ignore' });
  if (probe.error === undefined) return;
  process.stderr.write(
    `demo: ${LITECOIND} is not installed (${probe.error.message}).\n` +
      'Install Litecoin Core 0.21 (Debian/Ubuntu: sudo apt-get install -y litecoind), or run `npm run demo`\n' +
      'as root, which installs it (scripts/ensure-deps.sh). ADDRSUM_LITECOIND=/path/to/litecoind also works.\n',
  );
  process.exit(1);
}

async function startNode(): Promise<Litecoind> {
  // Cookie auth: no password to print or store; litecoin-cli finds the cookie through -datadir.
  nodeStarting = startLitecoind({ datadir: NODE_DIR, auth: 'cookie' });
  node = await nodeStarting;
  return node;
}

/** An index of some other chain (a demo dir whose node was rebuilt) must not be reused. */
async function removeIndex(): Promise<void> {
  for (const f of await readdir(DEMO_DIR)) {
    if (f.startsWith('ltc.sqlite')) await rm(join(DEMO_DIR, f), { force: true });
  }
}

async function build(n: Litecoind): Promise<ChainManifest> {
  await removeIndex();
  say('building a varied regtest chain (every address kind, MWEB peg-ins and peg-outs; ~20 s, once):');
  const manifest = await buildVariedChain(n, { onStep: (step, ms) => say(`  ✓ ${step} (${seconds(ms)})`) });
  await saveManifest(MANIFEST_FILE, manifest);
  say(`  chain ready: ${await n.cli<number>('getblockcount')} blocks, ${manifest.addresses.length} addresses`);
  return manifest;
}

/** The chain to show: the one from an earlier run (plus two new blocks), or a new one. */
async function prepareChain(n0: Litecoind): Promise<{ n: Litecoind; manifest: ChainManifest }> {
  const height = await n0.cli<number>('getblockcount');
  if (height === 0) return { n: n0, manifest: await build(n0) };
  const saved = await loadManifest(MANIFEST_FILE);
  if (saved === null) {
    say(`the chain in ${shown(NODE_DIR)} is unfinished (no manifest.json): starting it over`);
    await n0.stop();
    await rm(NODE_DIR, { recursive: true, force: true });
    const n = await startNode();
    return { n, manifest: await build(n) };
  }
  say(`reusing the chain from an earlier run (${height} blocks); mining 2 blocks with activity …`);
  await mineWithActivity(n0, 2, saved);
  await saveManifest(MANIFEST_FILE, saved);
  return { n: n0, manifest: saved };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = net.createServer();
    server.once('error', () => resolvePort(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)));
  });
}

async function choosePort(): Promise<number> {
  const wanted = process.env.ADDRSUM_DEMO_PORT;
  if (wanted !== undefined && wanted !== '') {
    const port = Number(wanted);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`ADDRSUM_DEMO_PORT: expected a port number (got ${JSON.stringify(wanted)})`);
    return port === 0 ? freePort() : port;
  }
  if (await portIsFree(8080)) return 8080;
  const port = await freePort();
  say(`port 8080 is taken; the API listens on ${port} instead`);
  return port;
}

async function indexAtNodeTip(n: Litecoind): Promise<boolean> {
  return indexedTip(DB_PATH)?.hash === (await n.cli<string>('getbestblockhash'));
}

async function main(): Promise<void> {
  requireLitecoind();
  await mkdir(DEMO_DIR, { recursive: true });
  say(`addrsum demo in ${shown(DEMO_DIR)}: regtest litecoind → LTC indexer → SQLite → HTTP API`);
  say(`starting litecoind -regtest (datadir ${shown(NODE_DIR)}) …`);
  const { n, manifest } = await prepareChain(await startNode());
  say(`node: litecoind pid ${n.pid}, RPC 127.0.0.1:${n.rpcPort}; ask it yourself:`);
  say(`  litecoin-cli -regtest -datadir=${shown(NODE_DIR)} -rpcport=${n.rpcPort} getblockchaininfo`);

  const keys = KeyStore.open(join(DEMO_DIR, 'keys.sqlite'));
  const key = keys.create('private', `demo ${new Date().toISOString()}`).key;
  keys.close();

  const port = await choosePort();
  const metricsPort = await freePort();
  // Only the demo's settings: a config file or variables meant for a real deployment stay out.
  const env: Record<string, string> = Object.fromEntries(ENV_VARIABLES.map((v) => [v, '']));
  Object.assign(env, {
    ADDRSUM_DATA_DIR: DEMO_DIR,
    ADDRSUM_LOG_LEVEL: 'info',
    ADDRSUM_LTC_NETWORK: 'regtest',
    ADDRSUM_LTC_RPC_URL: n.rpcUrl,
    ADDRSUM_LTC_RPC_COOKIE_FILE: n.cookieFile,
    ADDRSUM_LTC_METRICS_PORT: String(metricsPort),
    ADDRSUM_HOST: '127.0.0.1',
    ADDRSUM_PORT: String(port),
    ADDRSUM_UTXO_LIST: 'true',
  });
  const indexer = startChild('indexer', 'indexer/addrsum-indexer.ts', ['--chain', 'LTC'], env, join(DEMO_DIR, 'indexer.log'));
  children.push(indexer);
  const apiChild = startChild('API', 'src/api-process/addrsum-api.ts', [], env, join(DEMO_DIR, 'api.log'));
  children.push(apiChild);
  const api: ApiTarget = { base: `http://127.0.0.1:${port}`, key };
  await writeFile(
    INFO_FILE,
    `${JSON.stringify({ rpcUrl: n.rpcUrl, cookieFile: n.cookieFile, nodeDatadir: NODE_DIR, litecoindPid: n.pid, indexerPid: indexer.pid, apiPid: apiChild.pid, api: api.base }, null, 1)}\n`,
  );
  say(`indexer and API started; their logs: ${shown(indexer.logFile)}, ${shown(apiChild.logFile)}`);

  const started = Date.now();
  await waitUntil('the API to listen', async () => (await fetch(`${api.base}/health`)).ok, apiChild, 60_000);
  let lastReport = started;
  await waitUntil(
    'the index to reach the node tip',
    async () => {
      if (Date.now() - lastReport > 3000) {
        lastReport = Date.now();
        say(`  indexing: ${indexedTip(DB_PATH)?.height ?? 0} of ${await n.cli<number>('getblockcount')} blocks`);
      }
      return indexAtNodeTip(n);
    },
    indexer,
    180_000,
  );
  const tip = indexedTip(DB_PATH);
  say(`index at the node's tip after ${seconds(Date.now() - started)}: height ${tip?.height}, block ${tip?.hash}`);

  say('');
  say(`your API key (private tier, created now; more: ADDRSUM_DATA_DIR=${shown(DEMO_DIR)} npm run keys -- create):`);
  say(`  ${key}`);
  say(`every answer below was just given by the API; "node says" is litecoind's scantxoutset for the same address,`);
  say(`e.g. litecoin-cli -regtest -datadir=${shown(NODE_DIR)} -rpcport=${n.rpcPort} scantxoutset start '["addr(<address>)"]'`);
  const items = await chooseShowcase(n, manifest);
  let wrong = await printShowcase(n, api, items, say);
  wrong += await printMempoolAndBatch(n, api, items, say);
  await printUtxos(api, items, say);
  await printOps(api, `http://127.0.0.1:${metricsPort}/metrics`, say);
  say('');
  if (wrong > 0) say(`✗ ${wrong} answer(s) differ from the node: please report this with ${shown(DEMO_DIR)}/*.log`);
  await watch(n, manifest, api, items, indexer);
}

/** Mines a block with activity every BLOCK_EVERY_MS until stopped, reporting what moved. */
async function watch(
  n: Litecoind,
  manifest: ChainManifest,
  api: ApiTarget,
  items: Awaited<ReturnType<typeof chooseShowcase>>,
  indexer: DemoChild,
): Promise<void> {
  say(`mining a block every ${BLOCK_EVERY_MS / 1000} s so you can watch balances change — Ctrl-C to stop`);
  const balances = new Map<string, number>();
  await balanceChanges(api, items, balances);
  for (;;) {
    try {
      await sleep(BLOCK_EVERY_MS, undefined, { signal: stopSignal.signal });
    } catch {
      return;
    }
    try {
      const [hash] = await mineWithActivity(n, 1, manifest);
      const mined = Date.now();
      const block = await n.cli<{ height: number; nTx: number }>('getblock', hash, 1);
      await waitUntil(`block ${block.height} to be indexed`, () => indexAtNodeTip(n), indexer, 60_000, 100);
      say(`block ${block.height} mined (${block.nTx} transactions), indexed after ${seconds(Date.now() - mined)}`);
      for (const line of await balanceChanges(api, items, balances)) say(line);
      await saveManifest(MANIFEST_FILE, manifest);
    } catch (err) {
      if (stopSignal.signal.aborted) return;
      if (!indexer.running()) throw err;
      say(`(this round failed, trying again: ${err instanceof Error ? err.message : String(err)})`);
    }
  }
}

main().then(
  // After a signal, main returns while shutdown runs; the signal handler exits.
  () => undefined,
  async (err: unknown) => {
    if (stopSignal.signal.aborted) return;
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    await shutdown().catch(() => undefined);
    process.exit(1);
  },
);
