/**
 * GET/HEAD /api/v1/{chain}/xpub/{key}/utxos (`?range=`, `?limit=`, `&cursor=`, `&mempool=true`): one page
 * of the unspent outputs of every script derived from an extended key or descriptor (indices 0 …
 * range-1 of every branch, as the wallet summary), merged oldest first; each item adds its `path` and
 * `address`. Mounted before the xpub router, whose `*key` would otherwise take the `/utxos` segment
 * (no descriptor or key ends in a segment `utxos`).
 *
 * Checks, in order: chain → API key → wallet input and page query → limits (the wallet's price, one token
 * per 200 derived scripts, plus the page's) → derivation (cached per wallet) → one read → answer. The
 * cursor is bound to the wallet's fingerprint and range. A page reads at most limit + 1 rows per derived
 * script: O(scripts × limit), whatever the wallet holds and however deep the page.
 *
 * Privacy as on the wallet summary: no message quotes the input; the log line names the fingerprint.
 */
import type { Express, Request, Response } from 'express';
import { scriptToAddress } from '../../chain/address.js';
import { WalletError } from '../../wallet/errors.js';
import { checkRange, scriptCount } from '../../wallet/derive.js';
import type { Descriptor } from '../../wallet/descriptor.js';
import { walletFingerprint } from '../../wallet/fingerprint.js';
import { parseWalletInput } from '../../wallet/wallet-input.js';
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
import { chainCheck, parseChain, unavailable } from './address.js';
import { DEFAULT_XPUB_MAX_RANGE, DEFAULT_XPUB_RANGE, SCRIPTS_PER_TOKEN, walletTokens } from './xpub.js';
import { parsePageQuery, readPage, UTXOS_PER_TOKEN, type PageQuery } from './utxos.js';

export const XPUB_UTXOS_ROUTE = '/api/v1/:chain/xpub/*key/utxos';

interface Listing {
  readonly desc: Descriptor;
  readonly fingerprint: string;
  readonly range: number;
  readonly scripts: number;
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
    const range = rangeParam(req);
    const input = (req.params.key as unknown as string[]).join('/');
    const desc = parseWalletInput(handle.params, input);
    checkRange(desc, { range, maxRange });
    const fingerprint = walletFingerprint(desc);
    context(res).wallet = fingerprint;
    const listing: Listing = { desc, fingerprint, range, scripts: scriptCount(desc, range), query: parsePageQuery(req) };
    res.locals.listing = listing;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof WalletError) throw new ApiError(err.code, err.message);
    throw new ApiError('MALFORMED_DESCRIPTOR', 'the key or descriptor could not be read');
  }
}

function answer(deps: AppDeps, cache: DerivationCache, req: Request, res: Response): void {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain)!;
  const { desc, fingerprint, range, query } = res.locals.listing as Listing;
  const maxRange = deps.settings.xpubMaxRange ?? DEFAULT_XPUB_MAX_RANGE;
  const { scripts: derived, keys } = cache.wallet(fingerprint, desc, { range, maxRange });
  const scope: CursorScope = {
    chain,
    network: handle.params.network,
    kind: 'wallet',
    id: `${fingerprint}|${range}`,
    mempool: query.mempool,
  };
  const { page, next } = readPage(deps, chain, handle, keys, scope, query, res);
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, {
    status: 'success',
    data: {
      chain,
      range,
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
  const price = limitCheck(
    limiter,
    deps.settings,
    metrics,
    (_req, res) => {
      const listing = res.locals.listing as Listing;
      return walletTokens(listing.scripts) + Math.ceil(listing.query.limit / UTXOS_PER_TOKEN);
    },
    (n) => `a wallet page of ${n} tokens (one per ${SCRIPTS_PER_TOKEN} derived scripts and per ${UTXOS_PER_TOKEN} outputs)`,
  );
  app
    .route(XPUB_UTXOS_ROUTE)
    .get(
      inSequence(
        chainCheck,
        keyCheck(deps.keys, deps.settings, limiter, metrics),
        (req: Request, res: Response) => parseListing(deps, req, res),
        price,
        (req: Request, res: Response) => answer(deps, derivations, req, res),
      ),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}
