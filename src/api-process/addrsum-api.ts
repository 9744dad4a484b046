#!/usr/bin/env node
/**
 * `addrsum-api` (`npm run api`): the HTTP API until SIGTERM/SIGINT. Bad configuration, or a port it cannot
 * listen on: one line on stderr, exit 1.
 */
import { isSupervisor, onSupervisorStop, superviseWorkers, workerLogger } from './cluster-supervisor.js';
import { CHAIN_CODES } from '../chain/params.js';
import { warnUnsharedLimits } from '../serving/shared-limiter.js';
import { loadConfigOrExit } from '../config.js';
import { createLogger } from '../logger.js';
import { main } from './main.js';
import { newProgram } from '../cli/program.js';
import { exitAfterFlush, fatalLine, onStopSignals } from '../cli/process.js';

newProgram({
  name: 'addrsum-api',
  description: 'Serve address summaries over HTTP from the chain indexes (read-only)',
  settings: [
    'dataDir',
    'keysUrl',
    'logLevel',
    'logFormat',
    'api.',
    'electrum.',
    ...CHAIN_CODES.map((c) => `chains.${c}.network`),
    ...CHAIN_CODES.map((c) => `chains.${c}.rpcUrl`),
    ...CHAIN_CODES.map((c) => `chains.${c}.indexUrl`),
    ...CHAIN_CODES.map((c) => `chains.${c}.history`),
    ...CHAIN_CODES.map((c) => `chains.${c}.electrum.`),
  ],
}).parse();

const config = loadConfigOrExit();
const baseLogger = createLogger({ level: config.logLevel, format: config.logFormat });
// With api.workers > 1 this process only supervises that many copies of itself (cluster-supervisor.ts).
if (isSupervisor(config.api.workers)) {
  warnUnsharedLimits(config.api, baseLogger);
  await superviseWorkers(config.api.workers, baseLogger);
}
const logger = workerLogger(baseLogger);
const log = logger.child({ component: 'server' });
main(config, logger).then(
  (api) => {
    const exit = (): void => exitAfterFlush(logger, 0);
    onStopSignals(log, () => void api.stop().then(exit));
    onSupervisorStop(api.server, api.stop, exit);
  },
  (err: unknown) => {
    log.fatal({ err }, 'cannot listen');
    // One line for whoever started the process, as a bad configuration value gets.
    process.stderr.write(fatalLine('api', err));
    exitAfterFlush(logger, 1);
  },
);
