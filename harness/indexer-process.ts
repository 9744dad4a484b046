/**
 * Runs the real indexer (`indexer/addrsum-indexer.ts`, as `npm run indexer` does) as a child process, so tests
 * exercise start-up, configuration, signals and SIGKILL exactly as an operator would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainCode } from '../src/chain/params.js';
import { freePort } from './ports.js';

export const REPO_ROOT = new URL('../', import.meta.url).pathname;

export interface IndexerEnv {
  chain: ChainCode;
  dataDir: string;
  rpcUrl: string;
  /** How often the indexer polls its node; default 100 ms, so tests do not wait on the timer. */
  pollIntervalMs?: number;
  /** Extra TOML appended to the per-run config file (e.g. a smaller undo depth). */
  toml?: string;
  env?: Record<string, string>;
  /** Extra command-line arguments after `--chain X` (e.g. `--bootstrap FILE`). */
  args?: string[];
}

export interface IndexerProcess {
  readonly child: ChildProcess;
  readonly metricsPort: number;
  output(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

export async function makeDataDir(prefix = 'addrsum-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Starts `tsx indexer/addrsum-indexer.ts --chain X` with the given node and data dir; polls every 100 ms. */
export async function startIndexer(opts: IndexerEnv): Promise<IndexerProcess> {
  const metricsPort = await freePort();
  const configFile = join(opts.dataDir, `indexer-${opts.chain}.toml`);
  await writeFile(
    configFile,
    `[chains.${opts.chain}]\nnetwork = "regtest"\npollIntervalMs = ${opts.pollIntervalMs ?? 100}\n${opts.toml ?? ''}\n`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'indexer/addrsum-indexer.ts', '--chain', opts.chain, ...(opts.args ?? [])], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ADDRSUM_CONFIG: configFile,
      ADDRSUM_DATA_DIR: opts.dataDir,
      [`ADDRSUM_${opts.chain}_RPC_URL`]: opts.rpcUrl,
      [`ADDRSUM_${opts.chain}_METRICS_PORT`]: String(metricsPort),
      ADDRSUM_LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    metricsPort,
    output: () => out,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Polls `probe` until it returns true; fails with `what` and the indexer's output after `timeoutMs`. */
export async function waitFor(
  what: string,
  probe: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  indexer?: IndexerProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${indexer ? `\nindexer output:\n${indexer.output().slice(-4000)}` : ''}`);
}

/**
 * SIGKILLs the indexer at a random moment after it has committed at least one more batch, i.e. while
 * it is busy catching up. Returns false (without killing) when it reached the tip first.
 */
export async function killMidCatchUp(
  indexer: IndexerProcess,
  height: () => number | null | Promise<number | null>,
  atTip: () => boolean | Promise<boolean>,
): Promise<boolean> {
  const before = (await height()) ?? -1;
  await waitFor('the indexer to apply blocks', async () => ((await height()) ?? -1) > before || (await atTip()), 60_000, indexer);
  await sleep(Math.floor(Math.random() * 150));
  if (await atTip()) return false;
  indexer.kill('SIGKILL');
  await indexer.exited;
  return true;
}

/** `npm run verify -- --chain X` as an operator runs it, on `dataDir`: its exit status and output. */
export function runVerifyCli(chain: ChainCode, dataDir: string, env: Record<string, string> = {}): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/store/addrsum-verify.ts', '--chain', chain], {
    cwd: REPO_ROOT,
    env: { ...process.env, ADDRSUM_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}
