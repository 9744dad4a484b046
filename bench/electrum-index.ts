/**
 * The synthetic LTC index the Electrum benchmark (bench/electrum.ts) serves, built through the writer
 * port with history kept (as ADDRSUM_HISTORY=true has the indexer do): a deep script with `deep`
 * transactions, a shallow one with ~10, and `subscribable` scripts with one transaction each, the first
 * NOTIFIED of which the follow blocks pay (TOUCHED per block); blocks and mempool transactions paying the
 * deep script again, made as the measure needs them. Also the probes of the API process (RSS and CPU
 * from /proc, V8 heap from its /metrics after a full GC).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedTx } from '../src/chain/block-parser.js';
import type { BlockToApply } from '../src/store/index-model.js';
import type { IndexWriter } from '../src/store/ports.js';
import { openSqliteWriter } from '../src/store/sqlite/engine.js';
import { p2wpkh, SyntheticChain } from './synthetic-chain.js';

/** Scripts the notification blocks pay: the 10,000 subscribed over 100 connections. */
export const NOTIFIED = 10_000;
/** Of them, the scripts each follow block touches. */
export const TOUCHED = 500;
const PER_BLOCK = 5_000;
const PER_TX = 1_000;

export interface ElectrumIndex {
  writer: IndexWriter;
  deep: Buffer;
  shallow: Buffer;
  shallowTxs: number;
  /** The scripts subscribed; the first NOTIFIED of them are those the follow blocks pay. */
  scripts: Buffer[];
  /**
   * The next block for the notification measure, to apply next: it pays TOUCHED of the notified scripts
   * (`touched`: their indexes into `scripts`).
   */
  followBlock(): { block: BlockToApply; touched: number[] };
  /** The next block, paying the deep script once more. */
  deepBlock(): BlockToApply;
  /** A mempool transaction spending one of the deep script's coins back to it (the nth: each is another coin). */
  deepSpend(n: number): ParsedTx;
  buildSeconds: number;
}

/** Builds the index at `file` and leaves its writer open for the blocks made later. */
export async function buildElectrumIndex(file: string, deepTxs: number, subscribable: number): Promise<ElectrumIndex> {
  const chain = new SyntheticChain('electrum-bench');
  const deep = p2wpkh('electrum deep');
  const shallow = p2wpkh('electrum shallow');
  const scripts = Array.from({ length: subscribable }, (_, i) => p2wpkh(`electrum sub ${i}`));
  const miner = p2wpkh('electrum miner');
  const coinbase = (label: string): ParsedTx => chain.tx(`cb ${label}`, [{ script: miner, value: 50e8 }], true);
  const blocks: BlockToApply[] = [chain.block([coinbase('genesis')])];
  for (let made = 0; made < deepTxs; made += PER_BLOCK) {
    const txs = [coinbase(`deep ${made}`)];
    for (let i = made; i < Math.min(deepTxs, made + PER_BLOCK); i++)
      txs.push(chain.tx(`deep ${i}`, [{ script: deep, value: 1000 + i }], false));
    blocks.push(chain.block(txs));
  }
  const shallowTxs = 10;
  const setup = [coinbase('setup')];
  for (let i = 0; i < shallowTxs; i++) setup.push(chain.tx(`shallow ${i}`, [{ script: shallow, value: 5000 + i }], false));
  for (let i = 0; i < subscribable; i += PER_TX)
    setup.push(
      chain.tx(
        `subs ${i}`,
        scripts.slice(i, i + PER_TX).map((script, k) => ({ script, value: 10_000 + i + k })),
        false,
      ),
    );
  blocks.push(chain.block(setup));
  const writer = openSqliteWriter(file, { chain: 'LTC', network: 'mainnet', undoDepth: 6 });
  await writer.setHistory(true);
  const started = performance.now();
  for (let i = 0; i < blocks.length; i += 10)
    await writer.applyBlocks(blocks.slice(i, i + 10), { height: blocks.at(-1)!.height, at: new Date() });
  const buildSeconds = (performance.now() - started) / 1000;
  let [followed, deepPaid] = [0, 0];
  return {
    writer,
    deep,
    shallow,
    shallowTxs,
    scripts,
    buildSeconds,
    followBlock: () => {
      const b = followed++;
      // A stride coprime with NOTIFIED: each block's scripts spread over every connection.
      const touched = Array.from({ length: TOUCHED }, (_, i) => ((b * TOUCHED + i) * 7919) % NOTIFIED);
      const pay = touched.map((p, k) => ({ script: scripts[p]!, value: 20_000 + k }));
      return { block: chain.block([coinbase(`follow ${b}`), chain.tx(`follow ${b}`, pay, false)]), touched };
    },
    deepBlock: () => {
      const n = deepPaid++;
      return chain.block([coinbase(`deep more ${n}`), chain.tx(`deep more ${n}`, [{ script: deep, value: 7000 + n }], false)]);
    },
    deepSpend: (n) => chain.tx(`deep spend ${n}`, [{ script: deep, value: 900 }], false, [{ prevTxid: chain.txid(`deep ${n}`), vout: 0 }]),
  };
}

/** Resident set size of process `pid`, bytes. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`electrum bench: no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

let ticks = 0;
/** User plus system CPU seconds process `pid` has used (/proc/<pid>/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  ticks ||= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is the first, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/** V8 heap used of the API at `url`, from prom-client's default metrics on /metrics; NaN if absent. */
export async function heapUsedBytes(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^addrsum_api_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

/** NODE_OPTIONS for an API whose heap `collectedHeapBytes` reads: SIGUSR2 writes a heap snapshot into `dir`. */
export const heapSnapshotOptions = (dir: string): string =>
  `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`.trim();

/**
 * The V8 heap used of the API process `pid` (started with heapSnapshotOptions(dir)) after a full GC: a
 * heap snapshot collects garbage first, and the one way to ask for it from outside is the signal. Without
 * it, the heap used swings by megabytes with garbage not yet collected, more than 10,000 subscriptions take.
 */
export async function collectedHeapBytes(pid: number, url: string, dir: string): Promise<number> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 60_000;
  let snapshot: string | undefined;
  while (!(snapshot = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f)))) {
    if (Date.now() > deadline) throw new Error('electrum bench: the API wrote no heap snapshot');
    await sleep(20);
  }
  // The snapshot is written on the API's main thread: /metrics answers once it is done.
  const heap = await heapUsedBytes(url);
  rmSync(path.join(dir, snapshot));
  return heap;
}
