/**
 * GET/HEAD /api/v1/{chain}/address/{address}/utxos and …/scripthash/{hash}/utxos (`?limit=`, `&cursor=`,
 * `&mempool=true`): one page of the script's unspent outputs, oldest first (height, then the outpoint
 * key: src/store/sqlite/utxo-list.ts says exactly which order), from the opt-in listing index.
 *
 * Checks, in order: chain → API key → limits (one token per UTXOS_PER_TOKEN outputs asked for, as the
 * batch and wallet routes charge by work) → address or hash, limit, cursor shape → one read (the
 * listing's state, the cursor's MAC, binding and tip, and the rows, in one snapshot) → index state →
 * answer. Keyset paging: the cursor names the last row served, so every page costs O(limit).
 */
import type { Express, Request, Response } from 'express';
import type { ChainCode } from '../../chain/params.js';

type ListedPage = Extract<UtxoPageResult, { kind: 'page' }>;
import { mempoolRequested } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import type { ChainHandle, IndexStatus, SummarySource } from '../../serving/chain-handle.js';
import { ServingError } from '../../serving/errors.js';
import type { ApiMetrics } from '../metrics.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { mountPagedRoutes, scriptNamed } from './paged-route.js';
import { checkCursor, decodeCursor, encodeCursor, type CursorScope, type DecodedCursor } from '../utxo-cursor.js';
import { utxoItem } from '../utxo-view.js';
import { checkAnswering, readIndex } from '../index-read.js';
import { oneParam, parseLimit, queryOf } from '../page-query.js';
import type { UtxoPageResult } from '../../store/index-model.js';

export const ADDRESS_UTXOS_ROUTE = '/api/v1/:chain/address/:address/utxos';
export const SCRIPTHASH_UTXOS_ROUTE = '/api/v1/:chain/scripthash/:hash/utxos';
export const DEFAULT_UTXO_LIMIT = 100;
export const MAX_UTXO_LIMIT = 1000;
/** One token per 200 outputs asked for, at least one: a default page costs what a summary costs. */
export const UTXOS_PER_TOKEN = 200;

export interface PageQuery {
  readonly limit: number;
  readonly cursor: DecodedCursor | null;
  readonly mempool: boolean;
}

/** The UTXO routes' page sizes. */
export const UTXO_LIMITS = { default: DEFAULT_UTXO_LIMIT, max: MAX_UTXO_LIMIT };

export function parsePageQuery(req: Request): PageQuery {
  const p = queryOf(req);
  const limit = parseLimit(p, UTXO_LIMITS);
  const cursorText = oneParam(p, 'cursor');
  return { limit, cursor: cursorText === null ? null : decodeCursor(cursorText), mempool: mempoolRequested(req) };
}

export const listingOff = (chain: ChainCode): ServingError =>
  new ServingError(
    'UTXO_LIST_DISABLED',
    `the ${chain} index keeps no UTXO listing: the operator turns it on with chains.${chain}.utxoList (ADDRSUM_UTXO_LIST=true)`,
  );

/** Reads one page for `keys`, checking the cursor inside the read; 404 when the listing is off. */
export async function readPage(
  deps: AppDeps,
  chain: ChainCode,
  handle: ChainHandle,
  keys: readonly Buffer[],
  scope: CursorScope,
  query: PageQuery,
  res: Response,
): Promise<{ page: ListedPage; next: string | null }> {
  const read = await readIndex(chain, handle, (source) =>
    source.utxoPage
      ? source.utxoPage({
          keys,
          after: query.cursor?.position ?? null,
          limit: query.limit,
          mempool: query.mempool,
          check: (ctx) => {
            if (query.cursor) checkCursor(query.cursor, ctx.secret, scope, { height: ctx.tipHeight, hash: ctx.tipHash });
          },
        })
      : notListed(source),
  );
  checkAnswering(deps, chain, read, res);
  const page = read.listing;
  if (page.kind !== 'page') throw listingOff(chain);
  const next = page.next && encodeCursor(page.secret, scope, { height: page.tipHeight, hash: page.tipHash }, page.next);
  return { page, next };
}

/** A source that cannot list (a fake without utxoPage): its status, listing nothing. */
async function notListed(source: SummarySource): Promise<(IndexStatus & { listing: UtxoPageResult }) | null> {
  const status = await source.status();
  return status && { ...status, listing: { kind: 'empty' } };
}

async function answer(deps: AppDeps, req: Request, res: Response, kind: 'address' | 'scripthash'): Promise<void> {
  const { chain, handle, key, named } = scriptNamed(deps, req, kind);
  const query = parsePageQuery(req);
  const { network } = handle.params;
  const scope: CursorScope = { chain, network, kind: 'script', id: key.toString('hex'), mempool: query.mempool };
  const { page, next } = await readPage(deps, chain, handle, [key], scope, query, res);
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      ...named,
      utxos: page.rows.map((row) => utxoItem(row, query.mempool)),
      next,
      blockHeight: page.tipHeight,
      blockHash: Buffer.from(page.tipHash).reverse().toString('hex'),
    },
  });
}

export function mountUtxoRoutes(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountPagedRoutes(app, deps, limiter, metrics, {
    address: ADDRESS_UTXOS_ROUTE,
    scripthash: SCRIPTHASH_UTXOS_ROUTE,
    bounds: UTXO_LIMITS,
    perToken: UTXOS_PER_TOKEN,
    items: 'outputs',
    answer,
  });
}
