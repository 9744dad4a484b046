/**
 * Merging several scripts' histories, each newest first, into one (a wallet's): each transaction once,
 * with its part in every script that lists it. One rule for both parts of a history page: confirmed
 * entries ranked by transaction number, mempool entries by the seq the index gave them; either is one
 * number per transaction, the same in every script's list.
 */
import type { HistoryPart } from './index-model.js';

/** One transaction in one script's list: its rank and what it paid to and spent from the script. */
export interface RankedEntry {
  readonly rank: number;
  readonly received: bigint;
  readonly sent: bigint;
}

/** One script's entries, in descending rank, at most one per rank. */
export interface RankedList {
  /** Index of the script in the request's key list. */
  readonly script: number;
  readonly entries: readonly RankedEntry[];
}

export interface MergedEntry {
  readonly rank: number;
  /** In the lists' order. */
  readonly parts: HistoryPart[];
  readonly received: bigint;
  readonly sent: bigint;
}

/**
 * The `want` highest ranks across `lists`, highest first. When every list holds its own `want` highest
 * entries below the caller's cursor, the answer is exact: a transaction's rank within one list is never
 * below its rank in the merge.
 */
export function mergeNewest(lists: readonly RankedList[], want: number): MergedEntry[] {
  const at = lists.map(() => 0);
  const merged: MergedEntry[] = [];
  while (merged.length < want) {
    let top = -1;
    lists.forEach((l, i) => {
      const e = l.entries[at[i]!];
      if (e && e.rank > top) top = e.rank;
    });
    if (top < 0) break;
    const parts: HistoryPart[] = [];
    let [received, sent] = [0n, 0n];
    lists.forEach((l, i) => {
      const e = l.entries[at[i]!];
      if (e?.rank !== top) return;
      parts.push({ script: l.script, received: e.received, sent: e.sent });
      [received, sent] = [received + e.received, sent + e.sent];
      at[i] = at[i]! + 1;
    });
    merged.push({ rank: top, parts, received, sent });
  }
  return merged;
}

/** The distinct keys of a request, each under the index it first appears at (a key given twice counts once). */
export function distinctKeys(keys: readonly Buffer[]): { script: number; key: Buffer }[] {
  const seen = new Set<string>();
  const out: { script: number; key: Buffer }[] = [];
  keys.forEach((key, script) => {
    const hex = key.toString('hex');
    if (seen.has(hex)) return;
    seen.add(hex);
    out.push({ script, key });
  });
  return out;
}
