/**
 * Keeps the index's mempool view (MempoolWriter, src/store/ports.ts) equal to the node's mempool.
 *
 * Two sources, one state:
 * - ZMQ `sequence` (A = added, R = removed; C/D = block connected/disconnected) with `rawtx` carrying
 *   the bytes, where the node publishes them: each event is applied within `zmqBatchMs`, the bytes
 *   taken from a bounded stash of recent `rawtx` messages (fetched over RPC when missing).
 * - A timer reconcile against `getrawmempool`, the only source on a node without ZMQ (Debian's
 *   litecoind): incremental — it removes the txids the node no longer has and fetches only the txids
 *   we do not hold. It also repairs anything a lost ZMQ message left behind.
 *
 * Only while the index is at the node's tip: a mempool is relative to the node's best block, so while the
 * sync loop catches up, the view waits (transactions spending coins not indexed yet stay unresolved and
 * are retried). Blocks themselves remove what they mine or conflict (the writer's applyBlocks, same commit).
 *
 * Memory: the stash is capped (`stashBytes` of raw transactions, held parsed); a reconcile holds the
 * node's txid list and ours (as JS strings) and one fetch chunk (`chunk` raw transactions) plus the
 * children waiting for a parent in a later chunk, so it grows with the mempool's transaction count, not
 * its bytes; the view itself lives in the index.
 */
import { toDisplayHex } from '../src/chain/hash.js';
import { parseTransaction } from '../src/chain/tx-parser.js';
import type { ParsedTx } from '../src/chain/block-parser.js';
import type { MempoolSource } from './mempool-source.js';
import { Wake } from './wake.js';
import type { LogSink } from '../src/logger.js';
import { NodeError } from '../src/node/rpc-errors.js';
import type { Tip } from '../src/store/index-model.js';
import type { MempoolWriter } from '../src/store/ports.js';

/** How soon a reconcile skipped because the index is behind the node is tried again. */
const RETRY_BEHIND_MS = 500;
/** While the node fails, one line at the first failure, then at most one per this long. */
const FAILING_LOG_EVERY_MS = 30_000;

export interface MempoolFollowOptions {
  /** How often to reconcile with getrawmempool (the only source without ZMQ). */
  pollIntervalMs: number;
  /** Raw transactions fetched per chunk during a reconcile. Default 500. */
  chunk?: number;
  /** Cap of the rawtx stash, bytes. Default 16 MiB. */
  stashBytes?: number;
  /** ZMQ events are applied in batches at most this old. Default 20 ms. */
  zmqBatchMs?: number;
  /** After a failure the next try waits this long, doubling per failure up to retryMaxMs. Default 1 s. */
  retryBaseMs?: number;
  /** Default 30 s, as the sync loop's retries (src/node/node-retry.ts). */
  retryMaxMs?: number;
  /** Called after each reconcile that ran (not skipped), with its duration in seconds. */
  onReconcile?: (seconds: number) => void;
  /** Called per pass failed by a node error, with its code, e.g. to count node_retries_total. */
  onRetry?: (code: string) => void;
}

/** The node failing: since when, how often, and when we last said so. */
interface Outage {
  since: number;
  failures: number;
  loggedAt: number;
}

export interface ReconcileReport {
  skipped: boolean;
  added: number;
  removed: number;
  unresolved: number;
}

export class MempoolFollower {
  private readonly wake = new Wake();
  /** ZMQ: txids (display hex) announced added, in arrival order, and removed. */
  private readonly announced = new Map<string, true>();
  private readonly withdrawn = new Set<string>();
  /** Recent rawtx payloads, parsed, by txid (display hex), oldest first; bounded by stashBytes of raw size. */
  private readonly stash = new Map<string, { tx: ParsedTx; bytes: number }>();
  private stashSize = 0;
  private nextReconcile = 0;
  private seenClears = 0;
  private readonly chunk: number;
  private readonly stashBytes: number;
  private readonly zmqBatchMs: number;
  private outage: Outage | null = null;

