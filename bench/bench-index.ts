/**
 * Our index of the benchmark chain: built by the real indexer process (`indexer/addrsum-indexer.ts`, as
 * `npm run indexer` runs it) and kept under data/bench/index-<chain version>/ltc.sqlite for the disk
 * and tip benchmarks. bench/node.ts rebuilds it on every run (building it is what it measures).
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chainDbPath } from '../src/store/paths.js';
import { indexedTip } from '../harness/index-check.js';
import { makeDataDir, startIndexer, type IndexerProcess } from '../harness/indexer-process.js';
import type { Litecoind } from '../harness/litecoind.js';
import { trackChild, trackDir, untrackDir } from './emergency.js';
import { BENCH_DIR, CHAIN_VERSION, startBenchNode, type Log } from './bench-chain.js';

export const indexCacheDir = (): string => join(BENCH_DIR, `index-${CHAIN_VERSION}`);
/** The cached index of the benchmark chain (exists after bench/node.ts or ensureBenchIndex()). */
export const benchIndexPath = (): string => chainDbPath(indexCacheDir(), 'LTC');

export interface IndexRun {
  /** From spawning the indexer to its database reporting the node's height. */
  seconds: number;
  /** Temporary data dir holding ltc.sqlite; the caller deletes it (removeIndexDir). */
  dataDir: string;
}

const POLL_MS = 20;

/**
 * Runs the indexer from an empty data dir against `node` until it has indexed `height`, then stops it
 * with SIGTERM (a clean stop checkpoints the WAL into the main file).
 */
export async function indexFromScratch(node: Litecoind, height: number, timeoutMs = 600_000): Promise<IndexRun> {
  const dataDir = await makeDataDir('addrsum-bench-index-');
  trackDir(dataDir);
  const dbPath = chainDbPath(dataDir, 'LTC');
  let indexer: IndexerProcess | undefined;
  try {
    const started = performance.now();
    indexer = await startIndexer({ chain: 'LTC', dataDir, rpcUrl: node.rpcUrl });
    const proc = indexer;
    trackChild(proc.child);
    let exited = false;
    void proc.exited.then(() => (exited = true));
    for (;;) {
      if ((indexedTip(dbPath)?.height ?? -1) >= height) break;
      if (exited) throw new Error(`indexer exited before reaching height ${height}:\n${proc.output().slice(-3000)}`);
      if (performance.now() - started > timeoutMs) throw new Error(`indexer did not reach height ${height} in ${timeoutMs} ms`);
      await sleep(POLL_MS);
    }
    const seconds = (performance.now() - started) / 1000;
    await stopIndexer(proc);
    return { seconds, dataDir };
  } catch (err) {
    indexer?.kill('SIGKILL');
    await removeIndexDir(dataDir);
    throw err;
  }
}

/** Deletes a data dir made by indexFromScratch(). */
export async function removeIndexDir(dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true });
  untrackDir(dataDir);
}

/** SIGTERM, then SIGKILL if it has not exited within 20 s. */
export async function stopIndexer(indexer: IndexerProcess): Promise<void> {
  indexer.kill('SIGTERM');
  const done = await Promise.race([indexer.exited.then(() => true), sleep(20_000).then(() => false)]);
  if (!done) {
    indexer.kill('SIGKILL');
    await indexer.exited;
  }
}

/** Copies a chain database with its WAL (if any): the two files are one database until checkpointed. */
export async function copyIndex(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  if (existsSync(`${from}-wal`)) await copyFile(`${from}-wal`, `${to}-wal`);
}

/** Copies an index built by indexFromScratch() into the cache (replacing any older one). */
export async function saveBenchIndex(dataDir: string, note: object): Promise<void> {
  const dir = indexCacheDir();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const from = chainDbPath(dataDir, 'LTC');
  await copyIndex(from, benchIndexPath());
  await writeFile(
    join(dir, 'bench-index.json'),
    `${JSON.stringify({ chainVersion: CHAIN_VERSION, builtAt: new Date().toISOString(), ...note }, null, 2)}\n`,
  );
}

/** The cached index's path, building it first (node on a copy of the chain + indexer) when absent. */
export async function ensureBenchIndex(log: Log = console.log): Promise<string> {
  if (existsSync(join(indexCacheDir(), 'bench-index.json'))) return benchIndexPath();
  log('bench index: absent, indexing the benchmark chain once (bench/node.ts does this too)');
  const bench = await startBenchNode(log);
  try {
    const run = await indexFromScratch(bench.node, bench.chain.height);
    try {
      await saveBenchIndex(run.dataDir, { indexSeconds: run.seconds, by: 'ensureBenchIndex' });
    } finally {
      await removeIndexDir(run.dataDir);
    }
  } finally {
    await bench.cleanup();
  }
  return benchIndexPath();
}
