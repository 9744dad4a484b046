/**
 * Blockbook's address routes: /address/:a (figures, then a page of txids or transactions at the
 * `details` asked for) and /utxo/:a, from history and the UTXO listing through the serving layer.
 *
 * Blockbook pages by number. A page is read by walking the script's history from its newest entry
 * (keyset pages of HISTORY_READ), so a deep page costs its depth; Blockbook's own bound on depth
 * (MAX_DEPTH entries) bounds it here too, and the walk is paid for by its length. Where Blockbook's page 1
 * drops confirmed transactions to make room for the mempool's, ours lists both (docs/blockbook.md).
 */
import type { Request, Router } from 'express';
import { addressToScript } from '../../chain/address.js';
import { toDisplayHex } from '../../chain/hash.js';
import { decodeOutpoint } from '../../store/outpoint.js';
import { scriptKey } from '../../store/script-key.js';
import type { HistoryItem, HistoryPosition, UnconfirmedItem, UtxoPosition, UtxoRow } from '../../store/index-model.js';
import { readIndex } from '../index-read.js';
import { answeringIndex } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { historyOff, servedPage } from '../routes/transactions.js';
import { listingOff, UTXOS_PER_TOKEN } from '../routes/utxos.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
import type { BlockbookAsk, HttpAsking } from './blockbook-ask.js';
import { boolParam, intParam } from './blockbook-params.js';
import { txReading, txsShown } from './blockbook-txs.js';
import { paging, utxoValue } from './blockbook-values.js';

/** Blockbook's txsInAPI: the default and largest page, and its maxAccountHistoryPagingOffset. */
const MAX_PAGE_SIZE = 1000;
const MAX_DEPTH = 100_000;
/** History entries one keyset read takes while walking to a page. */
const HISTORY_READ = 1000;
const READS_PER_TOKEN = 10;
/** Mempool transactions listed before the first page at most. */
const MEMPOOL_LISTED = 1000;
/** Outputs /utxo lists at most: more are refused from their count, before any is read. */
export const MAX_UTXOS = 10_000;

export const DETAILS = ['basic', 'tokens', 'tokenBalances', 'txids', 'txslight', 'txs'] as const;
export type Details = (typeof DETAILS)[number];

interface Named {
  readonly ask: BlockbookAsk;
  readonly key: Buffer;
  readonly address: string;
}

export function namedAddress(ask: BlockbookAsk, address: string, refusal: (address: string, why: string) => string): Named {
  const decoded = addressToScript(ask.route.handle.params, address);
  if (!decoded.ok) throw new BlockbookError(400, refusal(address.slice(0, 100), decoded.error.message));
  return { ask, key: scriptKey(decoded.script), address };
}