  constructor(
    private readonly store: MempoolWriter,
    private readonly tip: () => Promise<Tip | null>,
    private readonly source: MempoolSource,
    private readonly opts: MempoolFollowOptions,
    private readonly log: LogSink,
    /** Called on a ZMQ block event: wakes the sync loop. */
    private readonly onBlock: () => void = () => undefined,
  ) {
    this.chunk = opts.chunk ?? 500;
    this.stashBytes = opts.stashBytes ?? 16 * 1024 * 1024;
    this.zmqBatchMs = opts.zmqBatchMs ?? 20;
  }

  /** A `rawtx` message: keep its bytes for the `sequence` A event that names it. */
  onRawTx(raw: Buffer): void {
    let tx: ParsedTx;
    try {
      tx = parseTransaction(raw);
    } catch {
      return; // unparseable: the A event will fetch it over RPC and report the problem there
    }
    const txid = toDisplayHex(tx.txid);
    if (this.stash.has(txid)) return;
    this.stash.set(txid, { tx, bytes: raw.length });
    this.stashSize += raw.length;
    for (const [old, entry] of this.stash) {
      if (this.stashSize <= this.stashBytes) break;
      this.stash.delete(old);
      this.stashSize -= entry.bytes;
    }
  }

  /** A `sequence` message: label A/R for mempool transactions, C/D for blocks. */
  onSequence(hashHex: string, label: string): void {
    if (label === 'A') {
      this.withdrawn.delete(hashHex);
      this.announced.set(hashHex, true);
    } else if (label === 'R') {
      this.announced.delete(hashHex);
      this.withdrawn.add(hashHex);
    } else if (label === 'C' || label === 'D') {
      this.onBlock();
      return;
    } else {
      return;
    }
    this.wake.notify();
  }

  /**
   * Reconciles now and then on every timer tick, applying ZMQ events as they come, until `signal` aborts.
   * Reconcile and ZMQ application never interleave (one loop), so a reconcile never mistakes a
   * transaction announced after its getrawmempool answer for one the node dropped.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        // A rollback emptied the view: re-read the node's mempool as soon as the index is at its tip.
        if (this.store.clears() !== this.seenClears) {
          this.seenClears = this.store.clears();
          this.nextReconcile = 0;
        }
        if (performance.now() >= this.nextReconcile) {
          this.nextReconcile = performance.now() + this.opts.pollIntervalMs;
          const started = performance.now();
          const report = await this.reconcile();
          this.recovered();
          if (!report.skipped) this.opts.onReconcile?.((performance.now() - started) / 1000);
          // Behind the node (catching up, or a block not applied yet): look again soon, not a whole interval later.
          if (report.skipped) this.nextReconcile = performance.now() + Math.min(this.opts.pollIntervalMs, RETRY_BEHIND_MS);
        }
        await this.applyAnnounced();
      } catch (err) {
        if (signal.aborted) break;
        this.failed(err);
      }
      // Capped so a rollback's clear (counted by the store, not signalled) is noticed within RETRY_BEHIND_MS.
      const untilReconcile = Math.min(RETRY_BEHIND_MS, Math.max(0, this.nextReconcile - performance.now()));
      await this.wake.wait(untilReconcile, signal);
      // Let a burst of ZMQ events gather into one commit.
      if (!signal.aborted && this.announced.size + this.withdrawn.size > 0 && this.zmqBatchMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.zmqBatchMs));
      }
    }
  }

  /**
   * A failed pass: back off (doubling, capped) instead of retrying at every tick, and say so once at
   * the start and then rarely: an outage of the node is one event, not one line per second.
   */
  private failed(err: unknown): void {
    const now = performance.now();
    const outage = (this.outage ??= { since: now, failures: 0, loggedAt: Number.NEGATIVE_INFINITY });
    outage.failures++;
    const base = this.opts.retryBaseMs ?? 1000;
    const delay = Math.min(this.opts.retryMaxMs ?? 30_000, base * 2 ** Math.min(outage.failures - 1, 30));
    this.nextReconcile = now + delay;
    const code = err instanceof NodeError ? err.code : 'INTERNAL';
    if (err instanceof NodeError) this.opts.onRetry?.(code);
    if (now - outage.loggedAt < FAILING_LOG_EVERY_MS) return;
    outage.loggedAt = now;
    const fields = { code, err: String(err), failures: outage.failures, failingForMs: Math.round(now - outage.since), retryInMs: delay };
    this.log.warn(fields, outage.failures === 1 ? 'mempool follow failed; retrying with back-off' : 'mempool follow still failing');
  }

