/**
 * GET /api/v1/{chain}/address/{address}/events: Server-Sent Events of the address's summary.
 *
 * The same checks as the GET route, in the same order (chain, key, limits, address, index state), answer
 * before the stream starts, with the same JSend errors (401 without a key where one is required). Then
 * `event: summary` frames whose `data` is the GET route's body `data`, each with `id:` = the change-feed
 * position it is true at. A client that reconnects with Last-Event-ID gets no first frame when the feed
 * shows its script untouched since then; otherwise the current summary at once. A client that does not
 * read (its unsent bytes pass api.live.maxBufferedBytes) is disconnected.
 */
import { stringifyWithCoins } from '../../chain/amount.js';
import type { Express, Request, Response } from 'express';
import { holdOpen, STREAM_HEADERS } from '../connection-guard.js';
import type { AppDeps } from '../deps.js';
import { ServingError } from '../../serving/errors.js';
import { methodNotAllowed } from '../errors.js';
import { checkAddress } from '../../serving/address-param.js';
import { mempoolRequested } from '../address-view.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { context } from '../middleware/request-context.js';
import { inSequence } from '../middleware/step.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { unavailable } from '../index-read.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { LiveHub, Subscriber } from './hub.js';
import { subscriptionOwner, type LiveLimits } from './limits.js';
import { watchOf } from './watch.js';
import type { Watch } from './summaries.js';

export const EVENTS_ROUTE = '/api/v1/:chain/address/:address/events';

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 30_000;

async function open(deps: AppDeps, hub: LiveHub, limits: LiveLimits, req: Request, res: Response): Promise<void> {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const address = String(req.params.address);
  const checked = checkAddress(handle, address);
  if (!checked.ok) throw checked.error;
  const watch = watchOf(chain, address, checked.script, mempoolRequested(req));
  // HEAD asks for the stream's head only: a body is never sent to it, so nothing is held open.
  if (req.method === 'HEAD') return void res.status(200).set(STREAM_HEADERS).end();
  const ctx = context(res);
  const tier = ctx.tier === 'none' ? 'default' : ctx.tier;
  const owner = subscriptionOwner(ctx.keyId, req.ip);
  const lastId = Number(req.headers['last-event-id']);
  // The reads below wait: a client gone meanwhile must not leave a subscriber behind.
  let gone = false;
  res.once('close', () => (gone = true));
  await hub.attach(chain, async (seq) => {
    const [summary] = await hub.current(chain, [watch]);
    const resumed = Number.isSafeInteger(lastId) && lastId >= 0 && !(await hub.changedSince(chain, lastId, watch.keys[0]!));
    if (gone) return;
    if (!hub.reserve(owner, 1, limits.perKey[tier])) {
      throw new ServingError('TOO_MANY_SUBSCRIPTIONS', `more than ${limits.perKey[tier]} live subscriptions for this key or client`);
    }
    const frame = startStream(hub, limits, res, owner, watch, summary!.fingerprint);
    frame(resumed ? `: resumed at ${lastId}\n\n` : `id: ${seq}\nevent: summary\ndata: ${stringifyWithCoins(summary!.data)}\n\n`);
  });
}

/** Holds the response open as the watch's stream until the client leaves; returns what writes a frame to it. */
function startStream(hub: LiveHub, limits: LiveLimits, res: Response, owner: string, watch: Watch, last: string): (text: string) => void {
  res.status(200).set(STREAM_HEADERS);
  holdOpen(res);
  let closed = false;
  const frame = (text: string): void => {
    if (closed) return;
    res.write(text);
    if (res.writableLength > limits.maxBufferedBytes) res.destroy();
  };
  const sub: Subscriber = {
    watch,
    last,
    push: (s, at) => frame(`id: ${at}\nevent: summary\ndata: ${stringifyWithCoins(s.data)}\n\n`),
    close: () => res.end(),
  };
  const keepalive = setInterval(() => frame(': keep-alive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  res.once('close', () => {
    closed = true;
    clearInterval(keepalive);
    hub.remove(sub);
    hub.release(owner, 1);
  });
  hub.add(sub);
  return frame;
}

export function mountEventsRoute(
  app: Express,
  deps: AppDeps,
  limiter: RateLimiter,
  metrics: ApiMetrics,
  hub: LiveHub,
  limits: LiveLimits,
): void {
  app
    .route(EVENTS_ROUTE)
    .get(
      inSequence(
        chainCheck,
        keyCheck(deps.keys, deps.settings, limiter, metrics),
        limitCheck(limiter, deps.settings, metrics),
        (req: Request, res: Response) => open(deps, hub, limits, req, res),
      ),
    )
    // Other methods answer 405, as on the address route and /status/events.
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}
