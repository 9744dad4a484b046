/**
 * The benchmarks' Litecoin regtest chain: 2,200 blocks, ~58,000 transactions, ~400,000 UTXOs, mined by a real
 * litecoind, generated once and cached as the node's whole datadir under data/bench/chain-<version>/.
 * Every benchmark run starts a node on a temporary copy, so the cache is never modified.
 *
 * Generation (~1–2 min on 2 cores): 200 blocks whose coinbases pay our own keys, then 2,000 blocks of 28
 * transactions each, built and signed in this process (chain-gen-tx.ts) and sent as JSON-RPC batches of
 * [sendrawtransaction × 28, generatetoaddress 1] × 25 blocks (rpc-batch.ts); the next batch is signed
 * while the node works through the previous one. MWEB is kept from activating (-vbparams, regtest only):
 * its activation block needs a wallet peg-in, and the chain stays in the format Bitcoin shares. Every
 * start on this chain must pass CHAIN_NODE_ARGS, or the node would judge block 432 invalid.
 */
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { startLitecoind, type Litecoind } from '../harness/litecoind.js';
import { TxFactory, hotAddress, type Coin } from './chain-gen-tx.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine } from './report.js';
import { RpcBatch, type RpcCall } from './rpc-batch.js';

export const BENCH_DIR = fileURLToPath(new URL('../data/bench/', import.meta.url));

/** Bump when the generator changes: a cache of another version is ignored (and can be deleted). */
export const CHAIN_VERSION = 'ltc-v3';

const PLAN = { seed: 'bench-v1', keys: 3000, setupBlocks: 200, txBlocks: 2000, txsPerBlock: 28, blocksPerBatch: 25 };

/** Node flags every start on the cached chain needs (see the header). */
export const CHAIN_NODE_ARGS: readonly string[] = ['-vbparams=mweb:9999999999:9999999999'];

export interface BenchChain {
  version: string;
  height: number;
  bestHash: string;
  /** Transactions in the chain, coinbases included (getchaintxstats). */
  txCount: number;
  /** Core's UTXO count at the tip (gettxoutsetinfo txouts). */
  utxoCount: number;
  /** Bytes of blk*.dat files (serialized blocks). */
  blockBytes: number;
  /** P2WPKH / P2PKH scripts many payments went to, busiest first. */
  hotAddresses: string[];
  generatedSeconds: number;
  generatedAt: string;
  generatedOn: string;
}

export type Log = (line: string) => void;

export const chainCacheDir = (): string => join(BENCH_DIR, `chain-${CHAIN_VERSION}`);
const manifestPath = (dir: string): string => join(dir, 'bench-chain.json');

