/**
 * GET /api/v1/{chain}/xpub/{key}  (`?range=N`, `?details=funded`, `?mempool=true`)
 * POST /api/v1/{chain}/xpub       {"key": "…", "range": N}  (the same query options; keeps the key out of URLs)
 *
 * `key` is an extended public key (both branches, script kind by prefix) or an output descriptor,
 * URL-encoded in the path. Checks, in order: chain → API key → a private key anywhere in the input
 * (refused before anything else is judged) → wallet input (parsed, not derived; a refused input costs
 * one token) → room in the derivation queue → limits (one token per WORK_PER_TOKEN key derivations,
 * charged before any derivation) → derivation (cached per wallet, on the derivation pool's threads) →
 * index state → one read of every script (the batch route's read) → answer.
 *
 * The range is explicit, as in `scantxoutset`: indices 0 … range-1 of every branch. The index holds
 * unspent outputs only, so it cannot tell an emptied address from a never-used one, and a gap limit
 * would silently miss coins.
 *
 * Privacy: no message quotes the input, and the request's log line carries the wallet's fingerprint
 * (ctx.wallet) and the route template, never the path.
 */
import express, { Router, type Request, type Response } from 'express';
import { WalletError } from '../../wallet/errors.js';
import { canonicalDescriptors, type Descriptor } from '../../wallet/descriptor.js';
import { refusePrivateKeys } from '../../wallet/extended-key.js';
import { mempoolRequested } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import { buckets } from '../../serving/caller-buckets.js';
import { working } from '../connection-guard.js';
import { DerivationCache } from '../derivation-cache.js';
import type { DerivedWallet } from '../derivation-job.js';
import { ServingError, memberName, quote } from '../../serving/errors.js';
import { methodNotAllowed } from '../errors.js';
import type { ApiMetrics } from '../metrics.js';
import { authenticate } from '../middleware/auth.js';
import { holdRefill, rateLimit, type Overdrawn } from '../middleware/rate-limit.js';
import { context } from '../middleware/request-context.js';
import { asMiddleware } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { DEFAULT_XPUB_MAX_RANGE, refused, walletOf, walletTokens, WORK_PER_TOKEN } from '../wallet-request.js';
import { walletBody } from '../wallet-view.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { checkAnswering, readIndex, unavailable } from '../index-read.js';

export const XPUB_GET_ROUTE = '/api/v1/:chain/xpub/*key';
export const XPUB_POST_ROUTE = '/api/v1/:chain/xpub';
/** A descriptor is at most 4096 characters (wallet/descriptor.ts); leave room for JSON. */
const BODY_LIMIT = 16 * 1024;
const json = express.json({ limit: BODY_LIMIT, type: () => true, strict: false });

interface Wallet {
  readonly desc: Descriptor;
  readonly input: string;
  readonly fingerprint: string;
  readonly range: number;
  readonly maxRange: number;
  readonly scripts: number;
  readonly work: number;
  readonly funded: boolean;
  readonly mempool: boolean;
}

type Parsed = { readonly ok: true; readonly wallet: Wallet } | { readonly ok: false; readonly error: ServingError };

function query(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
}

function oneValue(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  if (values.length > 1) throw new ServingError('BAD_REQUEST', `the ${name} parameter is given more than once`);
  return values[0] ?? null;
}

/** The request's wallet, parsed and priced but not derived; or why it is refused. */
function parseWallet(handle: ChainHandle, input: unknown, bodyRange: unknown, req: Request, maxRange: number): Parsed {
  try {
    // A private key is refused before anything else is judged, so no other error can hide it.
    if (typeof input === 'string') refusePrivateKeys(input);
    const params = query(req);
    const details = oneValue(params, 'details');
    if (details !== null && details !== 'funded') throw new ServingError('BAD_REQUEST', 'the details parameter must be funded');
    const mempool = mempoolRequested(req);
    const queryRange = oneValue(params, 'range');
    if (queryRange !== null && bodyRange !== undefined)
      throw new WalletError('BAD_RANGE', 'range is given both in the body and in the query');
    const wallet = walletOf(handle, input, bodyRange ?? queryRange, maxRange);
    return { ok: true, wallet: { ...wallet, funded: details === 'funded', mempool } };
  } catch (err) {
    return { ok: false, error: refused(err) };
  }
}

function handleOf(deps: AppDeps, req: Request): ChainHandle {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  return handle;
}

/** Parses the wallet into res.locals (answered after the limiter) and names it in the log line by its fingerprint. */
function keep(res: Response, parsed: Parsed): void {
  res.locals.wallet = parsed;
  if (parsed.ok) context(res).wallet = parsed.wallet.fingerprint;
}

function bodyError(err: unknown): ServingError {
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new ServingError('BODY_TOO_LARGE', `the body is larger than ${BODY_LIMIT} bytes`);
  return new ServingError('INVALID_JSON', 'the body is not valid JSON (UTF-8): {"key": "…", "range": N}');
}

function fromBody(body: unknown): { key: unknown; range: unknown } | ServingError {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return new ServingError('BAD_REQUEST', 'the body must be a JSON object: {"key": "…", "range": N}');
  }
  const extra = Object.keys(body).filter((k) => k !== 'key' && k !== 'range');
  // A key sent as a member's name is still a key: refused as one, and never echoed.
  for (const name of extra) refusePrivateKeys(name);
  if (extra.length > 0)
    return new ServingError('BAD_REQUEST', `unknown member ${memberName(extra[0]!)}; the body is {"key": "…", "range": N}`);
  const { key, range } = body as { key?: unknown; range?: unknown };
  return { key, range };
}

