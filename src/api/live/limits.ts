/**
 * Live subscription limits (config api.live): per tier, how many addresses one WebSocket connection may
 * watch and how many one key (anonymous callers: one client network) may watch over all its
 * connections and event streams in one API process; and the unsent bytes after which a client that
 * does not read is disconnected.
 */
import type { Tier } from '../../store/keys/tier.js';
import { buckets } from '../../serving/caller-buckets.js';

export interface LiveLimits {
  readonly pollMs: number;
  readonly maxBufferedBytes: number;
  /** A connection without a key must authenticate within this. */
  readonly authTimeoutMs: number;
  /**
   * WebSockets one client network (an IPv4 address, an IPv6 /64) may hold open at once, keyed or not. The
   * connection guard counts an open WebSocket as busy and never evicts it, so without this cap one client
   * (even a keyless one, for the auth timeout of each connection) could hold every connection allowed.
   */
  readonly connectionsPerNetwork: number;
  readonly perConnection: Readonly<Record<Tier, number>>;
  readonly perKey: Readonly<Record<Tier, number>>;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  pollMs: 100,
  maxBufferedBytes: 1024 * 1024,
  authTimeoutMs: 10_000,
  connectionsPerNetwork: 32,
  perConnection: { default: 100, private: 1000 },
  perKey: { default: 200, private: 10_000 },
};

/**
 * Whose count a subscription joins (LiveHub.reserve): its key, or the client network of an anonymous
 * caller. WebSockets and event streams name owners alike, so one cap covers both.
 */
export function subscriptionOwner(keyId: string | null, ip: string | undefined): string {
  return keyId !== null ? buckets.key(keyId) : buckets.anonymous(ip);
}
