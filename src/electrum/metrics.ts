/**
 * The Electrum server's Prometheus series, on the API's registry (src/api/metrics.ts) next to the HTTP
 * ones. Labels are chains, registered method names, outcomes and reasons: an unknown method counts as
 * `unknown`, a line without one as `none`, never as the name a client sent.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { CLOSE_REASONS } from './close-reasons.js';

export interface ElectrumMetrics {
  /** Open Electrum connections by chain. */
  readonly connections: Gauge<'chain'>;
  readonly requests: Counter<'chain' | 'method' | 'outcome'>;
  /** Connections the server closed or refused, by reason (close-reasons.ts). */
  readonly disconnects: Counter<'chain' | 'reason'>;
  /** Notifications sent (subscriptions: for the index-backed methods). */
  readonly notifications: Counter<'chain' | 'method'>;
  /** Request lines held over a soft cost limit (cost-meter.ts), and the seconds they waited in all. */
  readonly delayed: Counter<'chain'>;
  readonly delaySeconds: Counter<'chain'>;
}

export function createElectrumMetrics(registry: Registry): ElectrumMetrics {
  const registers = [registry];
  return {
    connections: new Gauge({
      name: 'addrsum_api_electrum_connections',
      help: 'Electrum protocol connections open now, by chain',
      labelNames: ['chain'],
      aggregator: 'sum',
      registers,
    }),
    requests: new Counter({
      name: 'addrsum_api_electrum_requests_total',
      help: 'Electrum requests answered, by chain, method (unknown methods as "unknown") and outcome',
      labelNames: ['chain', 'method', 'outcome'],
      registers,
    }),
    disconnects: new Counter({
      name: 'addrsum_api_electrum_disconnects_total',
      help: 'Electrum connections the server closed or refused, by chain and reason',
      labelNames: ['chain', 'reason'],
      registers,
    }),
    notifications: new Counter({
      name: 'addrsum_api_electrum_notifications_total',
      help: 'Electrum notifications sent, by chain and method',
      labelNames: ['chain', 'method'],
      registers,
    }),
    delayed: new Counter({
      name: 'addrsum_api_electrum_delayed_total',
      help: 'Electrum request lines that waited over a soft cost limit before being served, by chain',
      labelNames: ['chain'],
      registers,
    }),
    delaySeconds: new Counter({
      name: 'addrsum_api_electrum_delay_seconds_total',
      help: 'Seconds Electrum request lines waited over a soft cost limit, in all, by chain',
      labelNames: ['chain'],
      registers,
    }),
  };
}

/** The series of a chain with Electrum listeners start at 0: an alert's increase() needs them before the first event. */
export function startSeries(metrics: ElectrumMetrics, chain: string): void {
  metrics.connections.set({ chain }, 0);
  for (const reason of CLOSE_REASONS) metrics.disconnects.inc({ chain, reason }, 0);
  metrics.delayed.inc({ chain }, 0);
  metrics.delaySeconds.inc({ chain }, 0);
}
