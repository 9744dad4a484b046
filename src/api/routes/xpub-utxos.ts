/**
 * GET/HEAD /api/v1/{chain}/xpub/{key}/utxos (`?range=`, `?limit=`, `&cursor=`, `&mempool=true`): one page
 * of the unspent outputs of every script derived from an extended key or descriptor (indices 0 …
 * range-1 of every branch, as the wallet summary), merged oldest first; each item adds its `path` and
 * `address`. Mounted before the xpub router, whose `*key` would otherwise take the `/utxos` segment
 * (no descriptor or key ends in a segment `utxos`).
 *
 * Checks, in order: chain → API key → a private key in the input → wallet input and page query → room
 * in the derivation queue → limits (the wallet's price, one token per 200 key derivations, plus the
 * page's) → derivation (cached per wallet, on the derivation pool's threads) → one read → answer. The
 * cursor is bound to the wallet's fingerprint and range. A page reads at most limit + 1 rows per derived
 * script: O(scripts × limit), whatever the wallet holds and however deep the page.
 *
 * Privacy as on the wallet summary: no message quotes the input; the log line names the fingerprint.
 */
import type { Express, Request, Response } from 'express';
import { scriptToAddress } from '../../chain/address.js';
import { WalletError } from '../../wallet/errors.js';
import { refusePrivateKeys } from '../../wallet/extended-key.js';
import type { AppDeps } from '../deps.js';
import { DerivationCache } from '../derivation-cache.js';
import { ApiError, methodNotAllowed } from '../errors.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { context } from '../middleware/request-context.js';
import { inSequence } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../token-bucket.js';
import type { CursorScope } from '../utxo-cursor.js';
import { utxoItem } from '../utxo-view.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { unavailable } from '../index-read.js';
import { DEFAULT_XPUB_MAX_RANGE, DEFAULT_XPUB_RANGE, refused, walletOf, walletTokens, WORK_PER_TOKEN } from '../wallet-request.js';
import { derivationCaller, derivedWallet } from './xpub.js';
import { parsePageQuery, readPage, UTXOS_PER_TOKEN, type PageQuery } from './utxos.js';

export const XPUB_UTXOS_ROUTE = '/api/v1/:chain/xpub/*key/utxos';

interface Listing {
  readonly wallet: ReturnType<typeof walletOf>;
  readonly query: PageQuery;
}

function rangeParam(req: Request): number {
  const at = req.originalUrl.indexOf('?');
  const values = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1)).getAll('range');
  if (values.length > 1) throw new ApiError('BAD_REQUEST', 'the range parameter is given more than once');
  const text = values[0];
  if (text === undefined) return DEFAULT_XPUB_RANGE;
  if (!/^\d{1,9}$/.test(text)) throw new WalletError('BAD_RANGE', 'range must be a whole number of at least 1');
  return Number(text);
}

/** The wallet and page asked for, parsed (not derived); never 5xx for what a caller sent. */
function parseListing(deps: AppDeps, req: Request, res: Response): void {
  const handle = deps.chains.get(parseChain(String(req.params.chain)));
  if (!handle) throw unavailable(parseChain(String(req.params.chain)), 'this service is not configured for it');
  const maxRange = deps.settings.xpubMaxRange ?? DEFAULT_XPUB_MAX_RANGE;
  try {
    const input = (req.params.key as unknown as string[]).join('/');
    // A private key is refused before anything else is judged, so no other error can hide it.
    refusePrivateKeys(input);
    const wallet = walletOf(handle, input, rangeParam(req), maxRange);
    context(res).wallet = wallet.fingerprint;
    const listing: Listing = { wallet, query: parsePageQuery(req) };
    res.locals.listing = listing;
  } catch (err) {
    throw refused(err);
  }
}

async function answer(deps: AppDeps, limiter: RateLimiter, cache: DerivationCache, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain)!;
  const { wallet, query } = res.locals.listing as Listing;
  const { scripts: derived, keys } = await derivedWallet(limiter, cache, req, res, wallet);
  const scope: CursorScope = {
    chain,
    network: handle.params.network,
    kind: 'wallet',
    id: `${wallet.fingerprint}|${wallet.range}`,
    mempool: query.mempool,
  };
  const { page, next } = await readPage(deps, chain, handle, keys, scope, query, res);
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      range: wallet.range,
      utxos: page.rows.map((row) => {
        const d = derived[row.script]!;
        return { ...utxoItem(row, query.mempool), path: d.path, address: scriptToAddress(handle.params, d.script) };
      }),
      next,
      blockHeight: page.tipHeight,
      blockHash: Buffer.from(page.tipHash).reverse().toString('hex'),
    },
  });
}

export function mountXpubUtxosRoute(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics, cache?: DerivationCache): void {
  const derivations = cache ?? new DerivationCache();
  const room = (req: Request, res: Response): void => {
    const { wallet } = res.locals.listing as Listing;
    const refusal = derivations.admit(derivationCaller(req, res), wallet.fingerprint, wallet);
    if (refusal) throw refusal;
  };
  const price = limitCheck(
    limiter,
    deps.settings,
    metrics,
    (_req, res) => {
      const listing = res.locals.listing as Listing;
      return walletTokens(listing.wallet.work) + Math.ceil(listing.query.limit / UTXOS_PER_TOKEN);
    },
    (n) => `a wallet page of ${n} tokens (one per ${WORK_PER_TOKEN} key derivations and per ${UTXOS_PER_TOKEN} outputs)`,
    true,
  );
  app
    .route(XPUB_UTXOS_ROUTE)
    .get(
      inSequence(
        chainCheck,
        keyCheck(deps.keys, deps.settings, limiter, metrics),
        (req: Request, res: Response) => parseListing(deps, req, res),
        room,
        price,
        (req: Request, res: Response) => answer(deps, limiter, derivations, req, res),
      ),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}
