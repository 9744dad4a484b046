import { isRetryable, type NodeError } from './rpc-errors.js';
import type { LogSink } from '../logger.js';

export interface RetryOptions {
  log?: LogSink;
  /** Aborting (SIGTERM) stops waiting at once; withRetry then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Upper bound of one wait; the delay doubles from baseDelayMs up to this. Default 30 s. */
  maxDelayMs?: number;
  /** First wait. Default 250 ms. */
  baseDelayMs?: number;
  /** Give up after this many attempts (the last error is thrown). Default: never give up. */
  maxAttempts?: number;
  /** What is being attempted, for the log line (e.g. 'getblock'). */
  what?: string;
  /** Called before each wait, e.g. to count retries in a metric. */
  onRetry?: (err: NodeError, attempt: number, delayMs: number) => void;
}

/**
 * Runs `fn` until it succeeds, waiting between attempts with exponential backoff and "equal jitter"
 * (half the delay fixed, half random) so that several clients of a restarted node do not retry in
 * lockstep. Only retryable node errors are retried (see isRetryable: transient ones, plus AUTH and
 * UNREACHABLE, which an operator can fix while we wait); anything else is thrown at once.
 * Each retry is logged with the error code and message; NodeError messages carry redacted URLs only.
 */
export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const base = Math.min(opts.baseDelayMs ?? 250, maxDelay);
  const maxAttempts = opts.maxAttempts ?? Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      const value = await fn();
      if (attempt > 1) opts.log?.info({ attempts: attempt }, `node ${opts.what ?? 'request'} answered again`);
      return value;
    } catch (err) {
      if (!isRetryable(err) || attempt >= maxAttempts) throw err;
      opts.signal?.throwIfAborted();
      const ceiling = Math.min(maxDelay, base * 2 ** Math.min(attempt - 1, 30));
      const delayMs = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
      opts.onRetry?.(err, attempt, delayMs);
      opts.log?.warn(
        { code: err.code, rpcCode: err.details.rpcCode, attempt, retryInMs: delayMs, err: err.message },
        `node ${opts.what ?? 'request'} failed (${err.code}); retrying`,
      );
      await sleep(delayMs, opts.signal);
    }
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
