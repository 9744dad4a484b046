/**
 * The Esplora dialect of the HTTP API (docs/esplora.md), at /esplora/{chain}/api when api.esplora is on:
 * the routes of Blockstream's electrs that BDK, LDK and mempool.js call, read through the same serving
 * layer as the native routes. Esplora clients send no key, so turning the dialect on is the operator's
 * consent to anonymous use: a request without x-api-key is served at the `default` tier, limited per
 * client network; one with a key gets its key's tier (a wrong key is refused as on the native routes).
 *
 * Each request: chain → key → limits (one token) → its route. GET is served, and POST /tx and
 * /txs/package; any other method, and any path electrs does not serve (a trailing slash included),
 * answers its 404 text.
 */
import type { Router } from 'express';
import type { AppDeps } from '../deps.js';
import { dialectRouter } from '../dialect-router.js';
import type { ApiMetrics } from '../metrics.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { esploraErrorHandler, esploraUnmatched } from './esplora-answers.js';
import { mountEsploraBlocks } from './esplora-blocks.js';
import { mountEsploraNode } from './esplora-node.js';
import { mountEsploraScripts } from './esplora-scripts.js';
import { mountEsploraTxs } from './esplora-txs.js';

export const ESPLORA_BASE = '/esplora/:chain/api';

export function esploraRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): Router {
  const router = dialectRouter(deps, limiter, metrics);
  mountEsploraScripts(router, deps, limiter, metrics);
  mountEsploraTxs(router, deps, limiter, metrics);
  mountEsploraBlocks(router, deps, limiter, metrics);
  mountEsploraNode(router, deps);
  router.use(esploraUnmatched);
  router.use(esploraErrorHandler);
  return router;
}
