/**
 * Long script histories kept between requests. A wallet re-reads its busiest address's whole history at
 * every status change and every reconnect, and an exchange's address can hold 100,000 transactions: read,
 * listed and hashed each time, that is tens of milliseconds of the API's one thread per request, and far
 * more when its transactions are spread over as many blocks.
 *
 * A history whose confirmed part holds at least MIN_ENTRIES is kept with the change-feed position its
 * snapshot was true at. Before each use, the feed rows after that position are checked for its script:
 * - none names it (and none says "every script"): it is the history now, and its position moves up;
 * - block or mempool rows name it: what was confirmed after its newest transaction is read, with the
 *   mempool part, and added to the kept confirmed part (status.ts moreConfirmed: only the new entries are
 *   hashed and listed), when the feed up to that read's position shows no disconnection of it and the
 *   counts agree;
 * - a disconnection names it, or the feed cannot tell (a row for every script, pruned past it, gone
 *   backwards): read whole.
 * The check is the feed's bounds (one primary-key read) and the rows since; it does not wait for the live
 * hub's poll, so a kept history is never older than what a read would give at that moment.
 *
 * Bounded by the bytes of the kept text (maxBytes), least recently used out first; a history bigger
 * than the whole budget is not kept. Per chain index: a reopened index (another reader object) starts empty.
 */
import { LRUCache } from 'lru-cache';
import { feedSince } from '../../serving/feed-since.js';
import type { ElectrumIndex } from './access.js';
import { electrumHistory, type ListRead, type ScriptHistory } from './script-history.js';

/** Shorter histories are read each time: a few rows, cheaper than keeping them. */
export const MIN_ENTRIES = 1000;

interface Kept {
  readonly history: ScriptHistory;
  /** The feed position the history is known true at. */
  readonly seq: number;
}

/** A read of the script's history; `after`: only what was confirmed after that position. */
type Read = (index: ElectrumIndex, key: Buffer, after?: number) => Promise<ListRead>;

const jsonBytes = (history: ScriptHistory): number => history.json.reduce((sum, piece) => sum + piece.length, 0);

export class HistoryCache {
  /** By script key as latin1. */
  private readonly kept: LRUCache<string, Kept>;
  private source: ElectrumIndex | null = null;

  constructor(maxBytes: number) {
    // A history bigger than the whole budget is not kept: lru-cache refuses an entry above maxSize.
    this.kept = new LRUCache({ maxSize: maxBytes, sizeCalculation: (k) => Math.max(1, jsonBytes(k.history)) });
  }

  /** Bytes of the histories kept now. */
  get size(): number {
    return this.kept.calculatedSize;
  }

  async get(index: ElectrumIndex, key: Buffer, read: Read): Promise<ScriptHistory> {
    if (this.source !== index) this.reset(index);
    const k = key.toString('latin1');
    const kept = this.kept.get(k);
    if (kept !== undefined) {
      const found = await this.refreshed(index, key, kept, read);
      if (found !== null) {
        this.keep(k, found.history, found.seq);
        return found.history;
      }
    }
    const { list, feedSeq } = await read(index, key);
    const history = electrumHistory(list);
    this.keep(k, history, feedSeq);
    return history;
  }

  /** The kept history brought up to now, with the position it is true at; null when it must be read whole. */
  private async refreshed(
    index: ElectrumIndex,
    key: Buffer,
    kept: Kept,
    read: Read,
  ): Promise<{ history: ScriptHistory; seq: number } | null> {
    const since = await feedSince(index.feed, kept.seq, key);
    if (since === null || since.rewound) return null;
    if (!since.named) return { history: kept.history, seq: since.seq };
    const { confirmed } = kept.history;
    const { list, feedSeq } = await read(index, key, confirmed.newest);
    const through = await feedSince(index.feed, since.seq, key, feedSeq);
    if (through === null || through.rewound || through.seq !== feedSeq || list.confirmedCount !== confirmed.count + list.heights.length)
      return null;
    return { history: electrumHistory(list, confirmed), seq: feedSeq };
  }

  private keep(k: string, history: ScriptHistory, seq: number): void {
    if (this.source === null) return;
    const old = this.kept.peek(k);
    // A read that finished after a newer one keeps the newer; a feed never written names no position to check from.
    if ((old !== undefined && old.seq > seq) || seq === 0) return;
    this.kept.delete(k);
    if (history.confirmed.count < MIN_ENTRIES) return;
    this.kept.set(k, { history, seq });
  }

  private reset(index: ElectrumIndex): void {
    this.kept.clear();
    this.source = index;
  }
}
