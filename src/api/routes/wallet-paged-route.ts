/**
 * The wallet paged routes (…/xpub/{key}/X: the UTXO listing, the history), mounted one way: GET/HEAD
 * with chain → API key → a private key in the input → wallet input (`?range=`) and page query → room in
 * the derivation queue → limits (the wallet's price, one token per 200 key derivations, plus the page's)
 * → derivation (cached per wallet, on the derivation pool's threads) → the route's answer. Other methods
 * 405. Mounted before the xpub router, whose `*key` would otherwise take the last segment (no descriptor
 * or key ends in a segment `utxos` or `transactions`).
 *
 * A route may also have a POST form (…/xpub/X): the key, and optionally the range, in the wallet
 * summary's JSON body (routes/xpub.ts readWalletBody), the page's query in the URL; the same checks
 * after the body is read. It keeps the key out of URLs and proxy logs.
 *
 * Privacy as on the wallet summary: no message quotes the input; the log line names the fingerprint.
 */
import type { Express, Request, Response } from 'express';
import type { ChainCode } from '../../chain/params.js';
import { WalletError } from '../../wallet/errors.js';
import { refusePrivateKeys } from '../../wallet/extended-key.js';
import { chainCheck, parseChain } from '../chain-param.js';
import type { AppDeps } from '../deps.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import type { DerivationCache } from '../derivation-cache.js';
import type { DerivedWallet } from '../derivation-job.js';
import { ServingError, quote } from '../../serving/errors.js';
import { methodNotAllowed } from '../errors.js';
import { unavailable } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { context } from '../middleware/request-context.js';
import { inSequence } from '../middleware/step.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { DEFAULT_XPUB_MAX_RANGE, refused, walletOf, walletTokens, WORK_PER_TOKEN } from '../wallet-request.js';
import { derivationCaller, derivedWallet, readWalletBody } from './xpub.js';

export type WalletInput = ReturnType<typeof walletOf>;

/** What a wallet page's answer gets: the wallet asked for, derived, and its page query. */
export interface WalletPage<Q> {
  readonly chain: ChainCode;
  readonly handle: ChainHandle;
  readonly wallet: WalletInput;
  readonly derived: DerivedWallet;
  readonly query: Q;
}

export interface WalletPagedRoute<Q> {
  readonly route: string;
  /** The POST form's path (the key in the body); absent: GET only. */
  readonly postRoute?: string;
  /** The page's query (`?limit=`, `&cursor=`, …), parsed before anything is derived. */
  readonly parseQuery: (req: Request) => Q;
  /** Tokens the page costs on top of the wallet's. */
  readonly pageTokens: (query: Q) => number;
  /** What one token of the page buys, for the 429 message: `per 200 outputs`. */
  readonly perTokens: string;
  readonly answer: (page: WalletPage<Q>, res: Response) => Promise<void>;
}

interface Parsed<Q> {
  readonly wallet: WalletInput;
  readonly query: Q;
}

/** `?range=` as given (walletOf reads it), null when absent; BAD_REQUEST when given twice. */
function queryRange(req: Request): string | null {
  const at = req.originalUrl.indexOf('?');
  const values = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1)).getAll('range');
  if (values.length > 1) throw new ServingError('BAD_REQUEST', 'the range parameter is given more than once');
  return values[0] ?? null;
}

/** A cursor scope's id for a wallet page: its fingerprint and range (the same key at another range lists other scripts). */
export const walletScopeId = (wallet: WalletInput): string => `${wallet.fingerprint}|${wallet.range}`;

export function mountWalletPagedRoute<Q>(
  app: Express,
  deps: AppDeps,
  limiter: RateLimiter,
  metrics: ApiMetrics,
  cache: DerivationCache,
  route: WalletPagedRoute<Q>,
): void {
  const parsed = (res: Response): Parsed<Q> => res.locals.walletPage as Parsed<Q>;
  // The wallet and page asked for, parsed (not derived); never 5xx for what a caller sent.
  const parse = (req: Request, res: Response, input: unknown, range: () => unknown): void => {
    const chain = parseChain(String(req.params.chain));
    const handle = deps.chains.get(chain);
    if (!handle) throw unavailable(chain, 'this service is not configured for it');
    try {
      // A private key is refused before anything else is judged (the range too), so no other error can hide it.
      if (typeof input === 'string') refusePrivateKeys(input);
      const wallet = walletOf(handle, input, range(), deps.settings.xpubMaxRange ?? DEFAULT_XPUB_MAX_RANGE);
      context(res).wallet = wallet.fingerprint;
      res.locals.walletPage = { wallet, query: route.parseQuery(req) } satisfies Parsed<Q>;
    } catch (err) {
      throw refused(err);
    }
  };
  const fromPath = (req: Request, res: Response): void =>
    parse(req, res, (req.params.key as unknown as string[]).join('/'), () => queryRange(req));
  const fromBody = async (req: Request, res: Response): Promise<void> => {
    const body = await readWalletBody(req, res);
    if (body instanceof ServingError) throw body;
    parse(req, res, body.key, () => {
      const inQuery = queryRange(req);
      if (inQuery !== null && body.range !== undefined)
        throw new WalletError('BAD_RANGE', 'range is given both in the body and in the query');
      return body.range ?? inQuery;
    });
  };
  const room = (req: Request, res: Response): void => {
    const { wallet } = parsed(res);
    const refusal = cache.admit(derivationCaller(req, res), wallet.fingerprint, wallet);
    if (refusal) throw refusal;
  };
  const price = limitCheck(
    limiter,
    deps.settings,
    metrics,
    (_req, res) => walletTokens(parsed(res).wallet.work) + route.pageTokens(parsed(res).query),
    (n) => `a wallet page of ${n} tokens (one per ${WORK_PER_TOKEN} key derivations and ${route.perTokens})`,
    true,
  );
  const answer = async (req: Request, res: Response): Promise<void> => {
    const chain = parseChain(String(req.params.chain));
    const { wallet, query } = parsed(res);
    const derived = await derivedWallet(limiter, cache, req, res, wallet);
    await route.answer({ chain, handle: deps.chains.get(chain)!, wallet, derived, query }, res);
  };
  const checked = (read: (req: Request, res: Response) => void | Promise<void>) =>
    inSequence(chainCheck, keyCheck(deps.keys, deps.settings, limiter, metrics), read, room, price, answer);
  app
    .route(route.route)
    .get(checked(fromPath))
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
  if (route.postRoute === undefined) return;
  app
    .route(route.postRoute)
    .post(checked(fromBody))
    .all((req: Request) => {
      throw new ServingError('METHOD_NOT_ALLOWED', `method ${quote(req.method, 20)} is not allowed here; use POST`, undefined, {
        Allow: 'POST',
      });
    });
}
