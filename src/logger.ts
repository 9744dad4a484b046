/**
 * Structured JSON logs (pino), one line per event; `logFormat = "pretty"` renders the same records as
 * readable lines for a terminal (pino-pretty, run in-process as the destination stream rather than as a
 * worker-thread transport, so it behaves the same from dist/, under tsx and in tests). Components log through child loggers carrying
 * `{component}` (and `{chain}` where there is one); requests through a child carrying `{reqId}`.
 * API keys are never logged — code logs the key id — and the redact paths below are a second guard
 * should a header object or an RPC URL ever be passed to a log call.
 */
import { Writable } from 'node:stream';
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { DroppingWriter } from './log-writer.js';

export type { Logger };

/**
 * The logging surface components take: a pino Logger satisfies it, and tests pass a recorder. The one
 * interface for it (the indexer's node client, sync loop, ZMQ and mempool followers all use it).
 */
export interface LogSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type LogFormat = 'json' | 'pretty' | 'auto';

export interface LoggerOptions {
  readonly level: LevelWithSilent;
  /** `json` (default): one object per line; `pretty`: for a terminal; `auto`: pretty when stdout is a terminal. */
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
  // pino-pretty pipes into its destination, so the dropping writer goes behind a Writable.
  const writer = destination === undefined ? new DroppingWriter() : null;
  const sink =
    writer === null
      ? undefined
      : new Writable({
          write(chunk: Buffer | string, _encoding, done) {
            writer.write(String(chunk));
            done();
          },
          final(done) {
            writer.flush(done);
          },
        });
  return PinoPretty({
    destination: sink ?? destination ?? 1,
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

/** `auto` is pretty at a terminal and JSON otherwise (a pipe, a file, a collector). */
export function resolvedFormat(format: LogFormat | undefined, isTTY = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (format === 'auto') return isTTY ? 'pretty' : 'json';
  return format ?? 'json';
}

export function createLogger(options: LoggerOptions): Logger {
  // stdout goes through a writer that drops and counts lines it cannot write (log-writer.ts): a full
  // log disk must not stall or crash the process.
  return pino(
    { ...lineOptions(options.level), redact: { paths: [...REDACT_PATHS], censor: '[redacted]' } },
    resolvedFormat(options.format) === 'pretty' ? prettyStream(options.destination) : (options.destination ?? new DroppingWriter()),
  );
}

/**
 * The same lines to the same destination at the same level, without the redaction pass, which costs
 * about as much as the rest of a line. Only for lines whose every field the code builds itself from
 * values that cannot hold a secret: the API's one line per request (route template, status, key id).
 */
export function unredacted(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  // bindings() includes the base fields, which the new logger writes already: only the child's own.
  const { service: _base, ...own } = logger.bindings();
  return pino(lineOptions(logger.level as LevelWithSilent), stream).child(own);
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
