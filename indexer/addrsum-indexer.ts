#!/usr/bin/env node
/**
 * `addrsum-indexer --chain BTC|LTC` (`npm run indexer`). Exit codes: 0 after a clean stop (SIGTERM/SIGINT),
 * 1 on bad configuration or a fatal index error (message on stderr and in the log), never on a node that
 * is down: that is waited out with retries.
 */
import { Option } from 'commander';
import { bootstrapOption } from './bootstrap-cli.js';
import { CHAIN_CODES, type ChainCode } from '../src/chain/params.js';
import { loadConfigOrExit } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { newProgram } from '../src/cli/program.js';
import { main } from './main.js';
import { exitAfterFlush, fatalLine, onStopSignals } from '../src/cli/process.js';

const program = newProgram({
  name: 'addrsum-indexer',
  description: 'Index one chain from its node into SQLite, until SIGTERM/SIGINT',
  settings: ['dataDir', 'logLevel', 'logFormat', 'api.host', 'chains.'],
})
  .addOption(new Option('--chain <chain>', 'chain to index').choices([...CHAIN_CODES]).makeOptionMandatory())
  .addOption(bootstrapOption());
program.parse();
const { chain, bootstrap: bootstrapFile } = program.opts<{ chain: ChainCode; bootstrap?: string }>();

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, format: config.logFormat });
const log = logger.child({ chain, component: 'indexer' });
const controller = new AbortController();
onStopSignals(log, (signal) => {
  log.info({ signal }, 'stopping after the current block');
  controller.abort(new Error(signal));
});
main(config, { chain, logger, signal: controller.signal, ...(bootstrapFile !== undefined && { bootstrapFile }) }).then(
  () => exitAfterFlush(logger, 0),
  (err: unknown) => {
    const e = err as { code?: string; message?: string };
    log.fatal({ code: e.code, err: e.message }, 'indexer stopped');
    process.stderr.write(fatalLine('indexer', err));
    exitAfterFlush(logger, 1);
  },
);