  /** A pass succeeded: if the node had been failing, one line says it is back. */
  private recovered(): void {
    if (!this.outage) return;
    const { since, failures } = this.outage;
    this.outage = null;
    this.log.info({ failures, downForMs: Math.round(performance.now() - since) }, 'node answers again; mempool follow resumed');
  }

  /** Applies the ZMQ events received so far: removals first, then additions (bytes from the stash or RPC). */
  async applyAnnounced(): Promise<void> {
    if (this.withdrawn.size > 0) {
      const gone = [...this.withdrawn].map(internalTxid);
      this.withdrawn.clear();
      await this.store.remove(gone);
    }
    if (this.announced.size === 0) return;
    const txids = [...this.announced.keys()];
    this.announced.clear();
    const txs: ParsedTx[] = [];
    const missing: string[] = [];
    for (const t of txids) {
      const entry = this.stash.get(t);
      if (entry) {
        txs.push(entry.tx);
        this.dropStash(t);
      } else {
        missing.push(t);
      }
    }
    if (missing.length > 0) {
      const fetched = this.parseAll(missing, await this.source.rawTransactions(missing));
      this.recovered();
      // A transaction withdrawn while its bytes were being fetched must not come back.
      txs.push(...fetched.filter((tx) => !this.withdrawn.has(toDisplayHex(tx.txid))));
    }
    if (txs.length > 0) await this.store.add(txs);
  }

  /**
   * One incremental pass against getrawmempool: remove what the node dropped, fetch and add only what we
   * do not hold. Skipped while the index is not at the node's tip.
   */
  async reconcile(): Promise<ReconcileReport> {
    const best = await this.source.bestBlockHash();
    const ours = await this.tip();
    if (!ours || toDisplayHex(ours.hash) !== best) return { skipped: true, added: 0, removed: 0, unresolved: 0 };
    const nodeTxids = await this.source.mempoolTxids();
    const inNode = new Set(nodeTxids);
    const held = new Set<string>();
    const gone: Buffer[] = [];
    for (const txid of await this.store.txids()) {
      const hex = toDisplayHex(txid);
      if (inNode.has(hex)) held.add(hex);
      else gone.push(txid);
    }
    inNode.clear();
    const removed = gone.length > 0 ? await this.store.remove(gone) : 0;
    const fresh = nodeTxids.filter((t) => !held.has(t));
    held.clear();
    let added = 0;
    let waiting: ParsedTx[] = [];
    for (let i = 0; i < fresh.length; i += this.chunk) {
      const ids = fresh.slice(i, i + this.chunk);
      const raws = await this.source.rawTransactions(ids);
      // The chain may have moved while we fetched: resolve against the index as it is now, and let a
      // block the node has but we do not yet stop the pass.
      const result = await this.store.add([...waiting, ...this.parseAll(ids, raws)]);
      added += result.added;
      waiting = result.unresolved;
    }
    if (waiting.length > 0) {
      this.log.info({ count: waiting.length }, 'mempool transactions spend coins not indexed yet; retrying at the next reconcile');
    }
    return { skipped: false, added, removed, unresolved: waiting.length };
  }

  private parseAll(txids: readonly string[], raws: ReadonlyArray<Buffer | null>): ParsedTx[] {
    const txs: ParsedTx[] = [];
    for (let i = 0; i < txids.length; i++) {
      const raw = raws[i];
      if (!raw) continue;
      try {
        const tx = parseTransaction(raw);
        if (toDisplayHex(tx.txid) !== txids[i]) {
          this.log.warn({ txid: txids[i], parsed: toDisplayHex(tx.txid) }, 'node returned a different transaction than asked; skipped');
          continue;
        }
        txs.push(tx);
      } catch (err) {
        this.log.warn({ txid: txids[i], err: String(err) }, 'cannot parse a mempool transaction; skipped');
      }
    }
    return txs;
  }

  private dropStash(txid: string): void {
    const entry = this.stash.get(txid);
    if (!entry) return;
    this.stash.delete(txid);
    this.stashSize -= entry.bytes;
  }
}

function internalTxid(hex: string): Buffer {
  return Buffer.from(hex, 'hex').reverse();
}
