/**
 * First middleware of every request: a request id (the caller's X-Request-Id when it is short and plain,
 * else a new UUID) echoed in X-Request-Id, a child logger carrying it, and — when the response ends — one
 * log line and the request metrics, labelled by route template (never the raw path: it holds addresses).
 * Lines are sampled per status (log-sampler.ts; then a summary line per window): 4xx answers, which a
 * client can produce at will and in bulk, 20 per status per 10 s; others 1,000. So no flood of bad keys,
 * unknown routes or wrong methods can fill the disk; the request metrics still count every one.
 * api.requestLog narrows the lines to failed answers (`errors`) or none (`off`) before any sampling.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RequestLogMode } from '../../config.js';
import type { Tier } from '../../store/keys/tier.js';
import { unredacted, type Logger } from '../../logger.js';
import type { ApiMetrics } from '../metrics.js';
import { LogSampler } from '../../serving/log-sampler.js';

export interface RequestContext {
  readonly id: string;
  readonly log: Logger;
  /** Set by authentication: the tier whose limits apply, `none` before (or without) authentication. */
  tier: Tier | 'none';
  /** Key id (never the key) or null for anonymous callers. */
  keyId: string | null;
  /** Why authentication refused the request (missing, malformed, unknown, revoked, throttled), for the log line. */
  authFailure?: string;
  /** The wallet's fingerprint (wallet/fingerprint.ts) on xpub requests: what the log line says instead of the key. */
  wallet?: string;
}

/** Lines per status per sampling window: a client can produce 4xx answers at will and in bulk. */
const linesPerWindow = (status: string): number => (status.startsWith('4') ? 20 : 1000);

/**
 * Whether api.requestLog wants a line for this status. `errors` starts at 400: refusals and failures are
 * what an operator searches the log for; an aborted answer (a live client leaving its stream) is neither.
 */
function wantsLine(mode: RequestLogMode, status: number): boolean {
  return mode === 'all' || (mode === 'errors' && status >= 400);
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(incoming: unknown): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function context(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

/** Template of the matched route, or `unmatched` (404s, malformed URLs): bounded label values. */
export function routeTemplate(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : 'unmatched';
}

export function requestContext(
  logger: Logger,
  metrics: ApiMetrics,
  now: () => number = Date.now,
  mode: RequestLogMode = 'all',
): RequestHandler {
  const sampler = new LogSampler(linesPerWindow);
  // Every field of the request line is ours (route template, status, key id, wallet fingerprint; never a
  // header, never the raw path, which holds addresses and, on xpub routes, the extended key): no secret to redact.
  const requestLog = unredacted(logger);
  const shouldLog = (status: number): boolean => {
    const t = now();
    for (const s of sampler.due(t)) {
      logger.warn(
        { status: Number(s.kind), suppressed: s.suppressed, since: new Date(s.windowStart).toISOString() },
        `left out ${s.suppressed} request log lines with status ${s.kind}`,
      );
    }
    if (sampler.admit(String(status), t)) return true;
    metrics.logLinesSuppressed.inc({ status: String(status) });
    return false;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const ctx = new Context(requestId(req.headers['x-request-id']), logger);
    res.locals.ctx = ctx;
    res.setHeader('X-Request-Id', ctx.id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // 'close' follows every response (after 'finish' when it was sent whole): one listener for both.
    res.once('close', () => {
      const aborted = !res.writableFinished;
      const route = routeTemplate(req);
      const seconds = (performance.now() - started) / 1000;
      metrics.requests.inc({ route, status: aborted ? 'aborted' : String(res.statusCode), tier: ctx.tier });
      metrics.latency.observe({ route }, seconds);
      if (!wantsLine(mode, res.statusCode) || !shouldLog(res.statusCode)) return;
      requestLog.info(
        {
          reqId: ctx.id,
          method: req.method,
          route,
          status: res.statusCode,
          aborted,
          ms: Math.round(seconds * 1e4) / 10,
          keyId: ctx.keyId,
          tier: ctx.tier,
          ...(ctx.authFailure !== undefined && { authFailure: ctx.authFailure }),
          ...(ctx.wallet !== undefined && { wallet: ctx.wallet }),
        },
        'request',
      );
    });
    next();
  };
}

class Context implements RequestContext {
  tier: Tier | 'none' = 'none';
  keyId: string | null = null;
  authFailure?: string;
  wallet?: string;
  private child: Logger | null = null;

  constructor(
    readonly id: string,
    private readonly logger: Logger,
  ) {}

  /** Made on first use only: most requests log nothing but their one line. */
  get log(): Logger {
    return (this.child ??= this.logger.child({ reqId: this.id }));
  }
}
