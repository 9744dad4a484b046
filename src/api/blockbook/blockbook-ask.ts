/**
 * What one Blockbook call is answered against, whichever door it came by (a REST request or a WebSocket
 * message): the chain's node route, where the answer's headers go, and how it pays for work beyond the
 * token its arrival took.
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps.js';
import type { HeaderSink } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { nodeRoute, type NodeRoute } from '../node-read.js';
import { extraCharge } from '../routes/tx.js';
import type { RateLimiter } from '../../serving/token-bucket.js';

export interface BlockbookAsk {
  readonly deps: AppDeps;
  readonly route: NodeRoute;
  readonly headers: HeaderSink;
  /** Takes `extra` tokens more from the caller's bucket; rejects with RATE_LIMITED when it cannot. */
  charge(extra: number): Promise<void>;
}

/** How the REST routes make their ask from a request (its chain, its response's headers, its caller's bucket). */
export type HttpAsking = (req: Request, res: Response) => BlockbookAsk;

export function httpAsking(deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): HttpAsking {
  const charge = extraCharge(limiter, deps.settings, metrics);
  return (req, res) => ({ deps, route: nodeRoute(deps, req), headers: res, charge: (extra) => charge(req, res, extra) });
}
