/**
 * One read of a chain's index, and the 503s that say why it may not answer (missing, damaged, stale,
 * behind the node): kept in one place so that every route and the live pushes refuse alike.
 */
import type { ChainCode } from '../chain/params.js';
import { judge, type Ages } from '../serving/chain-state.js';
import { systemClock } from '../serving/clock.js';
import { type AppDeps } from './deps.js';
import { type ChainHandle, type IndexStatus, type SummarySource } from '../serving/chain-handle.js';
import { ServingError } from '../serving/errors.js';

/** Seconds a client should wait before retrying a 503 (the indexer polls the node every second). */
export const RETRY_503_SECONDS = '5';

export function unavailable(chain: ChainCode, why: string): ServingError {
  return new ServingError('CHAIN_UNAVAILABLE', `${chain} is not available: ${why}`, undefined, { 'Retry-After': RETRY_503_SECONDS });
}

function damaged(chain: ChainCode, why: string): ServingError {
  return new ServingError('INDEX_DAMAGED', `${chain} is not available: ${why}`, undefined, { 'Retry-After': RETRY_503_SECONDS });
}

function stale(chain: ChainCode, why: string, indexedHeight: number, ages: Ages): ServingError {
  return new ServingError(
    'CHAIN_UNAVAILABLE',
    `${chain} is not available: ${why}`,
    { indexedHeight, ...ages },
    { 'Retry-After': RETRY_503_SECONDS },
  );
}

/** Where an answer's headers go: an HTTP response, or nowhere (a WebSocket message has none). */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** How current the answer is, so a caller can judge for itself (seconds; absent when unknown). */
function setAgeHeaders(res: HeaderSink, ages: Ages): void {
  if (ages.nodeSeenAgeSeconds !== null) res.setHeader('X-Index-Age', String(ages.nodeSeenAgeSeconds));
  if (ages.tipAgeSeconds !== null) res.setHeader('X-Tip-Age', String(ages.tipAgeSeconds));
}

export function syncing(chain: ChainCode, indexedHeight: number | null, nodeHeight: number | null): ServingError {
  const where = indexedHeight === null ? 'has no blocks yet' : `is at height ${indexedHeight} of ${nodeHeight ?? '?'}`;
  return new ServingError(
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
 * missing, damaged or vanished file answers its 503 here, whether the read throws or rejects. Not an
 * async function: the summary routes answer thousands of times a second, and each await on the way
 * costs a turn of the microtask queue; this hands back the one promise `.then` makes.
 */
export function readIndex<T>(chain: ChainCode, handle: ChainHandle, read: (source: SummarySource) => Promise<T | null>): Promise<T | null> {
  const acquired = handle.acquire();
  if (!acquired.ok) throw acquired.damaged === true ? damaged(chain, acquired.reason) : unavailable(chain, acquired.reason);
  const refuse = (err: unknown): never => {
    const failure = handle.failed?.(err);
    if (!failure) throw err;
    throw failure.damaged ? damaged(chain, failure.reason) : unavailable(chain, failure.reason);
  };
  let pending: Promise<T | null>;
  try {
    pending = read(acquired.source);
  } catch (err) {
    return refuse(err);
  }
  return pending.then(undefined, refuse);
}

/**
 * Throws the 503 that says why the index must not answer now (nothing indexed, stale, behind the node);
 * otherwise sets the age headers.
 */
export function checkAnswering(
  deps: AppDeps,
  chain: ChainCode,
  status: IndexStatus | null,
  res: HeaderSink,
): asserts status is IndexStatus {
  if (status === null) throw syncing(chain, null, null);
  const judged = judge(status, deps.settings, (deps.clock ?? systemClock).now(), deps.chains.get(chain)?.params);
  if (judged.kind === 'stale') throw stale(chain, judged.reason, status.tipHeight, judged.ages);
  if (judged.kind === 'syncing') throw syncing(chain, status.tipHeight, status.nodeHeight);
  setAgeHeaders(res, judged.ages);
}
