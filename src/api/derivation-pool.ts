/**
 * Wallet derivation off the event loop: a few worker threads (derivation-worker.ts) derive wallets in
 * slices of about SLICE_WORK units (wallet/derive.ts derivationWork), taken round-robin across callers
 * (fair-queue.ts). The API's thread only queues, unpacks and answers, so one caller's large wallet
 * delays nobody's address lookup, and delays another caller's wallet by its share of the threads only.
 *
 * The queue is bounded by time, not length: before a wallet is priced, admit() estimates how long it
 * would wait behind what is queued (at the throughput the threads have shown) and refuses it past
 * `maxWaitSeconds`, with Retry-After: 429 when the caller's own queued wallets are most of the wait,
 * 503 WALLETS_BUSY when other callers' are. Wallets small enough to answer at once derive inline.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChainCode, NetworkName } from '../chain/params.js';
import { scriptKey } from '../store/script-key.js';
import { WalletDeriver, type DerivedScript } from '../wallet/derive.js';
import type { Descriptor } from '../wallet/descriptor.js';
import { WalletError, WALLET_ERROR_CODES, type WalletErrorCode } from '../wallet/errors.js';
import { unpackSlice, type DerivedWallet, type PackedSlice, type SliceJob, type SliceReply } from './derivation-job.js';
import { ServingError } from '../serving/errors.js';
import { FairQueue } from './fair-queue.js';
import { workerModule } from '../worker-module.js';

/** Work units per slice: short enough that a waiting caller's turn comes soon, long enough that a message costs little. */
export const SLICE_WORK = 2000;
/** Wallets of at most this much work derive on the calling thread: less than a worker round trip would save. */
export const INLINE_WORK = 64;
/** Throughput assumed per thread until the threads have shown theirs. */
const INITIAL_UNITS_PER_SECOND = 20_000;
/** Weight of each new slice in the throughput average. */
const RATE_WEIGHT = 0.2;

export interface PoolSettings {
  /** Worker threads; 0 = one fewer than the machine's cores, at least 1, at most 4. */
  readonly threads: number;
  /** A wallet that would wait longer than this behind queued work is refused with Retry-After. */
  readonly maxWaitSeconds: number;
}

export const DEFAULT_POOL_SETTINGS: PoolSettings = { threads: 0, maxWaitSeconds: 10 };

/** A wallet to derive: the parsed descriptor, and the input text the worker threads parse again. */
export interface WalletJob {
  readonly desc: Descriptor;
  readonly input: string;
  readonly range: number;
  readonly maxRange: number;
  /** derivationWork(desc, range). */
  readonly work: number;
}

