/**
 * GET/HEAD /api/v1/{chain}/tx/{txid}, …/hex, …/merkle-proof and …/outspends: a transaction of the indexed
 * blocks or of the node's mempool, decoded (tx-view.ts) with what spent each output, in the node's raw
 * form, with the merkle branch that proves it in its block, or what spent each output alone (history's
 * spend index, src/store/spend-key.ts). Read from the node without -txindex (src/serving/tx-source.ts); needs history
 * (chains.<C>.history), which knows every transaction's block.
 *
 * Checks, in order: chain → API key → limits (one token) → txid → the index's state → the transaction
 * (404 TX_NOT_FOUND) → one more token per PREVOUTS_PER_TOKEN funding transactions (the decoded view) and
 * per OUTPUTS_PER_TOKEN outputs (the decoded view, the outspends) beyond the first ones, taken before
 * they are read → answer.
 */
import type { Express, Request, Response } from 'express';
import type { DecodedTx } from '../../chain/tx-decode.js';
import { readHeader } from '../../chain/block-header.js';
import { merkleBranch } from '../../chain/merkle.js';
import { toDisplayHex } from '../../chain/hash.js';
import { ServingError } from '../../serving/errors.js';
import type { FoundTx, Outspend } from '../../serving/tx-source.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { ApiSettings, AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { answeringIndex, nodeRoute, parseTxid, type NodeRoute, type ViewIndex } from '../node-read.js';
import { sendJson } from '../respond.js';
import { outspendView, txView, type TxStatus } from '../tx-view.js';
import { historyOff } from './transactions.js';
import { mountSummaryRoute } from './summary-route.js';

export const TX_ROUTE = '/api/v1/:chain/tx/:txid';
export const TX_HEX_ROUTE = '/api/v1/:chain/tx/:txid/hex';
export const TX_MERKLE_ROUTE = '/api/v1/:chain/tx/:txid/merkle-proof';
export const TX_OUTSPENDS_ROUTE = '/api/v1/:chain/tx/:txid/outspends';
/** Funding transactions one token pays for: the first token (the route's) covers the first ones. */
export const PREVOUTS_PER_TOKEN = 25;
/** Outputs whose spends one token pays for, likewise. */
export const OUTPUTS_PER_TOKEN = 100;

/** Tokens beyond the route's first for `n` items at `per` a token. */
const beyond = (n: number, per: number): number => Math.max(0, Math.ceil(n / per) - 1);

/** Tokens beyond the first that reading `tx`'s outputs' spends (and, `withPrevouts`, its prevouts) costs. */
export function txExtraTokens(tx: DecodedTx, withPrevouts: boolean): number {
  return (withPrevouts ? beyond(fundingCount(tx), PREVOUTS_PER_TOKEN) : 0) + beyond(tx.outputs.length, OUTPUTS_PER_TOKEN);
}

/** Takes `extra` tokens more (0: none) before the work they pay for; a full bucket pays for any one request. */
export function extraCharge(
  limiter: RateLimiter,
  settings: ApiSettings,
  metrics: ApiMetrics,
): (req: Request, res: Response, extra: number) => Promise<void> {
  return async (req, res, extra) => {
    if (extra <= 0) return;
    await limitCheck(
      limiter,
      settings,
      metrics,
      () => extra,
      (n) => `reading this transaction's inputs and outputs (${n} tokens more)`,
      true,
    )(req, res);
  };
}

interface Found {
  readonly route: NodeRoute;
  readonly index: ViewIndex;
  readonly found: FoundTx;
  readonly tipHeight: number;
}

async function foundTx(deps: AppDeps, req: Request, res: Response): Promise<Found> {
  const route = nodeRoute(deps, req);
  const txid = parseTxid(String(req.params.txid));
  const { index, tipHeight } = await answeringIndex(deps, route, res, true);
  const found = await route.views.txs.find(index, txid);
  if (found === null)
    throw new ServingError(
      'TX_NOT_FOUND',
      `no transaction ${toDisplayHex(txid)} in the indexed ${route.chain} blocks or the node's mempool`,
    );
  res.setHeader('Cache-Control', 'no-store');
  return { route, index, found, tipHeight };
}

