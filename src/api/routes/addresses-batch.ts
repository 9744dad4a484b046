/**
 * POST /api/v1/{chain}/addresses  {"addresses": ["…", …]}  (optionally `?mempool=true`).
 *
 * Checks, in order: route → method (POST only; 405 with `Allow: POST`) → chain → key → body (JSON, size
 * cap, shape) → limits (one token per address; a malformed body costs one) → index state → one read.
 * Answers one entry per input, in input order, duplicates included: each entry is exactly the body the
 * single address route gives for that address — a summary, or its `fail` body (INVALID_ADDRESS,
 * WRONG_NETWORK, WRONG_CHAIN, UNSUPPORTED_ADDRESS) — and every summary comes from the same snapshot, so
 * the whole answer names one blockHeight.
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { ApiMetrics } from '../metrics.js';
import { checkAddress } from '../../serving/address-param.js';
import { failBody, mempoolRequested, summaryBody } from '../address-view.js';
import type { AppDeps } from '../deps.js';
import { ServingError, quote } from '../../serving/errors.js';
import { authenticate } from '../middleware/auth.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { asMiddleware } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { checkAnswering, readIndex, unavailable } from '../index-read.js';

export const BATCH_ROUTE = '/api/v1/:chain/addresses';
export const DEFAULT_BATCH_MAX = 100;
/** Longest address we answer anything but INVALID_ADDRESS for is 200 characters; leave room for JSON escapes and spacing. */
const BYTES_PER_ADDRESS = 512;
const MIN_BODY_BYTES = 64 * 1024;

export function batchBodyLimit(maxAddresses: number): number {
  return Math.max(MIN_BODY_BYTES, maxAddresses * BYTES_PER_ADDRESS);
}

type Parsed = { readonly ok: true; readonly addresses: string[] } | { readonly ok: false; readonly error: ServingError };

/** The body as a list of addresses, or why not (kept for after the limiter, which charges one token for it). */
export function parseBatch(body: unknown, maxAddresses: number): Parsed {
  const fail = (message: string): Parsed => ({ ok: false, error: new ServingError('INVALID_BATCH', message) });
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail('the body must be a JSON object: {"addresses": ["…", …]}');
  const extra = Object.keys(body).filter((k) => k !== 'addresses');
  if (extra.length > 0)
    return fail(`unknown member ${quote(extra[0]!, 20)}; the body is {"addresses": [...]} (ask for the mempool with ?mempool=true)`);
  const list = (body as { addresses?: unknown }).addresses;
  if (!Array.isArray(list)) return fail('"addresses" must be an array of address strings');
  if (list.length === 0 || list.length > maxAddresses)
    return fail(`"addresses" must hold 1 to ${maxAddresses} addresses, not ${list.length}`);
  const bad = list.findIndex((a) => typeof a !== 'string');
  if (bad >= 0) return fail(`addresses[${bad}] is not a string`);
  return { ok: true, addresses: list as string[] };
}

function bodyError(err: unknown, limit: number): ServingError {
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new ServingError('BODY_TOO_LARGE', `the body is larger than ${limit} bytes`);
  return new ServingError('INVALID_JSON', 'the body is not valid JSON (UTF-8): {"addresses": ["…", …]}');
}

function queryError(req: Request): Parsed | null {
  try {
    mempoolRequested(req);
    return null;
  } catch (err) {
    if (err instanceof ServingError) return { ok: false, error: err };
    throw err;
  }
}

async function answer(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const parsed = res.locals.batch as Parsed;
  if (!parsed.ok) throw parsed.error;
  const mempool = mempoolRequested(req);
  const checked = parsed.addresses.map((a) => checkAddress(handle, a));
  const scripts = checked.flatMap((c) => (c.ok ? [c.script] : []));
  const views = await readIndex(chain, handle, (source) => source.views(scripts, mempool));
  checkAnswering(deps, chain, views, res);
  let next = 0;
  const results = checked.map((c, i) => {
    if (!c.ok) return failBody(c.error);
    const view = views.items[next++];
    if (!view) throw new Error('the index answered fewer scripts than asked');
    return summaryBody(chain, handle, parsed.addresses[i]!, c.script, view, views.tipHeight, views.tipHash);
  });
  // An answer about many addresses and this moment's mempool: revalidation would cost a full read anyway.
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 200, { status: 'success', data: { chain, blockHeight: views.tipHeight, blockHash: views.tipHash, results } });
}

export function batchRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): Router {
  const max = deps.settings.batchMaxAddresses ?? DEFAULT_BATCH_MAX;
  const limit = batchBodyLimit(max);
  // Any content type is read as JSON (curl -d sends form encoding by default); any JSON value parses, and parseBatch says what shape it must have.
  const json = express.json({ limit, type: () => true, strict: false });
  const router = Router({ caseSensitive: true });
  router
    .route(BATCH_ROUTE)
    .post(
      asMiddleware(chainCheck),
      authenticate(deps.keys, deps.settings, limiter, metrics),
      (req: Request, res: Response, next: NextFunction) => {
        json(req, res, (err?: unknown) => {
          // A bad ?mempool= makes the whole request malformed: it costs one token, not one per address.
          res.locals.batch =
            queryError(req) ??
            (err === undefined ? parseBatch(req.body, max) : ({ ok: false, error: bodyError(err, limit) } satisfies Parsed));
          next();
        });
      },
      rateLimit(limiter, deps.settings, metrics, (_req, res) => {
        const parsed = res.locals.batch as Parsed;
        return parsed.ok ? parsed.addresses.length : 1;
      }),
      (req: Request, res: Response) => answer(deps, req, res),
    )
    .all((req: Request) => {
      throw new ServingError('METHOD_NOT_ALLOWED', `method ${quote(req.method, 20)} is not allowed here; use POST`, undefined, {
        Allow: 'POST',
      });
    });
  return router;
}
