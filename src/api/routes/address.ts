/**
 * GET/HEAD /api/v1/{chain}/address/{address}.
 *
 * Order of checks (each answers before the next runs): route → method → chain → key → limits →
 * address → index present and readable → one SQLite read → index state (fresh, caught up) → answer.
 * Chain and address are validated before any data is read; the key is checked before the address so
 * that callers without a key cannot use the validator. The read returns the balance, the UTXO count
 * and the index status they are true at, together; a stale or lagging status answers its 503 without
 * the balance. The ETag is derived from chain, network, script and tip, so it changes exactly when the
 * answer may.
 * `?mempool=true` adds the script's mempool deltas from the same read, and an ETag that covers them
 * (address-view.ts); the body is built by address-view.ts for both, and for every batch entry.
 */
import type { Express, Request, Response } from 'express';
import { addressToScript } from '../../chain/address.js';
import { CHAIN_CODES, type ChainCode } from '../../chain/params.js';
import type { ApiMetrics } from '../metrics.js';
import { judge, type Ages } from '../chain-state.js';
import { systemClock, type AppDeps, type ChainHandle, type IndexStatus, type SummarySource } from '../deps.js';
import { ApiError, methodNotAllowed, quote } from '../errors.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { inSequence, type Step } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../token-bucket.js';
import { etagOf, mempoolRequested, summaryBody } from '../address-view.js';

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

/**
 * One read of the chain's index through `read` (the answer and the status it is true at together); a
 * missing, damaged or vanished file answers its 503 here. Shared by the single and the batch route.
 */
export function readIndex<T extends IndexStatus>(
  chain: ChainCode,
  handle: ChainHandle,
  read: (source: SummarySource) => T | null,
): T | null {
  const acquired = handle.acquire();
  if (!acquired.ok) throw acquired.damaged === true ? damaged(chain, acquired.reason) : unavailable(chain, acquired.reason);
  try {
    return read(acquired.source);
  } catch (err) {
    const failure = handle.failed?.(err);
    if (!failure) throw err;
    throw failure.damaged ? damaged(chain, failure.reason) : unavailable(chain, failure.reason);
  }
}

/**
 * Throws the 503 that says why the index must not answer now (nothing indexed, stale, behind the node);
 * otherwise sets the age headers. Shared by the single and the batch route.
 */
export function checkAnswering(deps: AppDeps, chain: ChainCode, status: IndexStatus | null, res: Response): asserts status is IndexStatus {
  if (status === null) throw syncing(chain, null, null);
  const judged = judge(status, deps.settings, (deps.clock ?? systemClock).now(), deps.chains.get(chain)?.params);
  if (judged.kind === 'stale') throw stale(chain, judged.reason, status.tipHeight, judged.ages);
  if (judged.kind === 'syncing') throw syncing(chain, status.tipHeight, status.nodeHeight);
  setAgeHeaders(res, judged.ages);
}

/** The first step of every chain route: an unknown chain answers 404 before any key check. */
export const chainCheck: Step = (req: Request) => {
  parseChain(String(req.params.chain));
};

function answer(deps: AppDeps, req: Request, res: Response): void {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const address = String(req.params.address);
  const decoded = addressToScript(handle.params, address);
  if (!decoded.ok) throw new ApiError(decoded.error.code, decoded.error.message);
  const script = decoded.script;
  const mempool = mempoolRequested(req);
  const view = mempool
    ? readIndex(chain, handle, (source) => {
        const views = source.views([script], true);
        return views && { ...views, ...views.items[0]! };
      })
    : readIndex(chain, handle, (source) => source.summary(script));
  checkAnswering(deps, chain, view, res);
  sendSummary(req, res, etagOf(handle, script, view, view.tipHeight, view.tipHash), () =>
    summaryBody(chain, handle, address, script, view, view.tipHeight, view.tipHash),
  );
}

/** Sends a one-script summary with its ETag, or a 304 when the client holds it already (address and scripthash routes). */
export function sendSummary(req: Request, res: Response, etag: string, body: () => object): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'no-cache');
  // Express's freshness check, only when the client has a validator to compare (most requests do not).
  if (req.headers['if-none-match'] !== undefined && req.fresh) {
    res.status(304).end();
    return;
  }
  sendJson(res, 200, body());
}

/**
 * Mounts a one-script summary route (GET/HEAD; chain → key → limits → `answer`; other methods 405) on
 * the app itself, not through a Router of its own: the address route takes nearly every request, and
 * each nesting level and handler hop in Express costs. The app routes case-sensitively (app.ts).
 */
export function mountSummaryRoute(
  app: Express,
  route: string,
  deps: AppDeps,
  limiter: RateLimiter,
  metrics: ApiMetrics,
  answer: (deps: AppDeps, req: Request, res: Response) => void,
): void {
  app
    .route(route)
    .get(
      inSequence(
        chainCheck,
        keyCheck(deps.keys, deps.settings, limiter, metrics),
        limitCheck(limiter, deps.settings, metrics),
        (req: Request, res: Response) => answer(deps, req, res),
      ),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}

export function mountAddressRoute(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountSummaryRoute(app, ADDRESS_ROUTE, deps, limiter, metrics, answer);
}
