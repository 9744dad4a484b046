/**
 * A one-script summary route, mounted and answered one way for the address and the scripthash route,
 * so that both check in the same order and cache alike.
 */
import type { Express, Request, Response } from 'express';
import { chainCheck } from '../chain-param.js';
import type { AppDeps } from '../deps.js';
import { methodNotAllowed } from '../errors.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { inSequence } from '../middleware/step.js';
import { sendJson } from '../respond.js';
import type { RateLimiter } from '../../serving/token-bucket.js';

/** Sends a one-script summary with its ETag, or a 304 when the client holds it already. */
export function sendSummary(req: Request, res: Response, etag: string, body: () => object): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'no-cache');
  // Express's freshness check, only when the client has a validator to compare (most requests do not).
  if (req.headers['if-none-match'] !== undefined && req.fresh) {
    res.status(304).end();
    return;
  }
  sendJson(res, 200, body());
}

/**
 * Mounts a one-script summary route (GET/HEAD; chain → key → limits → `answer`; other methods 405) on
 * the app itself, not through a Router of its own: the address route takes nearly every request, and
 * each nesting level and handler hop in Express costs. The app routes case-sensitively (app.ts).
 */
export function mountSummaryRoute(
  app: Express,
  route: string,
  deps: AppDeps,
  limiter: RateLimiter,
  metrics: ApiMetrics,
  answer: (deps: AppDeps, req: Request, res: Response) => Promise<void>,
): void {
  app
    .route(route)
    .get(
      inSequence(
        chainCheck,
        keyCheck(deps.keys, deps.settings, limiter, metrics),
        limitCheck(limiter, deps.settings, metrics),
        (req: Request, res: Response) => answer(deps, req, res),
      ),
    )
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}