/** What an address page asks for, as both doors read it. */
export interface AddressQuery {
  readonly details: Details;
  readonly page: number;
  readonly pageSize: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Blockbook's paging bounds: pageSize 1 to MAX_PAGE_SIZE (0 or below: `defaultSize`), no page deeper
 * than MAX_DEPTH; details it does not know are `fallback`.
 */
export function addressQuery(
  details: string | null,
  page: number,
  pageSize: number,
  from: number,
  to: number,
  fallback: Details = 'txids',
  defaultSize = MAX_PAGE_SIZE,
): AddressQuery {
  const size = Math.min(Math.max(0, pageSize), MAX_PAGE_SIZE) || defaultSize;
  return {
    details: DETAILS.find((d) => d === details) ?? fallback,
    page: Math.min(Math.max(1, page), Math.floor(MAX_DEPTH / size)),
    pageSize: size,
    from: Math.max(0, from),
    to: Math.max(0, to),
  };
}

function restAddressQuery(req: Request): AddressQuery {
  const q = queryOf(req);
  const one = (name: string): string | null => q.getAll(name).at(-1) ?? null;
  const big = 10_000_000_000;
  return addressQuery(
    one('details'),
    intParam(one('page'), 0, 0, 1_000_000),
    intParam(one('pageSize'), MAX_PAGE_SIZE, 0, MAX_PAGE_SIZE),
    intParam(one('from'), 0, 0, big),
    intParam(one('to'), 0, 0, big),
  );
}

type Reads = (
  after: HistoryPosition | null,
  limit: number,
  mempool: boolean,
) => Promise<{ unconfirmed: readonly UnconfirmedItem[]; items: readonly HistoryItem[]; next: HistoryPosition | null }>;

function historyReads({ ask, key }: Named): Reads {
  const { chain, handle } = ask.route;
  return async (after, limit, mempool) => {
    const read = await readIndex(chain, handle, async (s) => (s.historyPage ? s.historyPage({ key, after, limit, mempool }) : null));
    return servedPage(ask.deps, chain, read, ask.headers);
  };
}

/**
 * The confirmed transactions, newest first, at heights from `from` to `to` (0: no bound), up to the
 * `want`-th match: each keyset read continues where the last ended, and the walk stops below `from`.
 */
async function confirmedWalk(read: Reads, from: number, to: number, want: number, paid: () => Promise<void>): Promise<HistoryItem[]> {
  const found: HistoryItem[] = [];
  let after: HistoryPosition | null = null;
  let walked = 0;
  for (let reads = 1; ; reads++) {
    // The first reads come with the request; each further READS_PER_TOKEN cost a token before they are made.
    if (reads % READS_PER_TOKEN === 0) await paid();
    const page = await read(after, HISTORY_READ, false);
    walked += page.items.length;
    for (const item of page.items) {
      if (from > 0 && item.height < from) return found;
      if (to === 0 || item.height <= to) found.push(item);
      if (found.length >= want) return found;
    }
    if (page.next === null) return found;
    if (walked >= MAX_DEPTH)
      throw new BlockbookError(400, `this page lies deeper than ${MAX_DEPTH} transactions of the address; narrow it with from and to`);
    after = page.next;
  }
}

/** Blockbook's Address: the figures, then (details txids and up) the page asked for. */
export async function addressAnswer(ask: BlockbookAsk, address: string, q: AddressQuery): Promise<Record<string, unknown>> {
  const it = namedAddress(ask, address, (a, why) => `Invalid address, ${why}`);
  const { chain, handle } = ask.route;
  const { index, tipHeight } = await answeringIndex(ask.deps, ask.route, ask.headers, true);
  const views = await readIndex(chain, handle, (s) => s.keyViews([it.key], true));
  const view = views?.items[0];
  if (view?.history === undefined || view.unconfirmed === undefined) throw historyOff(chain);
  const h = view.history;
  const m = view.unconfirmed;
  const figures = {
    address: it.address,
    balance: String(h.received - h.sent),
    totalReceived: String(h.received),
    totalSent: String(h.sent),
    // blockbook-client's codec asks for it at every level, though Blockbook leaves it out at basic.
    unconfirmedBalance: String(m.balanceSats),
    unconfirmedTxs: m.txCount,
    txs: h.txCount,
  };
  if (DETAILS.indexOf(q.details) < DETAILS.indexOf('txids')) return figures;

  const read = historyReads(it);
  const filtered = q.from > 0 || q.to > 0;
  // Unfiltered, the page is known from the count; filtered, from the matches found up to it.
  const wanted = q.page * q.pageSize;
  const matches = await confirmedWalk(read, q.from, q.to, wanted, () => ask.charge(1));
  const pg = paging(filtered ? matches.length : h.txCount, q.page, q.pageSize);
  const shown = matches.slice((pg.page - 1) * q.pageSize, pg.page * q.pageSize);
  const pageInfo = filtered && matches.length >= q.pageSize ? { ...pg, totalPages: -1 } : pg;
  const mempool = pg.page === 1 && q.to === 0 && m.txCount > 0 ? (await read(null, MEMPOOL_LISTED, true)).unconfirmed : [];
  const txids = [...mempool, ...shown].map((t) => t.txid);

  if (q.details === 'txids') return { ...pageInfo, ...figures, ...(txids.length > 0 && { txids: txids.map(toDisplayHex) }) };

  const reading = txReading(ask.route, index, tipHeight);
  const transactions = await txsShown(reading, txids, q.details === 'txslight', (extra) => ask.charge(extra));
  return { ...pageInfo, ...figures, ...(transactions.length > 0 && { transactions }) };
}

/** Blockbook's Utxo list of an address: the mempool's outputs first, then the confirmed ones newest first. */
export async function utxoAnswer(ask: BlockbookAsk, address: string, confirmedOnly: boolean): Promise<Record<string, unknown>[]> {
  const it = namedAddress(ask, address, (a, why) => `Invalid address '${a}', ${why}`);
  const { chain, handle } = ask.route;
  const { tipHeight } = await answeringIndex(ask.deps, ask.route, ask.headers, false);
  const views = await readIndex(chain, handle, (s) => s.keyViews([it.key], !confirmedOnly));
  const view = views?.items[0];
  // Confirmed outputs plus, with the mempool, the ones it adds: what the listing reads at most.
  const count = (view?.utxoCount ?? 0) + Math.max(0, view?.unconfirmed?.utxoCount ?? 0);
  const tooMany = (n: number): BlockbookError =>
    new BlockbookError(400, `the address has ${n} unspent outputs or more, more than this server lists at once (${MAX_UTXOS})`);
  if (count > MAX_UTXOS) throw tooMany(count);
  await ask.charge(Math.ceil(count / UTXOS_PER_TOKEN) - 1);
  const rows: UtxoRow[] = [];
  let after: UtxoPosition | null = null;
  do {
    const listing = (
      await readIndex(chain, handle, async (s) =>
        s.utxoPage ? s.utxoPage({ keys: [it.key], after, limit: MAX_PAGE_SIZE, mempool: !confirmedOnly, check: () => {} }) : null,
      )
    )?.listing;
    if (listing === undefined || listing.kind === 'off') throw listingOff(chain);
    if (listing.kind === 'empty') break;
    rows.push(...listing.rows);
    after = listing.next;
    // The mempool's outputs spent in the mempool too are read: more rows than the count foresaw.
    if (after !== null && rows.length > MAX_UTXOS) throw tooMany(rows.length);
  } while (after !== null);
  const unspent = rows.filter((r) => r.spentInMempool !== true);
  const ordered = [...unspent.filter((r) => r.height === null), ...unspent.filter((r) => r.height !== null).reverse()];
  return ordered.map((r) => {
    const { txid, vout } = decodeOutpoint(r.outpoint);
    return utxoValue({ txid, vout, value: r.valueSats, height: r.height, coinbase: r.coinbase }, tipHeight);
  });
}

export function mountBlockbookAddress(router: Router, asking: HttpAsking): void {
  router.get('/address/:address', async (req, res) => {
    sendBlockbookJson(res, await addressAnswer(asking(req, res), String(req.params.address), restAddressQuery(req)));
  });

  router.get('/utxo/:address', async (req, res) => {
    const confirmedOnly = boolParam(queryOf(req).getAll('confirmed').at(-1) ?? null, 'confirmed');
    sendBlockbookJson(res, await utxoAnswer(asking(req, res), String(req.params.address), confirmedOnly));
  });
}