const WORKER = workerModule(import.meta.url, 'derivation-worker');
const WORKER_STUB = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx !== null) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();`;

interface Slice {
  readonly job: Running;
  /** Its place among the job's slices. */
  readonly part: number;
  readonly from: number;
  readonly to: number;
  readonly work: number;
}

interface Running {
  readonly caller: string;
  readonly wallet: WalletJob;
  readonly chain: ChainCode;
  readonly network: NetworkName;
  readonly parts: (PackedSlice | undefined)[];
  pending: number;
  failed: boolean;
  resolve(wallet: DerivedWallet): void;
  reject(err: unknown): void;
}

interface Thread {
  readonly worker: Worker;
  busy: { slice: Slice; id: number; started: number } | null;
}

function threadCount(settings: PoolSettings): number {
  return settings.threads > 0 ? settings.threads : Math.max(1, Math.min(4, availableParallelism() - 1));
}

function walletError(error: { code: string | null; message: string }): Error {
  const code = WALLET_ERROR_CODES.find((c) => c === error.code) as WalletErrorCode | undefined;
  return code ? new WalletError(code, error.message) : new Error(`wallet derivation failed: ${error.message}`);
}

export class DerivationPool {
  private readonly queue = new FairQueue<Slice>();
  private readonly threads: Thread[] = [];
  private readonly size: number;
  private unitsPerSecond = INITIAL_UNITS_PER_SECOND;
  private ids = 0;
  private closed = false;
  /** Work units derived on the threads since start. */
  doneWork = 0;

  constructor(readonly settings: PoolSettings = DEFAULT_POOL_SETTINGS) {
    this.size = threadCount(settings);
  }

  /** Work units queued or running on the threads. */
  get pendingWork(): number {
    return this.queue.totalWork + this.threads.reduce((n, t) => n + (t.busy?.slice.work ?? 0), 0);
  }

  /** Null when a wallet of `work` from `caller` may be queued now; else why not, with Retry-After. */
  admit(caller: string, work: number): ServingError | null {
    if (work <= INLINE_WORK) return null;
    const rate = this.unitsPerSecond * this.size;
    const own = this.queue.queuedWork(caller) / rate;
    const wait = (this.queue.workBefore(caller, work) - work) / rate;
    if (wait <= this.settings.maxWaitSeconds) return null;
    const retry = { 'Retry-After': String(Math.max(1, Math.ceil(wait - this.settings.maxWaitSeconds))) };
    if (own * 2 > wait) {
      return new ServingError(
        'RATE_LIMITED',
        `your wallets already queued would make this one wait about ${Math.ceil(wait)} s`,
        undefined,
        retry,
      );
    }
    return new ServingError(
      'WALLETS_BUSY',
      `wallet derivation is busy: this wallet would wait about ${Math.ceil(wait)} s`,
      undefined,
      retry,
    );
  }

  /** The wallet's scripts and store keys. */
  derive(caller: string, wallet: WalletJob): Promise<DerivedWallet> {
    if (wallet.work <= INLINE_WORK || this.closed) return Promise.resolve().then(() => deriveInline(wallet));
    return new Promise<DerivedWallet>((resolve, reject) => {
      const total = new WalletDeriver(wallet.desc, wallet).total;
      const perScript = wallet.work / total;
      const perSlice = Math.max(1, Math.floor(SLICE_WORK / perScript));
      const job: Running = {
        caller,
        wallet,
        chain: wallet.desc.params.chain,
        network: wallet.desc.params.network,
        parts: [],
        pending: 0,
        failed: false,
        resolve,
        reject,
      };
      for (let from = 0; from < total; from += perSlice) {
        const to = Math.min(total, from + perSlice);
        const work = (to - from) * perScript;
        this.queue.push(caller, { job, part: job.parts.length, from, to, work }, work);
        job.parts.push(undefined);
        job.pending += 1;
      }
      this.dispatch();
    });
  }

  /** Stops the threads; wallets still queued are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (;;) {
      const slice = this.queue.next();
      if (!slice) break;
      this.fail(slice.job, new ServingError('NOT_READY', 'the API is stopping'));
    }
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
    this.threads.length = 0;
  }

  private fail(job: Running, err: unknown): void {
    if (job.failed || job.pending === 0) return;
    job.failed = true;
    this.queue.remove(job.caller, (s) => s.job === job);
    job.reject(err);
  }

  private dispatch(): void {
    for (;;) {
      const thread = this.idleThread();
      if (!thread) return;
      const slice = this.queue.next();
      if (!slice) return;
      const id = ++this.ids;
      const { job } = slice;
      const message: SliceJob = {
        id,
        chain: job.chain,
        network: job.network,
        input: job.wallet.input,
        range: job.wallet.range,
        maxRange: job.wallet.maxRange,
        from: slice.from,
        to: slice.to,
      };
      thread.busy = { slice, id, started: performance.now() };
      thread.worker.ref();
      thread.worker.postMessage(message);
    }
  }

  private idleThread(): Thread | null {
    const idle = this.threads.find((t) => t.busy === null);
    if (idle) return idle;
    if (this.threads.length >= this.size || this.closed) return null;
    const thread = this.spawn();
    this.threads.push(thread);
    return thread;
  }

  private spawn(): Thread {
    const worker = new Worker(WORKER_STUB, { eval: true, workerData: WORKER });
    const thread: Thread = { worker, busy: null };
    worker.unref();
    worker.on('message', (reply: SliceReply) => this.done(thread, reply));
    const lost = (err: unknown) => {
      const at = this.threads.indexOf(thread);
      if (at >= 0) this.threads.splice(at, 1);
      if (thread.busy)
        this.fail(thread.busy.slice.job, err instanceof Error ? err : new Error(`derivation thread stopped (${String(err)})`));
      thread.busy = null;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(code));
    return thread;
  }

  private done(thread: Thread, reply: SliceReply): void {
    const busy = thread.busy;
    if (!busy || busy.id !== reply.id) return;
    thread.busy = null;
    thread.worker.unref();
    const { job, part, work } = busy.slice;
    const seconds = (performance.now() - busy.started) / 1000;
    this.doneWork += work;
    if (seconds > 0) this.unitsPerSecond = (1 - RATE_WEIGHT) * this.unitsPerSecond + RATE_WEIGHT * (work / seconds);
    if ('error' in reply) this.fail(job, walletError(reply.error));
    else if (!job.failed) {
      job.parts[part] = reply.slice;
      job.pending -= 1;
      if (job.pending === 0) job.resolve(assemble(job.parts as PackedSlice[]));
    }
    this.dispatch();
  }
}

function deriveInline(wallet: WalletJob): DerivedWallet {
  const deriver = new WalletDeriver(wallet.desc, wallet);
  const scripts = deriver.slice(0, deriver.total);
  return { scripts, keys: scripts.map((s) => scriptKey(s.script)) };
}

function assemble(parts: readonly PackedSlice[]): DerivedWallet {
  const into: { scripts: DerivedScript[]; keys: Buffer[] } = { scripts: [], keys: [] };
  for (const part of parts) unpackSlice(part, into);
  return into;
}

let shared: DerivationPool | null = null;

/** The process's pool with the default settings, for apps built without one (tests, tools). */
export function defaultPool(): DerivationPool {
  return (shared ??= new DerivationPool());
}
