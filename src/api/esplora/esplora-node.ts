/**
 * Esplora's routes the node answers: POST /tx and POST /txs/package (relayed only when api.broadcast is
 * on), the mempool (/mempool, /mempool/txids, /mempool/recent) and /fee-estimates (Core's
 * estimatesmartfee for electrs's targets, in sat/vB). What walks the whole mempool or asks the node many
 * times is kept a while and shared, as electrs keeps it, so a crowd of wallets asking costs the node one
 * reading: the mempool's figures a few seconds, the fee estimates (28 calls) a minute.
 */
import express, { type Router } from 'express';
import { LRUCache } from 'lru-cache';
import { fromDisplayHex } from '../../chain/hash.js';
import type { ChainCode } from '../../chain/params.js';
import { NodeError } from '../../node/node-client.js';
import { mempoolFees, type MempoolFee } from '../../serving/mempool-fees.js';
import { MAX_PACKAGE_TXS, nodeFailure, RPC_METHOD_NOT_FOUND } from '../../serving/node-answers.js';
import { settingWithVariables } from '../../setting-variables.js';
import type { AppDeps } from '../deps.js';
import { answeringIndex, nodeRoute, type NodeRoute } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { EsploraError, esploraUnmatched, sendEsploraJson, sendEsploraText } from './esplora-answers.js';
import { backlogValue, newestFirst, recentValue } from './esplora-backlog.js';
import { F64 } from './esplora-json.js';
import { rustF64 } from './esplora-parse.js';

/** The confirmation targets electrs asks estimatesmartfee for. */
export const FEE_TARGETS: readonly number[] = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];
const FEES_KEPT_MS = 60_000;
/** electrs refreshes its mempool's backlog figures every 10 s and lets /mempool/recent be kept 5 s. */
const BACKLOG_KEPT_MS = 10_000;
const RECENT_KEPT_MS = 5_000;
/** A transaction's hex: Core's largest (4,000,000 weight units) is under 8 MB of it. */
const MAX_TX_BODY = '8mb';
/** electrs's bounds on a package's transactions' hex length (their number: MAX_PACKAGE_TXS). */
const PACKAGE_TX_HEX = { min: 120, max: 800_000 };
const MAX_PACKAGE_BODY = '21mb';

/** One load per chain while it is kept, shared by every request meanwhile; a failed one is not kept. */
function keptPerChain<V>(ttl: number): (chain: ChainCode, load: () => Promise<V>) => Promise<V> {
  const kept = new LRUCache<ChainCode, Promise<V>>({ max: 4, ttl });
  return (chain, load) => {
    let pending = kept.get(chain);
    if (pending === undefined) {
      const loading = load();
      loading.catch(() => {
        if (kept.get(chain) === loading) kept.delete(chain);
      });
      kept.set(chain, (pending = loading));
    }
    return pending;
  };
}

async function readMempool(route: NodeRoute): Promise<MempoolFee[]> {
  try {
    return mempoolFees(await route.views.node.call<unknown>('getrawmempool', [true]));
  } catch (err) {
    throw nodeFailure(route.chain, err, 'getrawmempool');
  }
}

/** The node's refusal as electrs words it; a node that cannot answer is a 503 as on every route. */
function relayFailure(route: NodeRoute, err: unknown, method: string): Error {
  if (err instanceof NodeError && err.details.rpcCode !== undefined)
    return new EsploraError(
      400,
      `${method} RPC error: ${JSON.stringify({ code: err.details.rpcCode, message: err.details.nodeMessage ?? '' })}`,
    );
  return nodeFailure(route.chain, err, method);
}

function mustRelay(deps: AppDeps): void {
  if (deps.settings.broadcast !== true)
    throw new EsploraError(
      403,
      `this server does not relay transactions: its operator turns it on with ${settingWithVariables('api.broadcast')}`,
    );
}

function packageParam(req: express.Request, name: string): number | undefined {
  // electrs reads the query into a map: the last of a repeated parameter counts.
  const text = queryOf(req).getAll(name).at(-1);
  if (text === undefined) return undefined;
  const value = rustF64(text);
  if (value === null) throw new EsploraError(400, `Invalid ${name}`);
  return value;
}

