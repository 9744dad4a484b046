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
import { etagOf, mempoolRequested, summaryBody } from '../address-view.js';
import { parseChain } from '../chain-param.js';
import type { AppDeps } from '../deps.js';
import { ServingError } from '../../serving/errors.js';
import { checkAnswering, readIndex, unavailable } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { mountSummaryRoute, sendSummary } from './summary-route.js';

export const ADDRESS_ROUTE = '/api/v1/:chain/address/:address';

function answer(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const address = String(req.params.address);
  const decoded = addressToScript(handle.params, address);
  if (!decoded.ok) throw new ServingError(decoded.error.code, decoded.error.message);
  const script = decoded.script;
  const read = mempoolRequested(req)
    ? readIndex(chain, handle, (source) => source.views([script], true).then((views) => views && { ...views, ...views.items[0]! }))
    : readIndex(chain, handle, (source) => source.summary(script));
  // .then rather than await: this route takes nearly every request (index-read.ts readIndex).
  return read.then((view) => {
    checkAnswering(deps, chain, view, res);
    sendSummary(req, res, etagOf(handle, script, view, view.tipHeight, view.tipHash), () =>
      summaryBody(chain, handle, address, script, view, view.tipHeight, view.tipHash),
    );
  });
}

export function mountAddressRoute(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountSummaryRoute(app, ADDRESS_ROUTE, deps, limiter, metrics, answer);
}