/** The cached chain's description, generating the chain first when there is no complete cache. */
export async function ensureBenchChain(log: Log = console.log): Promise<BenchChain> {
  const dir = chainCacheDir();
  if (existsSync(manifestPath(dir))) return JSON.parse(await readFile(manifestPath(dir), 'utf8')) as BenchChain;
  await mkdir(BENCH_DIR, { recursive: true });
  const partial = join(BENCH_DIR, `.partial-chain-${CHAIN_VERSION}-${process.pid}`);
  await rm(partial, { recursive: true, force: true });
  trackDir(partial);
  try {
    log(`bench chain: generating ${PLAN.setupBlocks + PLAN.txBlocks} blocks into ${dir} (once; cached afterwards)`);
    const chain = await generate(partial, log);
    // The manifest is written last: its presence is what marks a complete cache.
    await writeFile(manifestPath(partial), `${JSON.stringify(chain, null, 2)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
    return chain;
  } finally {
    await rm(partial, { recursive: true, force: true });
    untrackDir(partial);
  }
}

export interface BenchNode {
  /** The running node (replaced by launch()). */
  node: Litecoind;
  chain: BenchChain;
  /** The temporary copy of the cached datadir the node runs on. */
  datadir: string;
  /** Starts a new litecoind on the same datadir (stop the running one first); resolves once RPC answers. */
  launch(extraArgs?: readonly string[]): Promise<Litecoind>;
  /** Stops the node (if running) and deletes the copy. */
  cleanup(): Promise<void>;
}

/** Starts litecoind on a fresh temporary copy of the cached chain (generated first if absent). */
export async function startBenchNode(log: Log = console.log, extraArgs: readonly string[] = []): Promise<BenchNode> {
  const chain = await ensureBenchChain(log);
  const datadir = await mkdtemp(join(tmpdir(), 'addrsum-bench-node-'));
  trackDir(datadir);
  try {
    await cp(chainCacheDir(), datadir, { recursive: true });
    await rm(manifestPath(datadir), { force: true });
    const start = (args: readonly string[]): Promise<Litecoind> =>
      startLitecoind({ datadir, wallet: false, extraArgs: [...CHAIN_NODE_ARGS, ...args] });
    const bench: BenchNode = {
      node: await start(extraArgs),
      chain,
      datadir,
      async launch(args = []) {
        bench.node = await start(args);
        return bench.node;
      },
      async cleanup() {
        await bench.node.stop();
        await rm(datadir, { recursive: true, force: true });
        untrackDir(datadir);
      },
    };
    return bench;
  } catch (err) {
    await rm(datadir, { recursive: true, force: true });
    untrackDir(datadir);
    throw err;
  }
}

async function generate(datadir: string, log: Log): Promise<BenchChain> {
  const started = performance.now();
  const node = await startLitecoind({ datadir, wallet: false, extraArgs: [...CHAIN_NODE_ARGS] });
  const rpc = new RpcBatch(node.rpcUrl);
  try {
    const factory = new TxFactory(PLAN.seed, PLAN.keys);

    // 1. Coinbases to our keys; those of heights 1..100 are mature (COINBASE_MATURITY) from height 200 on.
    const setup = await rpc.run<string[]>(
      Array.from({ length: PLAN.setupBlocks }, (_, i) => ({ method: 'generatetoaddress', params: [1, factory.keyAddress(i)] })),
    );
    const blocks = await rpc.run<{ tx: string[] }>(setup.slice(0, 100).map((h) => ({ method: 'getblock', params: [h[0], 1] })));
    // Regtest subsidy is 50 LTC below height 150 (halving every 150 blocks); those blocks carry no fees.
    factory.addCoins(blocks.map((b, i) => ({ txid: Buffer.from(b.tx[0]!, 'hex').reverse(), vout: 0, value: 50e8, key: i })));

    // 2. Blocks of transactions, one batch in flight while the next is signed.
    let inflight: Promise<unknown> | null = null;
    let lastLog = performance.now();
    for (let done = 0; done < PLAN.txBlocks; done += PLAN.blocksPerBatch) {
      const calls = await buildBatch(factory, Math.min(PLAN.blocksPerBatch, PLAN.txBlocks - done));
      if (inflight) await inflight;
      inflight = rpc.run(calls);
      inflight.catch(() => undefined); // observed by the await above or below
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`  ${done}/${PLAN.txBlocks} transaction blocks, ${((lastLog - started) / 1000).toFixed(0)} s`);
      }
    }
    await inflight;

    const height = await rpc.call<number>('getblockcount');
    const mempool = await rpc.call<{ size: number }>('getmempoolinfo');
    if (height !== PLAN.setupBlocks + PLAN.txBlocks || mempool.size !== 0) {
      throw new Error(`bench chain: height ${height}, ${mempool.size} transactions left in the mempool`);
    }
    const stats = await rpc.call<{ txcount: number }>('getchaintxstats');
    const utxos = await rpc.call<{ txouts: number; bestblock: string }>('gettxoutsetinfo');
    const info = await rpc.call<{ size_on_disk: number }>('getblockchaininfo');
    const hot = await rpc.call<{ unspents: { scriptPubKey: string }[] }>(
      'scantxoutset',
      'start',
      factory.hotScripts.map((s) => `raw(${s.toString('hex')})`),
    );
    const perScript = new Map<string, number>();
    for (const u of hot.unspents) perScript.set(u.scriptPubKey, (perScript.get(u.scriptPubKey) ?? 0) + 1);
    const hotAddresses = [...perScript.entries()].sort((a, b) => b[1] - a[1]).map(([s]) => hotAddress(Buffer.from(s, 'hex')));
    const generatedSeconds = (performance.now() - started) / 1000;
    log(`bench chain: ${height} blocks, ${stats.txcount} transactions, ${utxos.txouts} UTXOs in ${generatedSeconds.toFixed(1)} s`);
    return {
      version: CHAIN_VERSION,
      height,
      bestHash: utxos.bestblock,
      txCount: stats.txcount,
      utxoCount: utxos.txouts,
      blockBytes: info.size_on_disk,
      hotAddresses,
      generatedSeconds,
      generatedAt: new Date().toISOString(),
      generatedOn: machineLine(),
    };
  } finally {
    rpc.close();
    await node.stop();
  }
}

/** `nBlocks` × ([sendrawtransaction × txsPerBlock], generatetoaddress 1); change is spendable from the next block. */
async function buildBatch(factory: TxFactory, nBlocks: number): Promise<RpcCall[]> {
  const calls: RpcCall[] = [];
  for (let b = 0; b < nBlocks; b++) {
    const change: Coin[] = [];
    for (let t = 0; t < PLAN.txsPerBlock; t++) {
      const tx = factory.build();
      if (!tx) break;
      calls.push({ method: 'sendrawtransaction', params: [tx.hex, 0] });
      change.push(...tx.change);
    }
    calls.push({ method: 'generatetoaddress', params: [1, factory.randomKeyAddress()] });
    factory.addCoins(change);
    // Let the batch in flight make progress (its HTTP body and reply go through this event loop).
    await yieldToLoop();
  }
  return calls;
}