/** Distinct funding transactions: what reading the prevouts costs the node. */
function fundingCount(tx: DecodedTx): number {
  return new Set(tx.inputs.flatMap((i) => (i.prevTxid === null ? [] : [i.prevTxid.toString('hex')]))).size;
}

/** What spent each output; HISTORY_DISABLED when history went off since the request's first read. */
async function spentOf({ route, index, found }: Found): Promise<readonly (Outspend | null)[]> {
  const outspends = await route.views.txs.outspends(index, found);
  if (outspends === null) throw historyOff(route.chain);
  return outspends;
}

async function statusOf({ index, found, tipHeight }: Found): Promise<TxStatus | null> {
  const block = found.block;
  if (block === null) return null;
  const range = await index.headers(block.height, 1);
  const header = range?.headers[0];
  return {
    height: block.height,
    blockHash: toDisplayHex(block.hash),
    // A header of another block there: the index moved past a reorg since the lookup.
    blockTime: header === undefined || !readHeader(header).hash.equals(block.hash) ? null : readHeader(header).time,
    position: block.position,
    tipHeight: Math.max(tipHeight, range?.tipHeight ?? tipHeight),
  };
}

export function mountTxRoutes(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);

  mountSummaryRoute(app, TX_ROUTE, deps, limiter, metrics, async (deps, req, res) => {
    const at = await foundTx(deps, req, res);
    const { tx } = at.found;
    await charge(req, res, txExtraTokens(tx, true));
    const [prevouts, outspends] = await Promise.all([at.route.views.txs.prevouts(at.index, tx), spentOf(at)]);
    const handle = at.route.handle;
    sendJson(res, 200, {
      status: 'success',
      data: { chain: at.route.chain, ...txView(handle.params, tx, prevouts, outspends, await statusOf(at)) },
    });
  });

  mountSummaryRoute(app, TX_OUTSPENDS_ROUTE, deps, limiter, metrics, async (deps, req, res) => {
    const at = await foundTx(deps, req, res);
    await charge(req, res, txExtraTokens(at.found.tx, false));
    const outspends = await spentOf(at);
    sendJson(res, 200, {
      status: 'success',
      data: { chain: at.route.chain, txid: toDisplayHex(at.found.tx.txid), outspends: outspends.map(outspendView) },
    });
  });

  mountSummaryRoute(app, TX_HEX_ROUTE, deps, limiter, metrics, async (deps, req, res) => {
    const { route, found } = await foundTx(deps, req, res);
    sendJson(res, 200, {
      status: 'success',
      data: { chain: route.chain, txid: toDisplayHex(found.tx.txid), hex: found.raw.toString('hex') },
    });
  });

  mountSummaryRoute(app, TX_MERKLE_ROUTE, deps, limiter, metrics, async (deps, req, res) => {
    const at = await foundTx(deps, req, res);
    const { route, index, found } = at;
    const txid = toDisplayHex(found.tx.txid);
    const placed = await route.views.blocks.placement(index, found.tx.txid, found.block);
    if (placed.kind === 'unconfirmed')
      throw new ServingError('TX_NOT_FOUND', `transaction ${txid} is in the mempool, not in a block yet: it has no merkle proof`);
    if (placed.kind === 'left')
      throw new ServingError('TX_NOT_FOUND', `transaction ${txid} left the indexed ${route.chain} chain; ask again`);
    if (placed.kind === 'elsewhere')
      throw new ServingError(
        'NODE_UNAVAILABLE',
        `the ${route.chain} node's block ${placed.block.hash} does not hold ${txid} at position ${placed.position}`,
      );
    const { block, txids, position } = placed;
    sendJson(res, 200, {
      status: 'success',
      data: {
        chain: route.chain,
        txid,
        blockHeight: block.height,
        blockHash: block.hash,
        position,
        merkle: merkleBranch(txids, position).map(toDisplayHex),
      },
    });
  });
}
