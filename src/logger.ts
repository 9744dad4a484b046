/**
 * Structured JSON logs (pino), one line per event. Components log through child loggers carrying
 * `{component}` (and `{chain}` where there is one); requests through a child carrying `{reqId}`.
 * API keys are never logged — code logs the key id — and the redact paths below are a second guard
 * should a header object or an RPC URL ever be passed to a log call.
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export interface LoggerOptions {
  readonly level: LevelWithSilent;
  /** Where lines go (default stdout); tests pass a stream to read them back. */
  readonly destination?: DestinationStream;
}

export const REDACT_PATHS: readonly string[] = Object.freeze([
  'headers["x-api-key"]',
  'req.headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'apiKey',
  'key',
  '*.key',
  'rpcUrl',
  '*.rpcUrl',
  'password',
  '*.password',
]);

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'addrsum' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** A logger that drops everything (tests, tools that have nothing to say). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Writes lines still buffered to the log's file descriptor now. For long synchronous work (the snapshot
 * bulk load) whose progress lines would otherwise wait for the event loop. Best effort.
 */
export function flushLogSync(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // A write still in flight: its lines go out at the next tick instead.
  }
}
