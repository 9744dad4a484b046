/**
 * Prometheus metrics of the HTTP API. Each app gets its own Registry (never prom-client's global one),
 * so tests can build many apps in one process and the indexer keeps its metrics in its own file.
 * Labels are route templates, statuses, tiers and reasons — never an address, a key or a key id, which
 * would make the series count unbounded and put identifiers into monitoring.
 * Across workers (cluster-metrics.ts) counters and histograms are summed; the per-chain gauges describe
 * the one index every worker reads, and each worker reads it when scraped, so they agree; where they
 * could differ for a moment, ready takes the minimum and heights and ages the maximum.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { buildInfoGauge } from '../build-info.js';
import type { KeyFailure } from '../store/keys/key-verifier.js';
import { TIER_NAMES } from '../store/keys/tier.js';

/**
 * Every label value a refusal counter can take, created at 0 when the registry is: increase() and an
 * alert need the series before the first event, and a dashboard should show 0 rather than nothing.
 */
const AUTH_FAILURE_REASONS: ReadonlyArray<'missing' | KeyFailure> = ['missing', 'malformed', 'unknown', 'revoked'];
const RATE_LIMITED_TIERS: readonly string[] = [...TIER_NAMES, 'invalid_key'];
import { logLinesDropped } from '../log-writer.js';

/** Refusal statuses whose suppressed-line series start at 0 (every status is sampled: src/serving/log-sampler.ts). */
const SAMPLED_STATUSES: readonly string[] = ['401', '429'];

export interface ApiMetrics {
  readonly registry: Registry;
  /** Finished requests by route template, status code and tier (`none` before authentication). */
  readonly requests: Counter<'route' | 'status' | 'tier'>;
  /** Time from request to response end by route template. */
  readonly latency: Histogram<'route'>;
  /** 429 answers by tier. */
  readonly rateLimited: Counter<'tier'>;
  /** 401 answers by reason: missing, malformed, unknown, revoked. */
  readonly authFailures: Counter<'reason'>;
  /** Indexed tip height per chain, read when /metrics is scraped. */
  readonly indexedHeight: Gauge<'chain'>;
  /** Node tip height per chain as last seen by the indexer. */
  readonly nodeHeight: Gauge<'chain'>;
  /** 1 while the chain answers (index present, fresh, within syncLagBlocks of the node), else 0. Configured chains only. */
  readonly chainReady: Gauge<'chain'>;
  readonly standbyReplayLag: Gauge<'chain'>;
  /** Seconds since the indexer last heard from its node, per chain (as recorded in the index). */
  readonly nodeSeenAge: Gauge<'chain'>;
  /** Seconds since the indexed tip block's header time, per chain. */
  readonly tipAge: Gauge<'chain'>;
  /** Request log lines left out by sampling, by status. */
  readonly logLinesSuppressed: Counter<'status'>;
}

