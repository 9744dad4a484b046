/**
 * Operational endpoints: no key, no limits (monitoring must keep working while callers are throttled).
 *   /health        the process answers
 *   /ready         every configured chain answers and keyed requests can be served (200), or not
 *                  (503 NOT_READY), with per-chain heights and the problems
 *   /metrics       Prometheus text of this app's registry
 *   /openapi.json  the OpenAPI 3.1 description of every endpoint
 */
import { Router, type Request, type Response } from 'express';
import { CHAIN_CODES } from '../../chain/params.js';
import type { ApiMetrics } from '../metrics.js';
import { addressMatcher } from '../../net-ranges.js';
import { chainState, lagOf, type ChainState } from '../../serving/chain-state.js';
import type { AppDeps } from '../deps.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import type { Clock } from '../../serving/clock.js';
import { ServingError } from '../../serving/errors.js';
import { methodNotAllowed, notFound } from '../errors.js';
import { openApiDocument } from '../openapi.js';
import { sendError, sendJson } from '../respond.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import type { BootstrapProgress } from '../../store/index-model.js';

export interface ChainReadiness {
  chain: string;
  network: string;
  configured: boolean;
  ready: boolean;
  indexedHeight: number | null;
  /** The indexed tip's block hash. */
  indexedHash: string | null;
  /** Mempool transactions the index holds (null: unknown). */
  mempoolTxs: number | null;
  nodeHeight: number | null;
  lag: number | null;
  nodeSeenAt: string | null;
  /** Seconds since the indexer last heard from its node (null: unknown). */
  nodeSeenAgeSeconds: number | null;
  /** The tip block's header time and its age in seconds (null: unknown). */
  tipTime: string | null;
  tipAgeSeconds: number | null;
  /** Why the chain does not answer; absent when ready. */
  reason?: string;
  /** While a snapshot is being loaded (nothing indexed yet): its phase and coins read of the file's total. */
  bootstrap?: BootstrapProgress;
  /** Address history: kept, being built (historyBuiltHeight: how far), or off; absent while nothing is indexed. */
  history?: 'off' | 'building' | 'on';
  historyBuiltHeight?: number;
  /** The index is read from a streaming standby: how far its replay is behind what it received (seconds). */
  standbyReplayLagSeconds?: number;
}

function describe(handle: ChainHandle, state: ChainState, mempoolTxs: number | null): ChainReadiness {
  const base = { chain: handle.params.chain, network: handle.params.network, configured: handle.configured };
  const none = {
    indexedHeight: null,
    indexedHash: null,
    mempoolTxs: null,
    nodeHeight: null,
    lag: null,
    nodeSeenAt: null,
    nodeSeenAgeSeconds: null,
    tipTime: null,
    tipAgeSeconds: null,
  };
  switch (state.kind) {
    case 'unavailable':
      return { ...base, ready: false, ...none, reason: state.reason };
    case 'empty':
      if (state.bootstrap === null) return { ...base, ready: false, ...none, reason: 'the index has no blocks yet' };
      return { ...base, ready: false, ...none, reason: bootstrapReason(state.bootstrap), bootstrap: state.bootstrap };
    case 'stale':
    case 'syncing':
    case 'ready': {
      const s = state.status;
      const row = {
        ...base,
        ready: state.kind === 'ready',
        indexedHeight: s.tipHeight,
        indexedHash: s.tipHash,
        mempoolTxs,
        nodeHeight: s.nodeHeight,
        lag: lagOf(s),
        nodeSeenAt: s.nodeSeenAt ? s.nodeSeenAt.toISOString() : null,
        nodeSeenAgeSeconds: state.ages.nodeSeenAgeSeconds,
        tipTime: s.tipTime ? s.tipTime.toISOString() : null,
        tipAgeSeconds: state.ages.tipAgeSeconds,
        history: s.historyState?.state ?? ('off' as const),
        ...(s.historyState?.state === 'building' && { historyBuiltHeight: s.historyState.builtHeight }),
        ...(s.standbyReplayLagSeconds !== undefined && { standbyReplayLagSeconds: s.standbyReplayLagSeconds }),
      };
      if (state.kind === 'ready') return row;
      return { ...row, reason: state.kind === 'stale' ? state.reason : `the index is ${state.lag} blocks behind the node` };
    }
  }
}

function bootstrapReason(p: BootstrapProgress): string {
  const share = p.total !== null && p.total > 0 ? ` (${((100 * p.coins) / p.total).toFixed(1)} % of ${p.total} coins read)` : '';
  return `a UTXO snapshot is being loaded: ${p.phase}${share}`;
}

