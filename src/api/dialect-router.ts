/**
 * The router every HTTP dialect (Esplora, Blockbook) is mounted on. Their clients send no key, so
 * turning a dialect on is the operator's consent to anonymous use: a request without x-api-key is served
 * at the `default` tier, limited per client network; one with a key gets its key's tier (a wrong key is
 * refused as on the native routes). Each request: chain → key → limits (one token) → its route.
 */
import express, { type Router } from 'express';
import { chainCheck } from './chain-param.js';
import type { AppDeps } from './deps.js';
import type { ApiMetrics } from './metrics.js';
import { keyCheck } from './middleware/auth.js';
import { limitCheck } from './middleware/rate-limit.js';
import { asMiddleware, inSequence } from './middleware/step.js';
import type { RateLimiter } from '../serving/token-bucket.js';

/** A router whose paths are matched exactly (case, trailing slash), behind the checks above. */
export function dialectRouter(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): Router {
  const router = express.Router({ mergeParams: true, caseSensitive: true, strict: true });
  const anonymousToo = { ...deps.settings, allowAnonymous: true };
  router.use(
    asMiddleware(inSequence(chainCheck, keyCheck(deps.keys, anonymousToo, limiter, metrics), limitCheck(limiter, anonymousToo, metrics))),
  );
  return router;
}
