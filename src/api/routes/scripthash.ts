/**
 * GET/HEAD /api/v1/{chain}/scripthash/{hash}: the address route's summary for a script named by its
 * Electrum scripthash (SHA-256 of the scriptPubKey, hex, byte-reversed), with `scripthash` in place of
 * `address`. This is how outputs with no address (P2PK, bare multisig, non-standard) are asked for.
 *
 * The index keys a script by the first 16 bytes of its SHA-256 (store/script-key.ts), so the key is
 * read straight off the un-reversed hash: no mapping table, no scan. Checks run in the address route's
 * order (chain → key → limits → hash → one read → index state), and `?mempool=true` works as there.
 */
import type { Express, Request, Response } from 'express';
import { etagOf, mempoolRequested, scripthashBody } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { parseChain } from '../chain-param.js';
import { checkAnswering, readIndex, unavailable } from '../index-read.js';
import { parseScripthash } from '../../serving/scripthash-param.js';
import { mountSummaryRoute, sendSummary } from './summary-route.js';

export const SCRIPTHASH_ROUTE = '/api/v1/:chain/scripthash/:hash';

async function answer(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const { hash, key } = parseScripthash(String(req.params.hash));
  const mempool = mempoolRequested(req);
  const views = await readIndex(chain, handle, (source) => source.keyViews([key], mempool));
  checkAnswering(deps, chain, views, res);
  const view = views.items[0];
  if (!view) throw new Error('the index answered no script');
  sendSummary(req, res, etagOf(handle, key, view, views.tipHeight, views.tipHash), () =>
    scripthashBody(chain, hash, view, views.tipHeight, views.tipHash),
  );
}

export function mountScripthashRoute(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountSummaryRoute(app, SCRIPTHASH_ROUTE, deps, limiter, metrics, answer);
}
