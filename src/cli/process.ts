/**
 * Process plumbing shared by the long-running commands: SIGTERM/SIGINT start a clean stop, a second
 * signal exits at once, and the last log lines are flushed before exiting.
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
