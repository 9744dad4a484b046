/**
 * A real `litecoind -regtest` for integration tests, the demo and benchmarks.
 *
 * Each node gets its own datadir (a fresh temp dir unless one is given) and free loopback ports, talks
 * to nobody (-listen=0 -connect=0 -dnsseed=0), and is always stopped: by stop(), by an exit hook, and
 * by a detached watchdog that outlives a SIGKILLed test runner (see watchdog.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeClient, NodeError } from '../src/node/node-client.js';
import { freePort } from './ports.js';
import { startWatchdog } from './watchdog.js';
import { parseJsonDecimalsAsText } from './rpc-json.js';

export interface StartOptions {
  /** Extra litecoind arguments, e.g. ['-rest=0'] or ['-reindex-chainstate']. */
  extraArgs?: string[];
  /** Use this datadir (created if missing) and keep it on stop. Default: a temp dir removed on stop. */
  datadir?: string;
  /** A stopped node's datadir (chain-cache.ts) copied into the temp dir first; not with `datadir`. */
  from?: string;
  /** 'password' (default): rpcuser/rpcpassword in the URL; 'cookie': the node writes `regtest/.cookie`. */
  auth?: 'password' | 'cookie';
  /** Wallet to create on first start (loaded on every later start); false for none. Default 'test'. */
  wallet?: string | false;
  /** How long to wait for RPC to answer. Default 60 s. */
  startTimeoutMs?: number;
}

export interface RestartOptions {
  /** Replaces the extra arguments of the previous start (e.g. add, then drop, -reindex-chainstate). */
  extraArgs?: string[];
}

export interface Litecoind {
  /** `http://user:pass@127.0.0.1:port` (password auth) or `http://127.0.0.1:port` (cookie auth). */
  readonly rpcUrl: string;
  readonly rpcPort: number;
  readonly p2pPort: number;
  readonly datadir: string;
  /** Where the node writes its cookie (exists only in cookie mode, while the node runs). */
  readonly cookieFile: string;
  readonly rpcUser: string | null;
  readonly rpcPassword: string | null;
  /** A client for this node (REST for blocks); stays valid across restart(). */
  readonly client: NodeClient;
  /** Process id of the running litecoind, undefined when stopped. */
  readonly pid: number | undefined;
  /** Calls an RPC; amounts come back as JSON doubles. */
  cli<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /** Calls an RPC keeping every non-integer number as its exact decimal text (for amounts). */
  cliExact<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /** Graceful `stop`, wait for exit (SIGKILL after 20 s), then remove a temp datadir. Idempotent. */
  stop(): Promise<void>;
  /** Stops and starts again on the same datadir and ports. */
  restart(opts?: RestartOptions): Promise<void>;
}

const BINARY = process.env.ADDRSUM_LITECOIND ?? 'litecoind';
const STOP_GRACE_MS = 20_000;

/** Every node this process started and has not yet stopped, for the exit hook. */
const live = new Set<NodeProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: kill hard, then delete temp datadirs. A kept datadir gets
  // SIGTERM instead, which lets the node shut down cleanly on its own.
  process.on('exit', () => {
    for (const n of live) {
      n.child?.kill(n.removeDatadir ? 'SIGKILL' : 'SIGTERM');
      if (n.removeDatadir) rmSync(n.datadir, { recursive: true, force: true });
    }
  });
}

interface NodeProcess {
  child: ChildProcess | undefined;
  exited: Promise<void>;
  /** Set when the node exited while nobody was stopping it: its exit, stderr and debug.log tail. */
  died: string | null;
  stopping: boolean;
  datadir: string;
  removeDatadir: boolean;
}