/** The mempool count is a nicety of the row: a failure to read it leaves it unknown, not the chain unready. */
async function mempoolTxsOf(state: ChainState): Promise<number | null> {
  if (state.kind === 'unavailable' || state.kind === 'empty') return null;
  try {
    return (await state.source.mempoolTxs?.()) ?? null;
  } catch {
    return null;
  }
}

/** Per-chain readiness, and the gauges refreshed from it (so /metrics and /ready agree). */
export async function readiness(deps: AppDeps, metrics: ApiMetrics, clock: Clock): Promise<ChainReadiness[]> {
  return Promise.all(
    [...deps.chains.values()].map(async (handle) => {
      const state = await safeState(handle, deps, clock);
      const row = describe(handle, state, await mempoolTxsOf(state));
      // A chain this service does not serve gets no series at all: chain_ready 0 for it would page someone.
      if (!handle.configured) return row;
      const labels = { chain: row.chain };
      metrics.chainReady.set(labels, row.ready ? 1 : 0);
      if (row.indexedHeight !== null) metrics.indexedHeight.set(labels, row.indexedHeight);
      if (row.nodeHeight !== null) metrics.nodeHeight.set(labels, row.nodeHeight);
      if (row.nodeSeenAgeSeconds !== null) metrics.nodeSeenAge.set(labels, row.nodeSeenAgeSeconds);
      if (row.tipAgeSeconds !== null) metrics.tipAge.set(labels, row.tipAgeSeconds);
      if (row.standbyReplayLagSeconds !== undefined) metrics.standbyReplayLag.set(labels, row.standbyReplayLagSeconds);
      return row;
    }),
  );
}

/** /ready must answer 200 or 503, never 500: any failure reading a chain makes that chain not ready. */
async function safeState(handle: ChainHandle, deps: AppDeps, clock: Clock): Promise<ChainState> {
  try {
    return await chainState(handle, deps.settings, clock.now());
  } catch (err) {
    return { kind: 'unavailable', reason: `its index cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}

function only(router: Router, path: string, handler: (req: Request, res: Response) => void | Promise<void>): void {
  router
    .route(path)
    .get(handler)
    .all((req: Request) => {
      throw methodNotAllowed(req.method);
    });
}

export function opsRouter(deps: AppDeps, metrics: ApiMetrics, clock: Clock): Router {
  // Paths are case-sensitive as documented; only the chain segment is case-insensitive (by parseChain).
  const router = Router({ caseSensitive: true });
  const startedAt = clock.now();

  only(router, '/health', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, {
      status: 'success',
      data: { status: 'ok', uptimeSeconds: Math.floor((clock.now() - startedAt) / 1000), version: PACKAGE_VERSION },
    });
  });

  only(router, '/ready', async (_req, res) => {
    const chains = (await readiness(deps, metrics, clock)).filter((c) => c.configured);
    const problems = deps.keyedProblems?.() ?? [];
    const ready = chains.length > 0 && chains.every((c) => c.ready) && problems.length === 0;
    if (ready) {
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 200, { status: 'success', data: { ready, chains } });
      return;
    }
    const message =
      chains.length === 0
        ? `no chain is configured (set ${CHAIN_CODES.map((c) => `ADDRSUM_${c}_RPC_URL`).join(' or ')})`
        : problems.length > 0
          ? `keyed requests cannot be served: ${problems.join('; ')}`
          : 'not every configured chain is ready';
    sendError(res, new ServingError('NOT_READY', message, { ready, chains, ...(problems.length > 0 && { problems }) }));
  });

  const metricsAllowed = deps.settings.metricsAllow ? addressMatcher(deps.settings.metricsAllow) : () => true;
  only(router, '/metrics', async (req, res) => {
    // The peer address, not req.ip: X-Forwarded-For is the client's to write.
    if (!metricsAllowed(req.socket.remoteAddress)) throw notFound();
    let text = deps.clusterMetrics ? await deps.clusterMetrics() : null;
    if (text === null) {
      if (deps.clusterMetrics) deps.logger.warn("the supervisor did not answer for the other workers: /metrics is this worker's alone");
      await readiness(deps, metrics, clock);
      text = await metrics.registry.metrics();
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(text);
  });

  const openapi = JSON.stringify(openApiDocument());
  only(router, '/openapi.json', (_req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.send(openapi);
  });

  return router;
}