/** The package's transactions, checked as electrs checks them before asking the node. */
function packageTxs(body: unknown): string[] {
  let txs: unknown;
  try {
    txs = JSON.parse(typeof body === 'string' ? body : '');
  } catch (err) {
    throw new EsploraError(400, `invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(txs) || txs.some((t) => typeof t !== 'string'))
    throw new EsploraError(400, 'invalid type: expected a sequence of transaction hex strings');
  if (txs.length > MAX_PACKAGE_TXS) throw new EsploraError(400, `Exceeded maximum of ${MAX_PACKAGE_TXS} transactions`);
  (txs as string[]).forEach((hex, i) => {
    if (hex.length < PACKAGE_TX_HEX.min || hex.length >= PACKAGE_TX_HEX.max)
      throw new EsploraError(400, `Invalid transaction size for item ${i}`);
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new EsploraError(400, `Invalid transaction hex for item ${i}`);
  });
  return txs as string[];
}

export function mountEsploraNode(router: Router, deps: AppDeps): void {
  const fees = keptPerChain<Record<string, F64>>(FEES_KEPT_MS);
  const backlogs = keptPerChain<unknown>(BACKLOG_KEPT_MS);
  const recents = keptPerChain<unknown>(RECENT_KEPT_MS);
  const anyText = (limit: string) => express.text({ type: () => true, limit });

  router.post('/tx', anyText(MAX_TX_BODY), async (req, res) => {
    mustRelay(deps);
    const route = nodeRoute(deps, req);
    const hex = typeof req.body === 'string' ? req.body : '';
    let txid: unknown;
    try {
      txid = await route.views.node.call<unknown>('sendrawtransaction', [hex]);
    } catch (err) {
      throw relayFailure(route, err, 'sendrawtransaction');
    }
    sendEsploraText(res, String(txid));
  });

  router.post('/txs/package', anyText(MAX_PACKAGE_BODY), async (req, res, next) => {
    mustRelay(deps);
    const route = nodeRoute(deps, req);
    const txs = packageTxs(req.body);
    const params = [txs, packageParam(req, 'maxfeerate'), packageParam(req, 'maxburnamount')];
    while (params.length > 1 && params.at(-1) === undefined) params.pop();
    let result: unknown;
    try {
      result = await route.views.node.call<unknown>(
        'submitpackage',
        params.map((p) => p ?? null),
      );
    } catch (err) {
      // A node without packages: the route is not there, which LDK reads as "relay them one by one".
      if (err instanceof NodeError && err.details.rpcCode === RPC_METHOD_NOT_FOUND) return esploraUnmatched(req, res, next);
      throw relayFailure(route, err, 'submitpackage');
    }
    sendEsploraJson(res, result);
  });

  router.get('/mempool', async (req, res) => {
    const route = nodeRoute(deps, req);
    sendEsploraJson(res, await backlogs(route.chain, async () => backlogValue(await readMempool(route))));
  });

  router.get('/mempool/recent', async (req, res) => {
    const route = nodeRoute(deps, req);
    const { index } = await answeringIndex(deps, route, res, true);
    const recent = await recents(route.chain, async () => {
      const shown = await Promise.all(
        newestFirst(await readMempool(route)).map(async (f) => {
          // Mined since the reading, it is still shown; gone from the node (replaced, evicted), not.
          const found = await route.views.txs.find(index, fromDisplayHex(f.txid));
          return found === null ? null : recentValue(found.tx, await route.views.txs.prevouts(index, found.tx));
        }),
      );
      return shown.filter((v) => v !== null);
    });
    sendEsploraJson(res, recent);
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
    const load = () =>
      estimates(route.views.node.call.bind(route.views.node)).catch((err: unknown) => {
        throw nodeFailure(route.chain, err, 'estimatesmartfee');
      });
    sendEsploraJson(res, await fees(route.chain, load));
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