export async function startLitecoind(opts: StartOptions = {}): Promise<Litecoind> {
  installExitHook();
  const removeDatadir = opts.datadir === undefined;
  if (opts.from !== undefined && opts.datadir !== undefined)
    throw new Error('startLitecoind: `from` copies into a temp dir, not into `datadir`');
  const datadir = opts.datadir ?? (await mkdtemp(join(tmpdir(), 'addrsum-ltc-')));
  await mkdir(datadir, { recursive: true });
  if (opts.from !== undefined) await cp(opts.from, datadir, { recursive: true });
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const cookieMode = opts.auth === 'cookie';
  const rpcUser = cookieMode ? null : 'addrsum';
  const rpcPassword = cookieMode ? null : randomBytes(16).toString('hex');
  const rpcUrl = cookieMode ? `http://127.0.0.1:${rpcPort}` : `http://${rpcUser}:${rpcPassword}@127.0.0.1:${rpcPort}`;
  const cookieFile = join(datadir, 'regtest', '.cookie');
  const client = new NodeClient(cookieMode ? { url: rpcUrl, cookieFile, timeoutMs: 120_000 } : { url: rpcUrl, timeoutMs: 120_000 });
  const wallet = opts.wallet ?? 'test';
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const proc: NodeProcess = { child: undefined, exited: Promise.resolve(), died: null, stopping: false, datadir, removeDatadir };
  let extraArgs = opts.extraArgs ?? [];

  const baseArgs = (): string[] => [
    '-regtest',
    `-datadir=${datadir}`,
    `-rpcport=${rpcPort}`,
    `-port=${p2pPort}`,
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    ...(cookieMode ? [] : [`-rpcuser=${rpcUser}`, `-rpcpassword=${rpcPassword}`]),
    '-server=1',
    '-rest=1',
    '-txindex=0',
    '-fallbackfee=0.0001',
    '-acceptnonstdtxn=1',
    // No peers, no outside network: loopback RPC only.
    '-listen=0',
    '-connect=0',
    '-dnsseed=0',
    '-discover=0',
    '-upnp=0',
    '-printtoconsole=0',
    // Tests issue calls in parallel; Core's defaults (4 threads, queue 16) answer 503 under bursts.
    '-rpcthreads=8',
    '-rpcworkqueue=256',
    // A legacy wallet pre-generates 1000 keys by default: seconds of CPU we do not need.
    '-keypool=100',
    // Regtest turns on the mempool's self-check, which 0.21.2.1 fails after a reorg that returns an MWEB
    // transaction to the mempool (txmempool.cpp:734 `pcoins->HaveCoin(input.GetIndex())`, SIGABRT): it
    // killed a reorg test about one run in fifteen. The check is a debugging aid, not validation.
    '-checkmempool=0',
  ];

  const launch = async (): Promise<void> => {
    const args = [...baseArgs(), ...extraArgs];
    const child = spawn(BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (s: string) => {
      stderr = (stderr + s).slice(-4000);
    });
    let exitInfo: string | null = null;
    proc.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        exitInfo = `code ${String(code)}, signal ${String(signal)}`;
        if (!proc.stopping) {
          // A crash mid-test otherwise shows only as "unreachable" on the next call: keep its cause.
          proc.died = `litecoind (${datadir}) exited unasked (${exitInfo}): ${stderr.trim()}\n${debugLogTail(datadir)}`;
          process.stderr.write(`${proc.died}\n`);
        }
        resolve();
      });
      child.once('error', (err) => {
        exitInfo = `spawn failed: ${err.message}`;
        resolve();
      });
    });
    proc.child = child;
    live.add(proc);
    if (child.pid !== undefined) startWatchdog(child.pid, removeDatadir ? datadir : null);

    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (exitInfo !== null) {
        live.delete(proc);
        proc.child = undefined;
        throw new Error(`litecoind exited during start (${exitInfo}): ${stderr.trim()}\n${debugLogTail(datadir)}`);
      }
      try {
        await client.call('getblockchaininfo');
        break;
      } catch (err) {
        const waiting = err instanceof NodeError && (err.code === 'UNREACHABLE' || err.code === 'WARMING_UP');
        if (!waiting) throw err;
        if (Date.now() > deadline) {
          await shutdown();
          throw new Error(`litecoind did not answer RPC within ${startTimeoutMs} ms: ${err.message}`);
        }
        await sleep(100);
      }
    }
    if (wallet !== false) await ensureWallet(client, wallet);
  };

  const shutdown = async (): Promise<void> => {
    const child = proc.child;
    if (child === undefined) return;
    proc.stopping = true;
    try {
      await client.call('stop');
    } catch {
      // Not answering: the kill below handles it.
    }
    // Core waits for open HTTP connections before it exits: drop our idle keep-alive sockets now.
    client.close();
    const exitedInTime = await Promise.race([
      proc.exited.then(() => true),
      sleep(STOP_GRACE_MS, undefined, { ref: false }).then(() => false),
    ]);
    if (!exitedInTime) {
      child.kill('SIGKILL');
      await proc.exited;
    }
    proc.child = undefined;
    proc.stopping = false;
    live.delete(proc);
  };

  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      // A node that drops the connection as it crashes exits a moment later: give it that moment.
      if (err instanceof NodeError && err.code === 'UNREACHABLE' && !proc.stopping)
        await Promise.race([proc.exited, sleep(3_000, undefined, { ref: false })]);
      if (proc.died === null) throw err;
      throw new Error(proc.died, { cause: err });
    }
  };

  await launch().catch(async (err: unknown) => {
    await shutdown();
    if (removeDatadir) await rm(datadir, { recursive: true, force: true });
    throw err;
  });

  return {
    rpcUrl,
    rpcPort,
    p2pPort,
    datadir,
    cookieFile,
    rpcUser,
    rpcPassword,
    client,
    get pid() {
      return proc.child?.pid;
    },
    cli: <T>(method: string, ...params: unknown[]) => call(() => client.call<T>(method, params)),
    cliExact: <T>(method: string, ...params: unknown[]) =>
      call(() => client.call<T>(method, params, { parseJson: parseJsonDecimalsAsText })),
    async stop() {
      await shutdown();
      if (removeDatadir) await rm(datadir, { recursive: true, force: true });
    },
    async restart(r: RestartOptions = {}) {
      await shutdown();
      if (r.extraArgs !== undefined) extraArgs = r.extraArgs;
      await launch();
    },
  };
}

/** Creates the wallet on first start; later starts load it from settings.json (load_on_startup). */
async function ensureWallet(client: NodeClient, name: string): Promise<void> {
  const loaded = await client.call<string[]>('listwallets');
  if (loaded.includes(name)) return;
  const onDisk = await client.call<{ wallets: { name: string }[] }>('listwalletdir');
  if (onDisk.wallets.some((w) => w.name === name)) {
    await client.call('loadwallet', [name, true]);
    return;
  }
  // createwallet name disable_private_keys blank passphrase avoid_reuse descriptors load_on_startup
  // (0.21.2.1 is built without sqlite: legacy wallets only, so no descriptor wallets and no bech32m).
  await client.call('createwallet', [name, false, false, '', false, false, true]);
}

function debugLogTail(datadir: string): string {
  try {
    return readFileSync(join(datadir, 'regtest', 'debug.log'), 'utf8').slice(-2000);
  } catch {
    return '(no debug.log)';
  }
}
