/**
 * What an Electrum request costs, paid from the bucket a keyless HTTP caller of the same client network
 * pays from (caller-buckets.ts `ip:<network>`, the anonymous tier's limits): Electrum has no keys, so a
 * wallet and a script behind the same address share one allowance, whichever door they use. An empty
 * bucket is an answer ("slow down"), never a queue.
 */
import { buckets } from '../serving/caller-buckets.js';
import type { LimitDecision, RateLimiter, TierLimits } from '../serving/token-bucket.js';
import type { Pay, Payment } from './session.js';
import { RpcError } from './wire.js';

const PAID: Payment = { paid: true };

function decided(d: LimitDecision): Payment {
  if (d.allowed) return PAID;
  return {
    paid: false,
    error: new RpcError(
      'EXCESSIVE_RESOURCE_USAGE',
      `over the request limit of your network: slow down (retry in ${d.retryAfterSeconds} s)`,
    ),
  };
}

/** The limit store refused to answer (Redis down, fail-closed): the request is not served, nor counted. */
function busy(): Payment {
  return { paid: false, error: new RpcError('SERVER_BUSY', 'request limits cannot be checked right now; retry shortly') };
}

/** A payer for a client at `ip`, on the anonymous tier's bucket of its network. */
export function networkPayer(limiter: RateLimiter, limits: TierLimits, ip: string | undefined): Pay {
  const bucket = buckets.anonymous(ip);
  return (cost, draw = 'within') => {
    try {
      const d = limiter.consume(bucket, limits, cost, draw);
      return d instanceof Promise ? d.then(decided, busy) : decided(d);
    } catch {
      return busy();
    }
  };
}
