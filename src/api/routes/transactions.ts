/**
 * GET/HEAD /api/v1/{chain}/address/{address}/transactions and …/scripthash/{hash}/transactions
 * (`?limit=`, `&cursor=`): one page of the script's confirmed history, newest first (height descending,
 * then position in the block descending), each transaction with what it paid to and spent from the
 * script. Needs history kept (chains.<C>.history): 404 HISTORY_DISABLED otherwise.
 *
 * Checks, in order: chain → API key → limits (one token per TXS_PER_TOKEN transactions asked for) →
 * address or hash, limit, cursor shape, mempool → one read (history's state, the cursor's MAC, binding
 * and tip, and the entries, in one snapshot) → index state → answer. The cursor names the last
 * transaction served, so every page costs O(limit) at any depth (src/store/sqlite/history-page.ts).
 * `?mempool=true` (unconfirmed transactions first) is not served yet: 400, never a page that leaves
 * them out silently.
 */
import type { Express, Request, Response } from 'express';
import { Coins, Sats } from '../../chain/amount.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { HistoryItem } from '../../store/index-model.js';
import { mempoolRequested } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { decodeHistoryCursor, encodeHistoryCursor, type HistoryCursor } from '../history-cursor.js';
import { checkAnswering, readIndex } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { oneParam, parseLimit, queryOf } from '../page-query.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../token-bucket.js';
import { mountPagedRoutes, scriptNamed } from './paged-route.js';
import { checkCursor, type CursorScope } from '../utxo-cursor.js';

export const ADDRESS_TXS_ROUTE = '/api/v1/:chain/address/:address/transactions';
export const SCRIPTHASH_TXS_ROUTE = '/api/v1/:chain/scripthash/:hash/transactions';
export const TX_LIMITS = { default: 25, max: 1000 };
/** One token per 200 transactions asked for, at least one: a default page costs what a summary costs. */
export const TXS_PER_TOKEN = 200;

export const historyOff = (chain: string): ApiError =>
  new ApiError(
    'HISTORY_DISABLED',
    `the ${chain} index keeps no history: the operator turns it on with chains.${chain}.history (ADDRSUM_HISTORY=true)`,
  );

/** One transaction of a history page, as every history route writes it. */
export function historyItem(i: HistoryItem): Record<string, unknown> {
  return {
    txid: toDisplayHex(i.txid),
    height: i.height,
    receivedSatoshi: new Sats(i.received),
    received: new Coins(i.received),
    sentSatoshi: new Sats(i.sent),
    sent: new Coins(i.sent),
  };
}

export interface HistoryQuery {
  readonly limit: number;
  readonly cursor: HistoryCursor | null;
}

/** Every history route's query: `?limit=`, `&cursor=`, and `mempool=true` refused (not served yet). */
export function parseHistoryQuery(req: Request): HistoryQuery {
  const p = queryOf(req);
  const limit = parseLimit(p, TX_LIMITS);
  const cursorText = oneParam(p, 'cursor');
  const cursor: HistoryCursor | null = cursorText === null ? null : decodeHistoryCursor(cursorText);
  if (mempoolRequested(req)) throw new ApiError('BAD_REQUEST', 'mempool=true is not served on transactions yet: confirmed history only');
  return { limit, cursor };
}

async function answer(deps: AppDeps, req: Request, res: Response, kind: 'address' | 'scripthash'): Promise<void> {
  const { chain, handle, key, named } = scriptNamed(deps, req, kind);
  const { limit, cursor } = parseHistoryQuery(req);
  const scope: CursorScope = { chain, network: handle.params.network, kind: 'history', id: key.toString('hex'), mempool: false };
  const read = await readIndex(chain, handle, async (source) => {
    if (!source.historyPage) {
      const status = await source.status();
      return status && { ...status, page: null };
    }
    return source.historyPage({
      key,
      before: cursor?.before ?? null,
      limit,
      check: (ctx) => {
        if (cursor) checkCursor(cursor, ctx.secret, scope, { height: ctx.tipHeight, hash: ctx.tipHash });
      },
    });
  });
  checkAnswering(deps, chain, read, res);
  const page = read.page;
  if (!page) throw historyOff(chain);
  const tip = { height: page.tipHeight, hash: page.tipHash };
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      ...named,
      transactions: page.items.map(historyItem),
      next: page.next === null ? null : encodeHistoryCursor(page.secret, scope, tip, page.next),
      blockHeight: page.tipHeight,
      blockHash: toDisplayHex(page.tipHash),
    },
  });
}

export function mountTransactionRoutes(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountPagedRoutes(app, deps, limiter, metrics, {
    address: ADDRESS_TXS_ROUTE,
    scripthash: SCRIPTHASH_TXS_ROUTE,
    bounds: TX_LIMITS,
    perToken: TXS_PER_TOKEN,
    items: 'transactions',
    answer,
  });
}
