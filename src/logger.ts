/**
 * Structured JSON logs (pino), one line per event; `logFormat = "pretty"` renders the same records as
 * readable lines for a terminal (pino-pretty, run in-process as the destination stream rather than as a
 * worker-thread transport, so it behaves the same from dist/, under tsx and in tests). Components log through child loggers carrying
 * `{component}` (and `{chain}` where there is one); requests through a child carrying `{reqId}`.
 * API keys are never logged — code logs the key id — and the redact paths below are a second guard
 * should a header object or an RPC URL ever be passed to a log call.
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

/**
 * The logging surface components take: a pino Logger satisfies it, and tests pass a recorder. The one
 * interface for it (the indexer's node client, sync loop, ZMQ and mempool followers all use it).
 */
export interface LogSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  readonly level: LevelWithSilent;
  /** `json` (default): one object per line; `pretty`: for a terminal. */
  readonly format?: LogFormat;
  /** Where lines go (default stdout); tests pass a stream to read them back. */
  readonly destination?: DestinationStream;
}

/**
 * Pretty lines: time, level, `<chain> <component>:`, the message, then the record's other fields on the
 * same line; colours only on a terminal. `service` is the same on every line, pid and hostname add
 * nothing on one host.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  return PinoPretty({
    destination: destination ?? 1,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    messageFormat: '{if chain}{chain} {end}{if component}{component}: {end}{msg}',
    ignore: 'pid,hostname,service,chain,component',
    singleLine: true,
    // Writes go straight to the destination: a crash loses no line pino already accepted.
    sync: true,
  });
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

/** Every line's shape: service, ISO time, the level as its name. */
function lineOptions(level: LevelWithSilent) {
  return {
    level,
    base: { service: 'addrsum' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    { ...lineOptions(options.level), redact: { paths: [...REDACT_PATHS], censor: '[redacted]' } },
    options.format === 'pretty' ? prettyStream(options.destination) : (options.destination ?? pino.destination({ fd: 1, sync: false })),
  );
}

/**
 * The same lines to the same destination at the same level, without the redaction pass, which costs
 * about as much as the rest of a line. Only for lines whose every field the code builds itself from
 * values that cannot hold a secret: the API's one line per request (route template, status, key id).
 */
export function unredacted(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  return pino(lineOptions(logger.level as LevelWithSilent), stream).child(logger.bindings());
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
