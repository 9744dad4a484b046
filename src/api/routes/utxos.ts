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
import { addressToScript, scriptToAddress } from '../../chain/address.js';
import type { ChainCode } from '../../chain/params.js';
import { scriptKey } from '../../store/script-key.js';

type ListedPage = Extract<UtxoPageResult, { kind: 'page' }>;
import { mempoolRequested } from '../address-view.js';
import type { AppDeps, ChainHandle, IndexStatus, SummarySource } from '../deps.js';
import { ApiError, methodNotAllowed } from '../errors.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { inSequence } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../token-bucket.js';
import { checkCursor, decodeCursor, encodeCursor, type CursorScope, type DecodedCursor } from '../utxo-cursor.js';
import { utxoItem } from '../utxo-view.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { checkAnswering, readIndex, unavailable } from '../index-read.js';
import { parseScripthash } from '../scripthash-param.js';
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

function params(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
}

function one(p: URLSearchParams, name: string): string | null {
  const values = p.getAll(name);
  if (values.length > 1) throw new ApiError('BAD_REQUEST', `the ${name} parameter is given more than once`);
  return values[0] ?? null;
}

/** The requested page size alone (for the price, before anything else is parsed); the default when it is not a valid one. */
export function requestedLimit(req: Request): number {
  const text = params(req).getAll('limit')[0];
  const n = text !== undefined && /^\d{1,4}$/.test(text) ? Number(text) : DEFAULT_UTXO_LIMIT;
  return n >= 1 && n <= MAX_UTXO_LIMIT ? n : DEFAULT_UTXO_LIMIT;
}

export function parsePageQuery(req: Request): PageQuery {
  const p = params(req);
  const limitText = one(p, 'limit');
  const limit = limitText === null ? DEFAULT_UTXO_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_UTXO_LIMIT))
    throw new ApiError('INVALID_LIMIT', `limit must be a whole number from 1 to ${MAX_UTXO_LIMIT} (default ${DEFAULT_UTXO_LIMIT})`);
  const cursorText = one(p, 'cursor');
  return { limit, cursor: cursorText === null ? null : decodeCursor(cursorText), mempool: mempoolRequested(req) };
}

export const listingOff = (chain: ChainCode): ApiError =>
  new ApiError(
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
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  let key: Buffer;
  let named: Record<string, string>;
  if (kind === 'address') {
    const address = String(req.params.address);
    const decoded = addressToScript(handle.params, address);
    if (!decoded.ok) throw new ApiError(decoded.error.code, decoded.error.message);
    key = scriptKey(decoded.script);
    named = { address: scriptToAddress(handle.params, decoded.script) ?? address };
  } else {
    const parsed = parseScripthash(String(req.params.hash));
    key = parsed.key;
    named = { scripthash: parsed.hash };
  }
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
  const price = limitCheck(
    limiter,
    deps.settings,
    metrics,
    (req) => Math.max(1, Math.ceil(requestedLimit(req) / UTXOS_PER_TOKEN)),
    (n) => `a page of ${n} tokens (one per ${UTXOS_PER_TOKEN} outputs)`,
  );
  for (const [route, kind] of [
    [ADDRESS_UTXOS_ROUTE, 'address'],
    [SCRIPTHASH_UTXOS_ROUTE, 'scripthash'],
  ] as const) {
    app
      .route(route)
      .get(
        inSequence(chainCheck, keyCheck(deps.keys, deps.settings, limiter, metrics), price, (req: Request, res: Response) =>
          answer(deps, req, res, kind),
        ),
      )
      .all((req: Request) => {
        throw methodNotAllowed(req.method);
      });
  }
}
