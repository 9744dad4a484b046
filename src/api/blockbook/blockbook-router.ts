/**
 * The Blockbook dialect of the HTTP API (docs/blockbook.md), at /blockbook/{chain} when api.blockbook is
 * on: the REST v2 routes of Trezor's Blockbook that blockbook-client and Trezor Suite's library call,
 * read through the same serving layer as the native routes, behind the dialects' checks (anonymous
 * requests at the `default` tier: ../dialect-router.ts). A path Blockbook does not serve answers 404 in
 * Blockbook's error shape.
 */
import express, { type Router } from 'express';
import type { AppDeps } from '../deps.js';
import { dialectRouter } from '../dialect-router.js';
import type { ApiMetrics } from '../metrics.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { mountBlockbookAddress } from './blockbook-address.js';
import { blockbookErrorHandler, blockbookUnmatched } from './blockbook-answers.js';
import { httpAsking } from './blockbook-ask.js';
import { mountBlockbookBlocks } from './blockbook-blocks.js';
import { mountBlockbookHistory } from './blockbook-history.js';
import { mountBlockbookNode } from './blockbook-node.js';
import { mountBlockbookTxs } from './blockbook-txs.js';

export const BLOCKBOOK_BASE = '/blockbook/:chain';

export function blockbookRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): Router {
  const router = dialectRouter(deps, limiter, metrics);
  const asking = httpAsking(deps, limiter, metrics);
  mountBlockbookNode(router, asking);
  const v2 = express.Router({ mergeParams: true, caseSensitive: true, strict: true });
  mountBlockbookTxs(v2, asking);
  mountBlockbookAddress(v2, asking);
  mountBlockbookBlocks(v2, asking);
  mountBlockbookHistory(v2, asking);
  router.use('/api/v2', v2);
  router.use(blockbookUnmatched);
  router.use(blockbookErrorHandler);
  return router;
}
