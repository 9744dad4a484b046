/**
 * createApp(deps): the Express application, without listening (main.ts and tests do that). All
 * collaborators come in through AppDeps, so tests build apps from fakes and many apps can coexist.
 */
import express, { type Express } from 'express';
import { createApiMetrics, derivationMetrics } from './metrics.js';
import { systemClock } from '../serving/clock.js';
import { type AppDeps } from './deps.js';
import { cors } from './middleware/cors.js';
import { errorHandler, unmatched } from './middleware/error-handler.js';
import { rejectMalformedUrl } from './middleware/malformed-url.js';
import { requestContext } from './middleware/request-context.js';
import { mountAddressRoute } from './routes/address.js';
import { batchRouter } from './routes/addresses-batch.js';
import { opsRouter } from './routes/ops.js';
import { statusPageRouter } from './routes/status-page.js';
import { mountScripthashRoute } from './routes/scripthash.js';
import { mountUtxoRoutes } from './routes/utxos.js';
import { mountTransactionRoutes } from './routes/transactions.js';
import { mountTxRoutes } from './routes/tx.js';
import { mountBlockRoutes } from './routes/blocks.js';
import { mountXpubUtxosRoute } from './routes/xpub-utxos.js';
import { mountXpubTransactionsRoute } from './routes/xpub-transactions.js';
import { xpubRouter } from './routes/xpub.js';
import { TokenBucketLimiter } from '../serving/token-bucket.js';
import { DerivationCache } from './derivation-cache.js';
import type { LiveHub } from './live/hub.js';
import type { LiveLimits } from './live/limits.js';
import { mountEventsRoute } from './live/sse-route.js';
import { BLOCKBOOK_BASE, blockbookRouter } from './blockbook/blockbook-router.js';
import { ESPLORA_BASE, esploraRouter } from './esplora/esplora-router.js';

/** Live pushes (src/api/live/): absent, the events route is not mounted. */
export interface LiveWiring {
  readonly hub: LiveHub;
  readonly limits: LiveLimits;
}

export function createApp(deps: AppDeps, live?: LiveWiring): Express {
  const clock = deps.clock ?? systemClock;
  const metrics = deps.metrics ?? createApiMetrics();
  const limiter = deps.limiter ?? new TokenBucketLimiter(() => clock.now());
  const logger = deps.logger.child({ component: 'api' });
  // One cache for both wallet routes, so a wallet's summary and its pages derive it once.
  const derivations = deps.derivations ?? new DerivationCache();
  derivationMetrics(metrics.registry, derivations.pool);

  const app = express();
  app.disable('x-powered-by');
  // Our ETags are computed from the indexed tip, not from body bytes.
  app.set('etag', false);
  // The one query parameter (`mempool`, address-view.ts) is read where it is used: do not parse the rest.
  app.set('query parser', () => ({}));
  app.set('trust proxy', deps.settings.trustProxyHops > 0 ? deps.settings.trustProxyHops : false);
  // Paths are case-sensitive as documented; only the chain segment is case-insensitive (by parseChain).
  app.set('case sensitive routing', true);

  app.use(requestContext(logger, metrics, () => clock.now(), deps.settings.requestLog));
  app.use(rejectMalformedUrl);
  app.use(cors(deps.settings.corsOrigins ?? []));
  // The address route first: it takes nearly every request, and the paths of the others never overlap.
  mountAddressRoute(app, deps, limiter, metrics);
  mountScripthashRoute(app, deps, limiter, metrics);
  mountUtxoRoutes(app, deps, limiter, metrics);
  mountTransactionRoutes(app, deps, limiter, metrics);
  mountTxRoutes(app, deps, limiter, metrics);
  mountBlockRoutes(app, deps, limiter, metrics);
  mountXpubUtxosRoute(app, deps, limiter, metrics, derivations);
  mountXpubTransactionsRoute(app, deps, limiter, metrics, derivations);
  if (live) mountEventsRoute(app, deps, limiter, metrics, live.hub, live.limits);
  app.use(statusPageRouter(deps, metrics, clock, live?.hub));
  app.use(opsRouter(deps, metrics, clock));
  app.use(batchRouter(deps, limiter, metrics));
  app.use(xpubRouter(deps, limiter, metrics, derivations));
  if (deps.settings.esplora === true) app.use(ESPLORA_BASE, esploraRouter(deps, limiter, metrics));
  if (deps.settings.blockbook === true) app.use(BLOCKBOOK_BASE, blockbookRouter(deps, limiter, metrics));
  app.use(unmatched);
  app.use(errorHandler);
  return app;
}
