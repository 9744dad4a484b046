/**
 * GET/HEAD /api/v1/{chain}/xpub/{key}/transactions (`?range=`, `?limit=`, `&cursor=`, `&mempool=`), and
 * its POST form POST /api/v1/{chain}/xpub/transactions {"key": "…", "range": N} (the rest in the query):
 * one page of the history of every script derived from an extended key or descriptor (indices 0 …
 * range-1 of every branch, as the wallet summary), merged newest first (height descending, then position
 * in the block descending), each transaction once: its amounts summed over the wallet's scripts it
 * touched, and `addresses` naming those scripts in derivation order, each with its own amounts. With
 * `?mempool=true` the wallet's mempool transactions come first (`height: null`), in the per-script
 * route's order. Needs history kept: 404 HISTORY_DISABLED otherwise, 503 HISTORY_BUILDING while it is built.
 *
 * Checks, pricing and derivation as every wallet page (wallet-paged-route.ts; the page's tokens as the
 * per-script history's), the query as every history route's (transactions.ts), then one read: history's
 * state, the cursor's MAC, binding (the wallet's fingerprint, range and mempool flag) and tip, and the
 * entries, mempool ones included, in one snapshot. A page reads at most ⌈limit / 64⌉ + 2 history rows per derived script at any depth
 * (src/store/sqlite/history-page.ts), then one txid row and one block row per transaction.
 */
import type { Express, Response } from 'express';
import { Coins, Sats } from '../../chain/amount.js';
import { scriptToAddress } from '../../chain/address.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { HistoryPart } from '../../store/index-model.js';
import type { AppDeps } from '../deps.js';
import { DerivationCache } from '../derivation-cache.js';
import type { DerivedWallet } from '../derivation-job.js';
import { readIndex } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { checkCursor, type CursorScope } from '../utxo-cursor.js';
import { historyItem, historyView } from '../history-view.js';
import { parseHistoryQuery, servedPage, TXS_PER_TOKEN, type HistoryQuery } from './transactions.js';
import { mountWalletPagedRoute, walletScopeId, type WalletPage } from './wallet-paged-route.js';

export const XPUB_TXS_ROUTE = '/api/v1/:chain/xpub/*key/transactions';
export const XPUB_TXS_POST_ROUTE = '/api/v1/:chain/xpub/transactions';

/** A transaction of the wallet's page (`height` null: unconfirmed) with what it did to each of the wallet's scripts. */
interface WalletLine {
  readonly txid: Buffer;
  readonly height: number | null;
  readonly received: bigint;
  readonly sent: bigint;
  readonly parts: readonly HistoryPart[];
}

function walletItem(p: WalletPage<HistoryQuery>, derived: DerivedWallet, i: WalletLine): Record<string, unknown> {
  return {
    ...historyItem(i),
    addresses: i.parts.map((part) => {
      const d = derived.scripts[part.script]!;
      return {
        path: d.path,
        address: scriptToAddress(p.handle.params, d.script),
        receivedSatoshi: new Sats(part.received),
        received: new Coins(part.received),
        sentSatoshi: new Sats(part.sent),
        sent: new Coins(part.sent),
      };
    }),
  };
}

async function answer(deps: AppDeps, p: WalletPage<HistoryQuery>, res: Response): Promise<void> {
  const { chain, handle, wallet, derived, query } = p;
  const { mempool } = query;
  const scope: CursorScope = { chain, network: handle.params.network, kind: 'wallet-history', id: walletScopeId(wallet), mempool };
  const read = await readIndex(chain, handle, async (source) => {
    if (!source.walletHistoryPage) {
      const status = await source.status();
      return status && { ...status, page: null };
    }
    return source.walletHistoryPage({
      keys: derived.keys,
      after: query.cursor?.after ?? null,
      limit: query.limit,
      mempool,
      check: (ctx) => {
        if (query.cursor) checkCursor(query.cursor, ctx.secret, scope, { height: ctx.tipHeight, hash: ctx.tipHash });
      },
    });
  });
  const page = servedPage(deps, chain, read, res);
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      range: wallet.range,
      ...historyView(page, scope, (line) => walletItem(p, derived, line)),
      blockHeight: page.tipHeight,
      blockHash: toDisplayHex(page.tipHash),
    },
  });
}

export function mountXpubTransactionsRoute(
  app: Express,
  deps: AppDeps,
  limiter: RateLimiter,
  metrics: ApiMetrics,
  cache?: DerivationCache,
): void {
  mountWalletPagedRoute(app, deps, limiter, metrics, cache ?? new DerivationCache(), {
    route: XPUB_TXS_ROUTE,
    postRoute: XPUB_TXS_POST_ROUTE,
    parseQuery: parseHistoryQuery,
    pageTokens: (query) => Math.ceil(query.limit / TXS_PER_TOKEN),
    perTokens: `per ${TXS_PER_TOKEN} transactions`,
    answer: (page, res) => answer(deps, page, res),
  });
}
