/**
 * GET/HEAD /api/v1/{chain}/xpub/{key}/utxos (`?range=`, `?limit=`, `&cursor=`, `&mempool=true`): one page
 * of the unspent outputs of every script derived from an extended key or descriptor (indices 0 …
 * range-1 of every branch, as the wallet summary), merged oldest first; each item adds its `path` and
 * `address`. Checks, pricing and derivation as every wallet page (wallet-paged-route.ts), then one read.
 * The cursor is bound to the wallet's fingerprint and range. A page reads at most limit + 1 rows per
 * derived script: O(scripts × limit), whatever the wallet holds and however deep the page.
 */
import type { Express, Response } from 'express';
import { scriptToAddress } from '../../chain/address.js';
import type { AppDeps } from '../deps.js';
import { DerivationCache } from '../derivation-cache.js';
import type { ApiMetrics } from '../metrics.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { CursorScope } from '../utxo-cursor.js';
import { utxoItem } from '../utxo-view.js';
import { parsePageQuery, readPage, UTXOS_PER_TOKEN, type PageQuery } from './utxos.js';
import { mountWalletPagedRoute, walletScopeId, type WalletPage } from './wallet-paged-route.js';

export const XPUB_UTXOS_ROUTE = '/api/v1/:chain/xpub/*key/utxos';

async function answer(deps: AppDeps, p: WalletPage<PageQuery>, res: Response): Promise<void> {
  const { chain, handle, wallet, query } = p;
  const scope: CursorScope = { chain, network: handle.params.network, kind: 'wallet', id: walletScopeId(wallet), mempool: query.mempool };
  const { page, next } = await readPage(deps, chain, handle, p.derived.keys, scope, query, res);
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      range: wallet.range,
      utxos: page.rows.map((row) => {
        const d = p.derived.scripts[row.script]!;
        return { ...utxoItem(row, query.mempool), path: d.path, address: scriptToAddress(handle.params, d.script) };
      }),
      next,
      blockHeight: page.tipHeight,
      blockHash: Buffer.from(page.tipHash).reverse().toString('hex'),
    },
  });
}

export function mountXpubUtxosRoute(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics, cache?: DerivationCache): void {
  mountWalletPagedRoute(app, deps, limiter, metrics, cache ?? new DerivationCache(), {
    route: XPUB_UTXOS_ROUTE,
    parseQuery: parsePageQuery,
    pageTokens: (query) => Math.ceil(query.limit / UTXOS_PER_TOKEN),
    perTokens: `per ${UTXOS_PER_TOKEN} outputs`,
    answer: (page, res) => answer(deps, page, res),
  });
}
