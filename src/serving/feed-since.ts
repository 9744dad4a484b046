/**
 * What the change feed's rows after a position say of one script: whether it may have changed since,
 * and how (a disconnection, or only blocks and mempool updates). The SSE resume (src/serving/live-hub.ts changedSince) and
 * Electrum's kept histories (src/electrum/index/history-cache.ts) ask it.
 */
import type { FeedReader } from '../store/ports.js';

/** Feed rows read per query while checking. */
const PAGE = 500;

/** What the feed rows after a position say of one script. */
export interface FeedSince {
  /** The last row checked (the position given when there were none). */
  readonly seq: number;
  /** A disconnection row named the script, or a row named every script: what was confirmed may be gone. */
  readonly rewound: boolean;
  /** A block or mempool row named it: it may hold more since. */
  readonly named: boolean;
}

/**
 * The feed rows after `seq`, up to `upTo` (default: the newest), checked for `key`; a rewound one ends
 * the check. Null when the feed cannot tell: pruned past `seq`, or behind it (another index).
 */
export async function feedSince(feed: FeedReader, seq: number, key: Buffer, upTo?: number): Promise<FeedSince | null> {
  const bounds = await feed.bounds();
  const last = upTo ?? bounds?.last ?? 0;
  if (bounds === null || bounds.last < last || bounds.last < seq || bounds.first > seq + 1) return null;
  let [after, named] = [seq, false];
  while (after < last) {
    const rows = await feed.since(after, PAGE);
    if (rows.length === 0) return null;
    for (const row of rows) {
      // Past `upTo`: a later commit, not part of what was asked (seqs may skip numbers, so the page may reach it).
      if (row.seq > last) return { seq: after, rewound: false, named };
      if (row.scripts === null) return { seq: row.seq, rewound: true, named: true };
      if (row.scripts.some((k) => k.equals(key))) {
        if (row.kind === 'disconnect') return { seq: row.seq, rewound: true, named: true };
        named = true;
      }
      after = row.seq;
    }
  }
  return { seq: after, rewound: false, named };
}
