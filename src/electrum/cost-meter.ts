/**
 * What Electrum traffic costs, metered the way ElectrumX meters it rather than refused the way the HTTP
 * tiers refuse: a wallet's first sync is a burst of thousands of requests, and Electrum takes an error
 * such as "slow down" as a reason to drop the server. So each session and each client network keeps a
 * level of cost spent, draining at its decay rate:
 *   - at or below the soft limit a request is served at once;
 *   - above it, the request waits until the level has drained back to the soft limit, at most
 *     electrum.maxDelayMs (it holds one of the session's in-flight slots meanwhile, so a session that
 *     keeps on is paced to its decay rate, and its next lines push back on it through TCP);
 *   - past the hard limit (work the bounded delay could not hold back: expensive requests without end)
 *     the session is closed, with a log line.
 * Trusted networks (loopback by default, as Fulcrum exempts it) are not metered. The levels are per API
 * process: like the connection caps, under node:cluster each worker meters its own sessions.
 */
import { addressMatcher } from '../net-ranges.js';

export interface CostLimits {
  readonly soft: number;
  readonly hard: number;
  /** Cost drained per second. */
  readonly decayPerSecond: number;
}

export interface CostSettings {
  readonly session: CostLimits;
  readonly network: CostLimits;
  readonly maxDelayMs: number;
  /** Client addresses or CIDR ranges that are not metered. */
  readonly trusted: readonly string[];
}

/** Served after `delayMs` (0: now), or past a hard limit: the session is closed. */
export type Admission = { readonly kind: 'serve'; readonly delayMs: number } | { readonly kind: 'over'; readonly why: string };

const NOW: Admission = { kind: 'serve', delayMs: 0 };

/** The cost a session or a network has spent, drained since (ms clock). */
export class CostLevel {
  private value = 0;
  private since = 0;

  constructor(readonly limits: CostLimits) {}

  at(t: number): number {
    return Math.max(0, this.value - ((t - this.since) / 1000) * this.limits.decayPerSecond);
  }

  add(cost: number, t: number): number {
    this.value = this.at(t) + cost;
    this.since = t;
    return this.value;
  }
}

/** What a session asks before it serves a line, and after work priced by its size. */
export interface Meter {
  /** Adds `cost` to the session's and its network's levels and says when to serve. */
  admit(cost: number): Admission;
}

const UNMETERED: Meter = { admit: () => NOW };

/** The admission for levels just raised: the longest wait any of them asks, or the first hard limit passed. */
export function admission(
  levels: ReadonlyArray<{ readonly level: number; readonly limits: CostLimits; readonly scope: string }>,
  maxDelayMs: number,
): Admission {
  let waitMs = 0;
  for (const { level, limits, scope } of levels) {
    if (level > limits.hard) return { kind: 'over', why: `the ${scope}'s cost ${Math.round(level)} passed its hard limit ${limits.hard}` };
    if (level > limits.soft) waitMs = Math.max(waitMs, ((level - limits.soft) / limits.decayPerSecond) * 1000);
  }
  return waitMs === 0 ? NOW : { kind: 'serve', delayMs: Math.min(maxDelayMs, Math.ceil(waitMs)) };
}

/** How often levels drained to nothing are dropped (a drained level is the same as a new one). */
const SWEEP_MS = 60_000;

/** The meters of one API process: a level per client network, shared by that network's sessions. */
export class CostMeters {
  private readonly networks = new Map<string, CostLevel>();
  private readonly trusted: (ip: string | undefined) => boolean;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly settings: CostSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.trusted = addressMatcher(settings.trusted);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** A new session's meter: its own level, and its network's. */
  meterFor(ip: string | undefined, network: string): Meter {
    if (this.trusted(ip)) return UNMETERED;
    const { settings, now } = this;
    const session = new CostLevel(settings.session);
    return {
      admit: (cost) => {
        const t = now();
        return admission(
          [
            { level: session.add(cost, t), limits: settings.session, scope: 'session' },
            // Looked up each time: a level drained and swept meanwhile is made anew, for every session of it.
            { level: this.networkLevel(network).add(cost, t), limits: settings.network, scope: 'network' },
          ],
          settings.maxDelayMs,
        );
      },
    };
  }

  private networkLevel(network: string): CostLevel {
    let level = this.networks.get(network);
    if (level === undefined) {
      level = new CostLevel(this.settings.network);
      this.networks.set(network, level);
    }
    return level;
  }

  /** Networks metered now (levels not yet drained and swept). */
  get size(): number {
    return this.networks.size;
  }

  sweep(): void {
    const t = this.now();
    for (const [network, level] of this.networks) if (level.at(t) === 0) this.networks.delete(network);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
