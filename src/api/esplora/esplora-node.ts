/**
 * Esplora's routes the node answers by itself: POST /tx (relayed only when api.broadcast is on),
 * /mempool/txids and /fee-estimates (Core's estimatesmartfee for electrs's targets, in sat/vB, kept for a
 * minute as electrs keeps them, so a crowd of wallets asking makes 28 node calls a minute, not each).
 */
import express, { type Router } from 'express';
import { LRUCache } from 'lru-cache';
import type { ChainCode } from '../../chain/params.js';
import { NodeError } from '../../node/node-client.js';
import { nodeFailure } from '../../serving/node-answers.js';
import { settingWithVariables } from '../../setting-variables.js';
import type { AppDeps } from '../deps.js';
import { nodeRoute } from '../node-read.js';
import { EsploraError, sendEsploraJson, sendEsploraText } from './esplora-answers.js';
import { F64 } from './esplora-json.js';

/** The confirmation targets electrs asks estimatesmartfee for. */
export const FEE_TARGETS: readonly number[] = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];
const FEES_KEPT_MS = 60_000;
/** A transaction's hex: Core's largest (4,000,000 weight units) is under 8 MB of it. */
const MAX_TX_BODY = '8mb';

export function mountEsploraNode(router: Router, deps: AppDeps): void {
  const fees = new LRUCache<ChainCode, Promise<Record<string, F64>>>({ max: 4, ttl: FEES_KEPT_MS });

  router.post('/tx', express.text({ type: () => true, limit: MAX_TX_BODY }), async (req, res) => {
    if (deps.settings.broadcast !== true)
      throw new EsploraError(
        403,
        `this server does not relay transactions: its operator turns it on with ${settingWithVariables('api.broadcast')}`,
      );
    const route = nodeRoute(deps, req);
    const hex = typeof req.body === 'string' ? req.body : '';
    let txid: unknown;
    try {
      txid = await route.views.node.call<unknown>('sendrawtransaction', [hex]);
    } catch (err) {
      // The node's refusal as electrs words it; a node that cannot answer is a 503 as on every route.
      if (err instanceof NodeError && err.details.rpcCode !== undefined)
        throw new EsploraError(
          400,
          `sendrawtransaction RPC error: ${JSON.stringify({ code: err.details.rpcCode, message: err.details.nodeMessage ?? '' })}`,
        );
      throw nodeFailure(route.chain, err, 'sendrawtransaction');
    }
    sendEsploraText(res, String(txid));
  });

  router.get('/mempool/txids', async (req, res) => {
    const route = nodeRoute(deps, req);
    try {
      sendEsploraJson(res, await route.views.node.call<string[]>('getrawmempool', []));
    } catch (err) {
      throw nodeFailure(route.chain, err, 'getrawmempool');
    }
  });

  router.get('/fee-estimates', async (req, res) => {
    const route = nodeRoute(deps, req);
    let pending = fees.get(route.chain);
    if (pending === undefined) {
      pending = estimates(route.views.node.call.bind(route.views.node)).catch((err: unknown) => {
        fees.delete(route.chain);
        throw nodeFailure(route.chain, err, 'estimatesmartfee');
      });
      fees.set(route.chain, pending);
    }
    sendEsploraJson(res, await pending);
  });
}

/** Each target's estimate in sat/vB; targets the node has no estimate for are left out, as electrs does. */
async function estimates(call: <T>(method: string, params: readonly unknown[]) => Promise<T>): Promise<Record<string, F64>> {
  const answers = await Promise.all(FEE_TARGETS.map((t) => call<{ feerate?: number; errors?: string[] }>('estimatesmartfee', [t])));
  const out: Record<string, F64> = {};
  answers.forEach((a, i) => {
    if (a.errors === undefined && typeof a.feerate === 'number' && a.feerate >= 0)
      out[String(FEE_TARGETS[i])] = new F64(a.feerate * 100_000);
  });
  return out;
}
