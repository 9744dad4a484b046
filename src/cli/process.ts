/**
 * Process plumbing shared by the long-running commands: SIGTERM/SIGINT start a clean stop, a second
 * signal exits at once, the last log lines are flushed before exiting, and a fatal error is one line.
 */
import type { Logger } from '../logger.js';

export function onStopSignals(log: Logger, stop: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    stop(signal);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

export function exitAfterFlush(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}

/** The one stderr line of a command that stops on `err`: `addrsum <command>: CODE: message`. */
export function fatalLine(command: string, err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : 'ERROR';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return `addrsum ${command}: ${code}: ${message}\n`;
}
