/**
 * GET/HEAD /api/v1/{chain}/address/{address}/transactions and …/scripthash/{hash}/transactions
 * (`?limit=`, `&cursor=`, `&mempool=`): one page of the script's history, newest first (height
 * descending, then position in the block descending), each transaction with what it paid to and spent
 * from the script; with `?mempool=true` the script's mempool transactions come first (`height: null`,
 * the latest the index learned of first). Needs history kept (chains.<C>.history): 404 HISTORY_DISABLED
 * otherwise, 503 HISTORY_BUILDING while it is built for an index that had none.
 *
 * Checks, in order: chain → API key → limits (one token per TXS_PER_TOKEN transactions asked for) →
 * address or hash, limit, cursor shape, mempool flag → one read (history's state, the cursor's MAC,
 * binding and tip, and the entries, mempool ones included, in one snapshot) → index state → answer. The
 * cursor names the last transaction served, so every page costs O(limit) at any depth
 * (src/store/sqlite/history-page.ts).
 */
import type { Express, Request, Response } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import { mempoolRequested } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import type { IndexStatus } from '../../serving/chain-handle.js';
import type { ChainCode } from '../../chain/params.js';
import { ServingError } from '../../serving/errors.js';
import { decodeHistoryCursor, type HistoryCursor } from '../history-cursor.js';
import { historyItem, historyView } from '../history-view.js';
import { checkAnswering, readIndex, RETRY_503_SECONDS, type HeaderSink } from '../index-read.js';
import type { HistoryBuildProgress } from '../../store/index-model.js';
import type { ApiMetrics } from '../metrics.js';
import { oneParam, parseLimit, queryOf } from '../page-query.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { mountPagedRoutes, scriptNamed } from './paged-route.js';
import { checkCursor, type CursorScope } from '../utxo-cursor.js';

export const ADDRESS_TXS_ROUTE = '/api/v1/:chain/address/:address/transactions';
export const SCRIPTHASH_TXS_ROUTE = '/api/v1/:chain/scripthash/:hash/transactions';
export const TX_LIMITS = { default: 25, max: 1000 };
/** One token per 200 transactions asked for, at least one: a default page costs what a summary costs. */
export const TXS_PER_TOKEN = 200;

export const historyOff = (chain: string): ServingError =>
  new ServingError(
    'HISTORY_DISABLED',
    `the ${chain} index keeps no history: the operator turns it on with chains.${chain}.history (ADDRSUM_HISTORY=true)`,
  );

/** 503 while history is built for an index that had none, with how far the build is. */
export function historyBuilding(chain: string, { height, tipHeight }: HistoryBuildProgress): ServingError {
  const percent = tipHeight < 0 ? 0 : Math.floor(((height + 1) / (tipHeight + 1)) * 1000) / 10;
  return new ServingError(
    'HISTORY_BUILDING',
    `the ${chain} index is building its history from the node's blocks (height ${height} of ${tipHeight}, ${percent}%): balances are served meanwhile`,
    { builtHeight: height, tipHeight, percent },
    { 'Retry-After': RETRY_503_SECONDS },
  );
}

/**
 * The page a history read answers with, after the index state's checks; 503 while history is built,
 * 404 while it is off. Every history route serves its page through here.
 */
export function servedPage<P>(
  deps: AppDeps,
  chain: ChainCode,
  read: (IndexStatus & { readonly building?: HistoryBuildProgress; readonly page: P | null }) | null,
  res: HeaderSink,
): P {
  checkAnswering(deps, chain, read, res);
  if (read.building) throw historyBuilding(chain, read.building);
  if (!read.page) throw historyOff(chain);
  res.setHeader('Cache-Control', 'no-store');
  return read.page;
}

export interface HistoryQuery {
  readonly limit: number;
  readonly cursor: HistoryCursor | null;
  /** `?mempool=true`: unconfirmed transactions first. */
  readonly mempool: boolean;
}

/** Every history route's query: `?limit=`, `&cursor=`, `&mempool=`. */
export function parseHistoryQuery(req: Request): HistoryQuery {
  const p = queryOf(req);
  const limit = parseLimit(p, TX_LIMITS);
  const cursorText = oneParam(p, 'cursor');
  const cursor: HistoryCursor | null = cursorText === null ? null : decodeHistoryCursor(cursorText);
  return { limit, cursor, mempool: mempoolRequested(req) };
}

async function answer(deps: AppDeps, req: Request, res: Response, kind: 'address' | 'scripthash'): Promise<void> {
  const { chain, handle, key, named } = scriptNamed(deps, req, kind);
  const { limit, cursor, mempool } = parseHistoryQuery(req);
  const scope: CursorScope = { chain, network: handle.params.network, kind: 'history', id: key.toString('hex'), mempool };
  const read = await readIndex(chain, handle, async (source) => {
    if (!source.historyPage) {
      const status = await source.status();
      return status && { ...status, page: null };
    }
    return source.historyPage({
      key,
      after: cursor?.after ?? null,
      limit,
      mempool,
      check: (ctx) => {
        if (cursor) checkCursor(cursor, ctx.secret, scope, { height: ctx.tipHeight, hash: ctx.tipHash });
      },
    });
  });
  const page = servedPage(deps, chain, read, res);
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      ...named,
      ...historyView(page, scope, historyItem),
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
