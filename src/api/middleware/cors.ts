/**
 * CORS for the origins named in `api.corsOrigins` (ADDRSUM_CORS_ORIGINS), none by default.
 *
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method) from an allowed origin answers
 *   204 here, before keys and limits (browsers send preflights without credentials): the origin echoed,
 *   GET/HEAD/POST, the request headers we read (x-api-key, content-type, if-none-match, x-request-id).
 * - Any other OPTIONS, including a preflight from an origin not listed, falls through to the routes and
 *   gets today's 405 METHOD_NOT_ALLOWED without any Access-Control-* header: the browser then refuses.
 * - An actual request from an allowed origin carries Access-Control-Allow-Origin and exposes the
 *   headers a client reads (RateLimit-*, Retry-After, X-Request-Id, ETag).
 * `Vary: Origin` goes on every answer while any origin is allowed, so caches keep answers apart.
 * Hand-written rather than the `cors` package: that one answers every OPTIONS itself, which would
 * replace the 405 for origins not listed.
 */
import type { NextFunction, Request, Response } from 'express';

const ALLOW_METHODS = 'GET, HEAD, POST';
const ALLOW_HEADERS = 'x-api-key, content-type, if-none-match, x-request-id';
const EXPOSE_HEADERS = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id, ETag';
/** How long a browser may reuse a preflight answer. */
const MAX_AGE_SECONDS = '600';

export function cors(origins: readonly string[]): (req: Request, res: Response, next: NextFunction) => void {
  const allowed = new Set(origins);
  return (req, res, next) => {
    if (allowed.size === 0) return next();
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return next();
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': ALLOW_METHODS,
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Max-Age': MAX_AGE_SECONDS,
      });
      res.status(204).end();
      return;
    }
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS });
    next();
  };
}
