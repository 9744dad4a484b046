/**
 * GET/HEAD /api/v1/{chain}/block/{hash|height}, …/block/{hash|height}/txids and …/blocks/tip: a block of
 * the indexed chain, its header fields from the index's stored headers and what a header does not hold
 * from the node (src/serving/block-source.ts). Needs no history.
 *
 * Checks, in order: chain → API key → limits (one token) → block id, `start` and `limit` → the index's
 * state → the block (404 BLOCK_NOT_FOUND: above the tip, a hash of no block or of a block the indexed
 * chain does not hold) → answer.
 */
import type { Express, Request, Response } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import { difficulty, type IndexedBlock } from '../../serving/block-source.js';
import { ServingError } from '../../serving/errors.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, parseBlockId, type BlockId, type NodeRoute, type ViewIndex } from '../node-read.js';
import { oneParam, parseLimit, queryOf } from '../page-query.js';
import { sendJson } from '../respond.js';
import { mountSummaryRoute } from './summary-route.js';

export const BLOCK_ROUTE = '/api/v1/:chain/block/:id';
export const BLOCK_TXIDS_ROUTE = '/api/v1/:chain/block/:id/txids';
export const TIP_ROUTE = '/api/v1/:chain/blocks/tip';
export const TXIDS_LIMITS = { default: 100, max: 1000 };

async function indexedBlock(route: NodeRoute, index: ViewIndex, id: BlockId): Promise<IndexedBlock> {
  const block = await ('height' in id ? route.views.blocks.atHeight(index, id.height) : route.views.blocks.withHash(index, id.hash));
  if (block === null)
    throw new ServingError(
      'BLOCK_NOT_FOUND',
      'height' in id
        ? `no block at height ${id.height} in the indexed ${route.chain} chain`
        : `no block ${id.hash} in the indexed ${route.chain} chain`,
    );
  return block;
}

async function blockAnswer(deps: AppDeps, req: Request, res: Response, id: BlockId | 'tip'): Promise<void> {
  const route = nodeRoute(deps, req);
  const { index, tipHeight } = await answeringIndex(deps, route, res, false);
  const block = await indexedBlock(route, index, id === 'tip' ? { height: tipHeight } : id);
  const body = await route.views.blocks.body(block);
  const medianTime = await route.views.blocks.medianTime(index, block);
  const h = block.header;
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain: route.chain,
      hash: block.hash,
      height: block.height,
      version: h.version,
      time: h.time,
      medianTime,
      bits: h.bits.toString(16).padStart(8, '0'),
      nonce: h.nonce,
      difficulty: difficulty(h.bits),
      merkleRoot: toDisplayHex(h.merkleRoot),
      previousBlockHash: block.height === 0 ? null : toDisplayHex(h.prevHash),
      nextBlockHash: block.nextHash,
      confirmations: block.tipHeight - block.height + 1,
      txCount: body.txids.length,
      size: body.size,
      strippedSize: body.strippedSize,
      weight: body.weight,
    },
  });
}

export function mountBlockRoutes(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  mountSummaryRoute(app, TIP_ROUTE, deps, limiter, metrics, (deps, req, res) => blockAnswer(deps, req, res, 'tip'));
  mountSummaryRoute(app, BLOCK_ROUTE, deps, limiter, metrics, (deps, req, res) =>
    blockAnswer(deps, req, res, parseBlockId(String(req.params.id))),
  );
  mountSummaryRoute(app, BLOCK_TXIDS_ROUTE, deps, limiter, metrics, async (deps, req, res) => {
    const route = nodeRoute(deps, req);
    const id = parseBlockId(String(req.params.id));
    const p = queryOf(req);
    const limit = parseLimit(p, TXIDS_LIMITS);
    const startText = oneParam(p, 'start');
    const start = startText === null ? 0 : /^\d{1,7}$/.test(startText) ? Number(startText) : NaN;
    if (!Number.isSafeInteger(start))
      throw new ServingError('BAD_REQUEST', 'start must be a whole number: the position of the first txid listed');
    const { index } = await answeringIndex(deps, route, res, false);
    const block = await indexedBlock(route, index, id);
    const { txids } = await route.views.blocks.body(block);
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, {
      status: 'success',
      data: {
        chain: route.chain,
        hash: block.hash,
        height: block.height,
        txCount: txids.length,
        start,
        txids: txids.slice(start, start + limit).map(toDisplayHex),
        next: start + limit < txids.length ? start + limit : null,
      },
    });
  });
}