export function createApiMetrics(options: { defaultMetrics?: boolean } = {}): ApiMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'addrsum_api_' });
  const registers = [registry];
  buildInfoGauge(registers);
  logDropsCounter('addrsum_api_log_lines_dropped_total', registers);
  const metrics: ApiMetrics = {
    registry,
    requests: new Counter({
      name: 'addrsum_api_requests_total',
      help: 'HTTP requests answered, by route template, status and tier',
      labelNames: ['route', 'status', 'tier'],
      registers,
    }),
    latency: new Histogram({
      name: 'addrsum_api_request_duration_seconds',
      help: 'Request latency by route template',
      labelNames: ['route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    rateLimited: new Counter({
      name: 'addrsum_api_rate_limited_total',
      help: 'Requests refused with 429, by tier',
      labelNames: ['tier'],
      registers,
    }),
    authFailures: new Counter({
      name: 'addrsum_api_auth_failures_total',
      help: 'Requests refused with 401, by reason',
      labelNames: ['reason'],
      registers,
    }),
    indexedHeight: new Gauge({
      name: 'addrsum_api_chain_indexed_height',
      help: 'Height of the indexed tip the API answers from, per chain',
      labelNames: ['chain'],
      aggregator: 'max',
      registers,
    }),
    nodeHeight: new Gauge({
      name: 'addrsum_api_chain_node_height',
      help: 'Node tip height last recorded by the indexer, per chain',
      labelNames: ['chain'],
      aggregator: 'max',
      registers,
    }),
    chainReady: new Gauge({
      name: 'addrsum_api_chain_ready',
      help: '1 if the chain is answered (index present, fresh, lag within syncLagBlocks), else 0',
      labelNames: ['chain'],
      aggregator: 'min',
      registers,
    }),
    standbyReplayLag: new Gauge({
      name: 'addrsum_api_chain_standby_replay_lag_seconds',
      help: 'Reading a streaming standby: seconds its replay is behind the WAL it received, per chain',
      labelNames: ['chain'],
      aggregator: 'max',
      registers,
    }),
    nodeSeenAge: new Gauge({
      name: 'addrsum_api_chain_node_seen_age_seconds',
      help: 'Seconds since the indexer last heard from its node, per chain',
      labelNames: ['chain'],
      aggregator: 'max',
      registers,
    }),
    tipAge: new Gauge({
      name: 'addrsum_api_chain_tip_age_seconds',
      help: "Seconds since the indexed tip block's header time, per chain",
      labelNames: ['chain'],
      aggregator: 'max',
      registers,
    }),
    logLinesSuppressed: new Counter({
      name: 'addrsum_api_log_lines_suppressed_total',
      help: 'Request log lines left out by sampling, by status (each window logs a summary instead)',
      labelNames: ['status'],
      registers,
    }),
  };
  for (const reason of AUTH_FAILURE_REASONS) metrics.authFailures.inc({ reason }, 0);
  for (const tier of RATE_LIMITED_TIERS) metrics.rateLimited.inc({ tier }, 0);
  for (const status of SAMPLED_STATUSES) metrics.logLinesSuppressed.inc({ status }, 0);
  return metrics;
}

/**
 * The connection guard's state, read at each scrape: open connections, and connections it closed or
 * refused (evicted: the oldest idle one closed for a new one; refused: every one busy; deadline: a
 * request not received and answered within api.requestTimeoutMs).
 */
export function connectionMetrics(
  registry: Registry,
  guard: { open(): number; readonly counts: { evicted: number; refused: number; deadline: number } },
): void {
  new Gauge({
    name: 'addrsum_api_open_connections',
    help: 'HTTP connections open now',
    aggregator: 'sum',
    registers: [registry],
    collect(this: Gauge) {
      this.set(guard.open());
    },
  });
  const reported = { evicted: 0, refused: 0, deadline: 0 };
  const closed = new Counter({
    name: 'addrsum_api_connections_closed_total',
    help: 'Connections the API closed or refused, by reason (evicted, refused, deadline)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      for (const reason of ['evicted', 'refused', 'deadline'] as const) {
        closed.inc({ reason }, guard.counts[reason] - reported[reason]);
        reported[reason] = guard.counts[reason];
      }
    },
  });
  for (const reason of ['evicted', 'refused', 'deadline']) closed.inc({ reason }, 0);
}

/** The wallet derivation pool (derivation-pool.ts): its backlog and its output, read at each scrape. */
export function derivationMetrics(registry: Registry, pool: { readonly pendingWork: number; readonly doneWork: number }): void {
  new Gauge({
    name: 'addrsum_api_wallet_pending_work',
    help: 'Wallet derivation work (key derivations) queued or running on the derivation threads',
    aggregator: 'sum',
    registers: [registry],
    collect(this: Gauge) {
      this.set(pool.pendingWork);
    },
  });
  let seen = 0;
  new Counter({
    name: 'addrsum_api_wallet_work_total',
    help: 'Wallet derivation work (key derivations) done on the derivation threads',
    registers: [registry],
    collect() {
      this.inc(pool.doneWork - seen);
      seen = pool.doneWork;
    },
  });
}

/** Log lines the process could not write (a full or broken log disk: log-writer.ts), read at each scrape. */
function logDropsCounter(name: string, registers: Registry[]): void {
  let seen = 0;
  new Counter({
    name,
    help: 'Log lines dropped because they could not be written (full or broken log destination)',
    registers,
    collect() {
      const now = logLinesDropped();
      this.inc(now - seen);
      seen = now;
    },
  });
}
