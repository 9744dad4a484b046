/**
 * A key presented on a WebSocket (upgrade header or auth message), checked by the address route's own
 * key check (middleware/auth.ts): the same verifier, looked up first, then the same invalid-key throttle
 * per client network for a missing or wrong key only, the same metrics and errors. It runs on a
 * request-shaped stand-in, since there is no Express request.
 */
import type { Request, Response } from 'express';
import type { Tier } from '../../store/keys/tier.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import type { RequestContext } from '../middleware/request-context.js';
import type { RateLimiter } from '../../serving/token-bucket.js';

export interface Caller {
  readonly tier: Tier;
  /** null: anonymous (limited per client network). */
  readonly keyId: string | null;
}

export interface KeyCheckDeps {
  readonly deps: AppDeps;
  readonly limiter: RateLimiter;
  readonly metrics: ApiMetrics;
}

/** Resolves the caller of a presented key; rejects with the ServingError the HTTP routes answer (401, 429, 503). */
export async function checkKey(opts: KeyCheckDeps, presented: string, ip: string | undefined): Promise<Caller> {
  const { deps } = opts;
  // A key was presented: it must be right even where anonymous callers are served.
  const step = keyCheck(deps.keys, { ...deps.settings, allowAnonymous: false }, opts.limiter, opts.metrics);
  const ctx: Pick<RequestContext, 'tier' | 'keyId'> = { tier: 'none', keyId: null };
  const req = { headers: { 'x-api-key': presented }, ip } as unknown as Request;
  const res = { locals: { ctx }, setHeader: () => res } as unknown as Response;
  await step(req, res);
  if (ctx.tier === 'none') throw new Error('key check passed without a tier');
  return { tier: ctx.tier, keyId: ctx.keyId };
}