/**
 * A wallet POST's body, `{"key": "…", "range": N}`, or its refusal as a value (INVALID_JSON,
 * BODY_TOO_LARGE, BAD_REQUEST, or PRIVATE_KEY_REFUSED for a key sent as a member's name): the wallet
 * summary's and the wallet pages' POST forms read it alike.
 */
export function readWalletBody(req: Request, res: Response): Promise<{ key: unknown; range: unknown } | ServingError> {
  return new Promise((resolve) => {
    json(req, res, (err?: unknown) => {
      try {
        resolve(err === undefined ? fromBody(req.body) : bodyError(err));
      } catch (refusal) {
        resolve(refused(refusal));
      }
    });
  });
}

/** Whose turn a derivation takes in the pool: the key's, or the client network's of an anonymous caller. */
export function derivationCaller(req: Request, res: Response): string {
  const { keyId } = context(res);
  return keyId !== null ? buckets.key(keyId) : buckets.anonymous(req.ip);
}

function parsedWallet(res: Response): Wallet {
  const parsed = res.locals.wallet as Parsed;
  if (!parsed.ok) throw parsed.error;
  return parsed.wallet;
}

/** The wallet's scripts and keys from the cache or the derivation pool; a refusal as the route answers it. */
export async function derivedWallet(
  limiter: RateLimiter,
  cache: DerivationCache,
  req: Request,
  res: Response,
  wallet: Omit<Wallet, 'funded' | 'mempool'>,
): Promise<DerivedWallet> {
  const started = performance.now();
  // The derivation is the server's work: no request deadline while it runs, and no refill of an overdraw.
  const derived = await working(res, cache.wallet(derivationCaller(req, res), wallet.fingerprint, wallet)).catch((err: unknown) => {
    throw refused(err);
  });
  holdRefill(limiter, res.locals.overdrawn as Overdrawn | undefined, (performance.now() - started) / 1000);
  return derived;
}

async function answer(deps: AppDeps, limiter: RateLimiter, cache: DerivationCache, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = handleOf(deps, req);
  const { desc, range, funded, mempool, ...rest } = parsedWallet(res);
  const wallet = await derivedWallet(limiter, cache, req, res, { desc, range, ...rest });
  // With history, the wallet's txCount: distinct transactions across its scripts, read in the same snapshot.
  const views = await readIndex(chain, handle, (source) => source.keyViews(wallet.keys, mempool, { distinct: true }));
  checkAnswering(deps, chain, views, res);
  // An answer about many scripts (and maybe this moment's mempool): revalidation would cost a full read anyway.
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, walletBody(chain, handle, { range, descriptors: canonicalDescriptors(desc), funded }, wallet.scripts, views));
}

export function xpubRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics, cache = new DerivationCache()): Router {
  const maxRange = deps.settings.xpubMaxRange ?? DEFAULT_XPUB_MAX_RANGE;
  // Room in the derivation queue is checked before the price: a refusal for the server's load costs nothing.
  const room = asMiddleware((req, res) => {
    const parsed = res.locals.wallet as Parsed;
    if (!parsed.ok) return;
    const refusal = cache.admit(derivationCaller(req, res), parsed.wallet.fingerprint, parsed.wallet);
    if (refusal) throw refusal;
  });
  const price = rateLimit(
    limiter,
    deps.settings,
    metrics,
    (_req, res) => {
      const parsed = res.locals.wallet as Parsed;
      return parsed.ok ? walletTokens(parsed.wallet.work) : 1;
    },
    (n) => `a wallet request of ${n} tokens (one per ${WORK_PER_TOKEN} key derivations)`,
    true,
  );
  const router = Router({ caseSensitive: true });
  router
    .route(XPUB_GET_ROUTE)
    .get(
      asMiddleware(chainCheck),
      authenticate(deps.keys, deps.settings, limiter, metrics),
      asMiddleware((req, res) => {
        // `*key` collects the path's segments: an unencoded descriptor's `/` arrive split, an encoded one's whole.
        const segments = req.params.key as unknown as string[];
        keep(res, parseWallet(handleOf(deps, req), segments.join('/'), undefined, req, maxRange));
      }),
      room,
      price,
      (req: Request, res: Response) => answer(deps, limiter, cache, req, res),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
  router
    .route(XPUB_POST_ROUTE)
    .post(
      asMiddleware(chainCheck),
      authenticate(deps.keys, deps.settings, limiter, metrics),
      asMiddleware(async (req, res) => {
        const body = await readWalletBody(req, res);
        keep(
          res,
          body instanceof ServingError ? { ok: false, error: body } : parseWallet(handleOf(deps, req), body.key, body.range, req, maxRange),
        );
      }),
      room,
      price,
      (req: Request, res: Response) => answer(deps, limiter, cache, req, res),
    )
    .all((req: Request) => {
      throw new ServingError('METHOD_NOT_ALLOWED', `method ${quote(req.method, 20)} is not allowed here; use POST`, undefined, {
        Allow: 'POST',
      });
    });
  return router;
}
