/**
 * GET/HEAD /api/v1/{chain}/address/{address}.
 *
 * Order of checks (each answers before the next runs): route → method → chain → key → limits →
 * address → index state (present, readable, fresh, caught up) → lookup. Chain and address are validated before any data is read; the key is
 * checked before the address so that callers without a key cannot use the validator.
 * The answer is one SQLite read (balance, UTXO count and the tip they are true at, together); its ETag
 * is derived from chain, network, script and tip, so it changes exactly when the answer may.
 * `?mempool=true` adds the script's mempool deltas from the same read, and an ETag that covers them
 * (address-view.ts); the body is built by address-view.ts for both, and for every batch entry.
 */
import { createHash } from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { addressToScript } from '../../chain/address.js';
import { CHAIN_CODES, type ChainCode } from '../../chain/params.js';
import type { ApiMetrics } from '../../metrics.js';
import { chainState, type Ages, type ChainState } from '../chain-state.js';
import { systemClock, type AppDeps, type ChainHandle, type SummarySource } from '../deps.js';
import { ApiError, methodNotAllowed, quote } from '../errors.js';
import { authenticate } from '../middleware/auth.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../token-bucket.js';
import { mempoolEtag, mempoolRequested, summaryBody } from '../address-view.js';

export const ADDRESS_ROUTE = '/api/v1/:chain/address/:address';

/** Seconds a client should wait before retrying a 503 (the indexer polls the node every second). */
const RETRY_503_SECONDS = '5';

export function parseChain(segment: string): ChainCode {
  const code = segment.toUpperCase();
  if (!(CHAIN_CODES as readonly string[]).includes(code)) {
    throw new ApiError('UNKNOWN_CHAIN', `unknown chain ${quote(segment, 16)}; supported chains: ${CHAIN_CODES.join(', ')}`);
  }
  return code as ChainCode;
}

export function unavailable(chain: ChainCode, why: string): ApiError {
  return new ApiError('CHAIN_UNAVAILABLE', `${chain} is not available: ${why}`, undefined, { 'Retry-After': RETRY_503_SECONDS });
}

function damaged(chain: ChainCode, why: string): ApiError {
  return new ApiError('INDEX_DAMAGED', `${chain} is not available: ${why}`, undefined, { 'Retry-After': RETRY_503_SECONDS });
}

function stale(chain: ChainCode, why: string, indexedHeight: number, ages: Ages): ApiError {
  return new ApiError(
    'CHAIN_UNAVAILABLE',
    `${chain} is not available: ${why}`,
    { indexedHeight, ...ages },
    { 'Retry-After': RETRY_503_SECONDS },
  );
}

/** How current the answer is, so a caller can judge for itself (seconds; absent when unknown). */
function setAgeHeaders(res: Response, ages: Ages): void {
  if (ages.nodeSeenAgeSeconds !== null) res.setHeader('X-Index-Age', String(ages.nodeSeenAgeSeconds));
  if (ages.tipAgeSeconds !== null) res.setHeader('X-Tip-Age', String(ages.tipAgeSeconds));
}

export function syncing(chain: ChainCode, indexedHeight: number | null, nodeHeight: number | null): ApiError {
  const where = indexedHeight === null ? 'has no blocks yet' : `is at height ${indexedHeight} of ${nodeHeight ?? '?'}`;
  return new ApiError(
    'CHAIN_SYNCING',
    `the ${chain} index ${where}; answers resume when it has caught up`,
    { indexedHeight, nodeHeight },
    {
      'Retry-After': RETRY_503_SECONDS,
    },
  );
}

export function etagOf(handle: ChainHandle, script: Uint8Array, tipHeight: number, tipHash: string): string {
  const { chain, network } = handle.params;
  const hash = createHash('sha256').update(`v1|${chain}|${network}|${Buffer.from(script).toString('hex')}|${tipHeight}|${tipHash}`);
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * The chain's index when it may answer now (present, readable, fresh, caught up), with the age headers
 * set; otherwise the 503 that says why. Shared by the single and the batch route.
 */
export function answeringState(
  deps: AppDeps,
  chain: ChainCode,
  handle: ChainHandle,
  res: Response,
): Extract<ChainState, { kind: 'ready' }> {
  const state = chainState(handle, deps.settings, (deps.clock ?? systemClock).now());
  if (state.kind === 'unavailable') throw state.damaged === true ? damaged(chain, state.reason) : unavailable(chain, state.reason);
  if (state.kind === 'empty') throw syncing(chain, null, null);
  if (state.kind === 'stale') throw stale(chain, state.reason, state.status.tipHeight, state.ages);
  if (state.kind === 'syncing') throw syncing(chain, state.status.tipHeight, state.status.nodeHeight);
  setAgeHeaders(res, state.ages);
  return state;
}

/** The first handler of every chain route: an unknown chain answers 404 before any key check. */
export function checkChain(req: Request, _res: Response, next: NextFunction): void {
  parseChain(String(req.params.chain));
  next();
}

function answer(deps: AppDeps, req: Request, res: Response): void {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const address = String(req.params.address);
  const decoded = addressToScript(handle.params, address);
  if (!decoded.ok) throw new ApiError(decoded.error.code, decoded.error.message);
  const state = answeringState(deps, chain, handle, res);
  if (mempoolRequested(req)) {
    answerWithMempool(handle, chain, address, decoded.script, state.source, state.status.nodeHeight, req, res);
    return;
  }
  let summary: ReturnType<typeof state.source.summary>;
  try {
    summary = state.source.summary(decoded.script);
  } catch (err) {
    const failure = handle.failed?.(err);
    if (!failure) throw err;
    throw failure.damaged ? damaged(chain, failure.reason) : unavailable(chain, failure.reason);
  }
  // The tip can vanish between the two reads only if the database was replaced; say so rather than guess.
  if (summary === null) throw syncing(chain, null, state.status.nodeHeight);
  res.setHeader('ETag', etagOf(handle, decoded.script, summary.tipHeight, summary.tipHash));
  res.setHeader('Cache-Control', 'no-cache');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  sendJson(res, 200, summaryBody(chain, handle, address, decoded.script, summary, summary.tipHeight, summary.tipHash));
}

/** `?mempool=true`: the same answer plus `unconfirmed`, from one read of the confirmed row and the mempool row. */
function answerWithMempool(
  handle: ChainHandle,
  chain: ChainCode,
  address: string,
  script: Uint8Array,
  source: SummarySource,
  nodeHeight: number | null,
  req: Request,
  res: Response,
): void {
  const views = source.views([script], true);
  const view = views?.items[0];
  if (!views || !view) throw syncing(chain, null, nodeHeight);
  res.setHeader('ETag', mempoolEtag(handle, script, view, views.tipHeight, views.tipHash));
  res.setHeader('Cache-Control', 'no-cache');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  sendJson(res, 200, summaryBody(chain, handle, address, script, view, views.tipHeight, views.tipHash));
}

export function addressRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): Router {
  // Paths are case-sensitive as documented; only the chain segment is case-insensitive (by parseChain).
  const router = Router({ caseSensitive: true });
  router
    .route(ADDRESS_ROUTE)
    .get(
      checkChain,
      authenticate(deps.keys, deps.settings, limiter, metrics),
      rateLimit(limiter, deps.settings, metrics),
      (req: Request, res: Response) => answer(deps, req, res),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
  return router;
}
