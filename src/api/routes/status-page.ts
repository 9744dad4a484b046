/**
 * The status page: `/` (HTML), its script and style (src/api/status-page/, which `npm run build` copies
 * beside the compiled code), and `GET /status/events`, the Server-Sent Events it renders: `event: status`
 * frames of `{version, chains}` (the /ready rows of the chains served) at once, on every new tip, and
 * every STATUS_EVERY_MS (ages grow, the node moves). No key, like /ready: it names nothing secret — no
 * node URL, credential or key. A Content-Security-Policy lets the page load and connect to nothing but
 * this origin, so it works offline and nothing injected into it can call elsewhere.
 */
import { readFileSync } from 'node:fs';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { holdOpen, STREAM_HEADERS } from '../connection-guard.js';
import type { AppDeps } from '../deps.js';
import type { Clock } from '../../serving/clock.js';
import { clientNetwork } from '../../serving/caller-buckets.js';
import { ServingError } from '../../serving/errors.js';
import { methodNotAllowed, notFound } from '../errors.js';
import type { LiveHub } from '../live/hub.js';
import type { ApiMetrics } from '../metrics.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import { readiness } from './ops.js';

export const STATUS_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Status frames this often besides those of new tips. */
const STATUS_EVERY_MS = 5_000;
/**
 * Status streams one client network (an IPv4 address, an IPv6 /64) may hold open at once. A stream
 * stays open and busy for the connection guard, which never evicts it: without a cap, one keyless
 * client could hold every connection the API allows.
 */
export const STATUS_STREAMS_PER_NETWORK = 4;

const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/status-page/status.js': { file: 'status.js', type: 'text/javascript; charset=utf-8' },
  '/status-page/lookup-history.js': { file: 'lookup-history.js', type: 'text/javascript; charset=utf-8' },
  '/status-page/lookup-object.js': { file: 'lookup-object.js', type: 'text/javascript; charset=utf-8' },
  '/status-page/status.css': { file: 'status.css', type: 'text/css; charset=utf-8' },
  '/status-page/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

const ASSET_DIR = new URL('../status-page/', import.meta.url);

export function statusPageRouter(deps: AppDeps, metrics: ApiMetrics, clock: Clock, hub: LiveHub | undefined): Router {
  const router = Router({ caseSensitive: true });
  const cache = new Map<string, Buffer>();

  for (const [path, asset] of Object.entries(ASSETS)) {
    router
      .route(path)
      // Only the path itself: Express also routes `//` (a protocol-relative URL to a URL parser) here.
      .all((req: Request, _res: Response, next: NextFunction) => next(req.originalUrl.split(/[?#]/)[0] === path ? undefined : 'router'))
      .get((_req: Request, res: Response) => {
        let body = cache.get(asset.file);
        if (!body) {
          try {
            body = readFileSync(new URL(asset.file, ASSET_DIR));
          } catch {
            // A build that did not copy the page (tsc alone) serves the API without it.
            throw notFound();
          }
          cache.set(asset.file, body);
        }
        res.set({
          'Content-Type': asset.type,
          'Content-Length': String(body.length),
          'Content-Security-Policy': STATUS_PAGE_CSP,
          'Cache-Control': 'no-cache',
        });
        // end(), not send(): no conditional-request handling (send answers If-None-Match: * with 304).
        res.end(body);
      })
      .all((req: Request) => {
        throw methodNotAllowed(req.method);
      });
  }

  /** Open status streams per client network. */
  const streams = new Map<string, number>();
  const snapshot = async (): Promise<string> => {
    const chains = (await readiness(deps, metrics, clock)).filter((c) => c.configured);
    return `event: status\ndata: ${JSON.stringify({ version: PACKAGE_VERSION, chains })}\n\n`;
  };
  router
    .route('/status/events')
    .get((req: Request, res: Response) => {
      // HEAD asks for the stream's head only: a body is never sent to it, so nothing is held open.
      if (req.method === 'HEAD') return void res.status(200).set(STREAM_HEADERS).end();
      const network = clientNetwork(req.ip);
      const held = streams.get(network) ?? 0;
      if (held >= STATUS_STREAMS_PER_NETWORK) {
        throw new ServingError(
          'RATE_LIMITED',
          `at most ${STATUS_STREAMS_PER_NETWORK} status streams per client network at once; close one first`,
          undefined,
          { 'Retry-After': String(STATUS_EVERY_MS / 1000) },
        );
      }
      streams.set(network, held + 1);
      res.status(200).set(STREAM_HEADERS);
      holdOpen(res);
      // Frames go out one after another in the order asked for, each read after the one before it is written.
      let frames: Promise<void> = Promise.resolve();
      let closed = false;
      const send = (): void => {
        frames = frames
          .then(snapshot)
          .then((text) => {
            // Ended meanwhile (the hub closed, the client left): a write now would be a write after end.
            if (!closed && !res.writableEnded) res.write(text);
          })
          .catch((err: unknown) => deps.logger.warn({ err }, 'status page: a status frame failed'));
      };
      const timer = setInterval(send, STATUS_EVERY_MS);
      timer.unref();
      const stopTips = hub?.onTip(send) ?? (() => undefined);
      const stopClose = hub?.onClose(() => res.end()) ?? (() => undefined);
      res.once('close', () => {
        closed = true;
        const left = (streams.get(network) ?? 1) - 1;
        if (left > 0) streams.set(network, left);
        else streams.delete(network);
        clearInterval(timer);
        stopTips();
        stopClose();
      });
      send();
    })
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
  return router;
}
