/**
 * Blockbook's balance history of an address: its confirmed transactions summed by time window (what
 * Suite draws its balance graph from), on the REST route /balancehistory/:a and the WebSocket method
 * getBalanceHistory. Each transaction counts once in its window with what it paid the address, what it
 * spent from it, and what of its spending came back to it (sentToSelf); its time is its block's. No
 * fiat rates are served, so `rates` is never written.
 */
import type { Router } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import type { HistoryItem, HistoryPosition } from '../../store/index-model.js';
import { readIndex, unavailable } from '../index-read.js';
import { answeringIndex } from '../node-read.js';
import { servedPage } from '../routes/transactions.js';
import { placesOf } from '../block-place.js';
import { queryOf } from '../page-query.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
import type { BlockbookAsk, HttpAsking } from './blockbook-ask.js';
import { namedAddress } from './blockbook-address.js';

/** Blockbook's default window (an hour) and its cap on the transactions one history sums. */
export const DEFAULT_GROUP_BY = 3600;
const MAX_TXS = 100_000;
const HISTORY_READ = 1000;
const READS_PER_TOKEN = 10;
/** Heights whose block time is read at once. */
const HEADER_READS = 100;

export interface BalanceQuery {
  /** Unix seconds; 0: unbounded. A transaction counts when from ≤ its time < to. */
  readonly from: number;
  readonly to: number;
  /** Seconds per window (> 0). */
  readonly groupBy: number;
}

/** One transaction's part in the address's balance, at its block's time. */
export interface BalanceEntry {
  readonly time: number;
  readonly txid: string;
  readonly received: bigint;
  readonly sent: bigint;
  readonly sentToSelf: bigint;
}

/**
 * Blockbook's SortAndAggregate: entries in time order (then txid), summed per window starting at a
 * multiple of `groupBy`, a txid counted once per window.
 */
export function aggregate(entries: readonly BalanceEntry[], groupBy: number): Record<string, unknown>[] {
  const sorted = [...entries].sort((a, b) => a.time - b.time || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0));
  const out: Record<string, unknown>[] = [];
  let window: { time: number; txs: number; received: bigint; sent: bigint; sentToSelf: bigint; last: string } | null = null;
  const close = (): void => {
    if (window === null) return;
    const { time, txs, received, sent, sentToSelf } = window;
    out.push({ time, txs, received: String(received), sent: String(sent), sentToSelf: String(sentToSelf) });
  };
  for (const e of sorted) {
    const time = e.time - (e.time % groupBy);
    if (window === null || window.time !== time) {
      close();
      window = { time, txs: 0, received: 0n, sent: 0n, sentToSelf: 0n, last: '' };
    }
    if (window.last !== e.txid) window.txs++;
    window.last = e.txid;
    window.received += e.received;
    window.sent += e.sent;
    window.sentToSelf += e.sentToSelf;
  }
  close();
  return out;
}

/**
 * A transaction of one address as Blockbook sums it: spending from the address, what it pays back to
 * the address was sent to itself.
 */
export function entryOf(item: Pick<HistoryItem, 'txid' | 'received' | 'sent'>, time: number): BalanceEntry {
  return {
    time,
    txid: toDisplayHex(item.txid),
    received: item.received,
    sent: item.sent,
    sentToSelf: item.sent > 0n ? item.received : 0n,
  };
}

export async function balanceHistoryAnswer(ask: BlockbookAsk, address: string, q: BalanceQuery): Promise<Record<string, unknown>[]> {
  const { key } = namedAddress(ask, address, (_a, why) => `Invalid address, ${why}`);
  const { chain, handle } = ask.route;
  const { index } = await answeringIndex(ask.deps, ask.route, ask.headers, true);
  const items: HistoryItem[] = [];
  let after: HistoryPosition | null = null;
  for (let reads = 1; ; reads++) {
    if (reads % READS_PER_TOKEN === 0) await ask.charge(1);
    const read = await readIndex(chain, handle, async (s) => (s.historyPage ? s.historyPage({ key, after, limit: HISTORY_READ }) : null));
    const page = servedPage(ask.deps, chain, read, ask.headers);
    items.push(...page.items);
    if (items.length > MAX_TXS)
      throw new BlockbookError(
        400,
        `balance history spans more than ${MAX_TXS} transactions in the requested range; narrow the from/to range`,
      );
    if (page.next === null) break;
    after = page.next;
  }
  const place = placesOf(index);
  const heights = [...new Set(items.map((i) => i.height))];
  const times = new Map<number, number>();
  for (let i = 0; i < heights.length; i += HEADER_READS) {
    const batch = heights.slice(i, i + HEADER_READS);
    const places = await Promise.all(batch.map((h) => place(h)));
    batch.forEach((h, j) => {
      const at = places[j];
      // A header gone or replaced: the index moved past a reorg while the history was read.
      if (typeof at?.blockTime !== 'number') throw unavailable(chain, 'its chain changed while the history was read; retry');
      times.set(h, at.blockTime);
    });
  }
  const entries = items
    .map((item) => entryOf(item, times.get(item.height)!))
    .filter((e) => e.time >= q.from && (q.to === 0 || e.time < q.to));
  return aggregate(entries, q.groupBy);
}

/** Go's strconv.ParseInt of a timestamp parameter; absent or empty is 0. */
function unixParam(text: string | null): number {
  if (text === null || text === '') return 0;
  if (!/^[+-]?\d{1,18}$/.test(text))
    throw new BlockbookError(400, `strconv.ParseInt: parsing ${JSON.stringify(text.slice(0, 100))}: invalid syntax`);
  return Math.max(0, Number(text));
}

export function mountBlockbookHistory(router: Router, asking: HttpAsking): void {
  router.get('/balancehistory/:address', async (req, res) => {
    const q = queryOf(req);
    const one = (name: string): string | null => q.getAll(name).at(-1) ?? null;
    const groupBy = Number(one('groupBy'));
    const query = {
      from: unixParam(one('from')),
      to: unixParam(one('to')),
      groupBy: /^\d{1,10}$/.test(one('groupBy') ?? '') && groupBy > 0 && groupBy < 2 ** 32 ? groupBy : DEFAULT_GROUP_BY,
    };
    sendBlockbookJson(res, await balanceHistoryAnswer(asking(req, res), String(req.params.address), query));
  });
}
