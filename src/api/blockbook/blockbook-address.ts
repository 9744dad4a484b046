/**
 * Blockbook's address routes: /address/:a (figures, then a page of txids or transactions at the
 * `details` asked for) and /utxo/:a, from history and the UTXO listing through the serving layer.
 *
 * Blockbook pages by number. A page is read by walking the script's history from its newest entry
 * (keyset pages of HISTORY_READ), so a deep page costs its depth; Blockbook's own bound on depth
 * (MAX_DEPTH entries) bounds it here too, and the walk is paid for by its length. Where Blockbook's page 1
 * drops confirmed transactions to make room for the mempool's, ours lists both (docs/blockbook.md).
 */
import type { Request, Response, Router } from 'express';
import { addressToScript } from '../../chain/address.js';
import { toDisplayHex } from '../../chain/hash.js';
import { decodeOutpoint } from '../../store/outpoint.js';
import { scriptKey } from '../../store/script-key.js';
import type { HistoryItem, HistoryPosition, UnconfirmedItem, UtxoPosition, UtxoRow } from '../../store/index-model.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import { readIndex } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, type NodeRoute } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { historyOff, servedPage } from '../routes/transactions.js';
import { extraCharge } from '../routes/tx.js';
import { listingOff, UTXOS_PER_TOKEN } from '../routes/utxos.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
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

const DETAILS = ['basic', 'tokens', 'tokenBalances', 'txids', 'txslight', 'txs'] as const;
type Details = (typeof DETAILS)[number];

/** Blockbook's validateIntParam: a value that is no integer, or below `min`, is the default; above `max`, `max`. */
export function intParam(text: string | null, fallback: number, min: number, max: number): number {
  if (text === null || !/^[+-]?\d+$/.test(text)) return fallback;
  const n = Number(text);
  if (n < min) return fallback;
  return Math.min(n, max);
}

/** Go's strconv.ParseBool, as Blockbook reads a flag; absent is false. */
export function boolParam(text: string | null, name: string): boolean {
  if (text === null || text === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new BlockbookError(400, `Parameter '${name}' cannot be converted to boolean`);
}

interface Named {
  readonly route: NodeRoute;
  readonly key: Buffer;
  readonly address: string;
}

function named(deps: AppDeps, req: Request, refusal: (address: string, why: string) => string): Named {
  const route = nodeRoute(deps, req);
  const address = String(req.params.address);
  const decoded = addressToScript(route.handle.params, address);
  if (!decoded.ok) throw new BlockbookError(400, refusal(address.slice(0, 100), decoded.error.message));
  return { route, key: scriptKey(decoded.script), address };
}

interface Query {
  readonly details: Details;
  readonly page: number;
  readonly pageSize: number;
  readonly from: number;
  readonly to: number;
}

function addressQuery(req: Request): Query {
  const q = queryOf(req);
  const one = (name: string): string | null => q.getAll(name).at(-1) ?? null;
  const detailsText = one('details');
  const details = DETAILS.find((d) => d === detailsText) ?? 'txids';
  const pageSize = intParam(one('pageSize'), MAX_PAGE_SIZE, 0, MAX_PAGE_SIZE) || MAX_PAGE_SIZE;
  const page = Math.min(Math.max(1, intParam(one('page'), 0, 0, 1_000_000)), Math.floor(MAX_DEPTH / pageSize));
  return { details, page, pageSize, from: intParam(one('from'), 0, 0, 10_000_000_000), to: intParam(one('to'), 0, 0, 10_000_000_000) };
}

type Reads = (
  after: HistoryPosition | null,
  limit: number,
  mempool: boolean,
) => Promise<{ unconfirmed: readonly UnconfirmedItem[]; items: readonly HistoryItem[]; next: HistoryPosition | null }>;

function historyReads(deps: AppDeps, res: Response, { route, key }: Named): Reads {
  const { chain, handle } = route;
  return async (after, limit, mempool) => {
    const read = await readIndex(chain, handle, async (s) => (s.historyPage ? s.historyPage({ key, after, limit, mempool }) : null));
    return servedPage(deps, chain, read, res);
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

export function mountBlockbookAddress(router: Router, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);

  router.get('/address/:address', async (req, res) => {
    const it = named(deps, req, (a, why) => `Invalid address, ${why}`);
    const q = addressQuery(req);
    const { chain, handle } = it.route;
    const { index, tipHeight } = await answeringIndex(deps, it.route, res, true);
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
    if (DETAILS.indexOf(q.details) < DETAILS.indexOf('txids')) return sendBlockbookJson(res, figures);

    const read = historyReads(deps, res, it);
    const filtered = q.from > 0 || q.to > 0;
    // Unfiltered, the page is known from the count; filtered, from the matches found up to it.
    const wanted = q.page * q.pageSize;
    const matches = await confirmedWalk(read, q.from, q.to, wanted, () => charge(req, res, 1));
    const pg = paging(filtered ? matches.length : h.txCount, q.page, q.pageSize);
    const shown = matches.slice((pg.page - 1) * q.pageSize, pg.page * q.pageSize);
    const pageInfo = filtered && matches.length >= q.pageSize ? { ...pg, totalPages: -1 } : pg;
    const mempool = pg.page === 1 && q.to === 0 && m.txCount > 0 ? (await read(null, MEMPOOL_LISTED, true)).unconfirmed : [];
    const txids = [...mempool, ...shown].map((t) => t.txid);

    if (q.details === 'txids')
      return sendBlockbookJson(res, { ...pageInfo, ...figures, ...(txids.length > 0 && { txids: txids.map(toDisplayHex) }) });

    const reading = txReading(it.route, index, tipHeight);
    const transactions = await txsShown(reading, txids, q.details === 'txslight', (extra) => charge(req, res, extra));
    sendBlockbookJson(res, { ...pageInfo, ...figures, ...(transactions.length > 0 && { transactions }) });
  });

  router.get('/utxo/:address', async (req, res) => {
    const it = named(deps, req, (a, why) => `Invalid address '${a}', ${why}`);
    const confirmedOnly = boolParam(queryOf(req).getAll('confirmed').at(-1) ?? null, 'confirmed');
    const { chain, handle } = it.route;
    const { tipHeight } = await answeringIndex(deps, it.route, res, false);
    const views = await readIndex(chain, handle, (s) => s.keyViews([it.key], !confirmedOnly));
    const view = views?.items[0];
    // Confirmed outputs plus, with the mempool, the ones it adds: what the listing reads at most.
    const count = (view?.utxoCount ?? 0) + Math.max(0, view?.unconfirmed?.utxoCount ?? 0);
    const tooMany = (n: number): BlockbookError =>
      new BlockbookError(400, `the address has ${n} unspent outputs or more, more than this server lists at once (${MAX_UTXOS})`);
    if (count > MAX_UTXOS) throw tooMany(count);
    await charge(req, res, Math.ceil(count / UTXOS_PER_TOKEN) - 1);
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
    // Blockbook lists the mempool's outputs first, then the confirmed ones newest first.
    const unspent = rows.filter((r) => r.spentInMempool !== true);
    const ordered = [...unspent.filter((r) => r.height === null), ...unspent.filter((r) => r.height !== null).reverse()];
    sendBlockbookJson(
      res,
      ordered.map((r) => {
        const { txid, vout } = decodeOutpoint(r.outpoint);
        return utxoValue({ txid, vout, value: r.valueSats, height: r.height, coinbase: r.coinbase }, tipHeight);
      }),
    );
  });
}
