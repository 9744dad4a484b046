/**
 * `npm run indexer -- --chain BTC|LTC`: follows one node into data/<chain>.sqlite until SIGTERM/SIGINT.
 * Exit codes: 0 after a clean stop, 1 on bad configuration or a fatal index error (message on stderr
 * and in the log), never on a node that is down — that is waited out with retries.
 */
import path from 'node:path';
import type { Server } from 'node:http';
import { Command, Option } from 'commander';
import { CHAIN_CODES, type ChainCode } from '../src/chain/params.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import { ChainStore } from '../src/store/chain-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { IndexerMetrics } from './metrics.js';
import { startMetricsServer } from './metrics-server.js';
import { NodeClient, redactUrl, withRetry } from './node-client.js';
import { checkNode } from './node-check.js';
import { retryingSource } from './node-source.js';
import { Syncer } from './sync.js';
import { followHashBlocks } from './zmq.js';
import { bootstrapOption, checkSnapshot, runBootstrap, type CheckedSnapshot } from './bootstrap-cli.js';

function fail(message: string): never {
  process.stderr.write(`addrsum indexer: ${message}\n`);
  process.exit(1);
}

async function run(chain: ChainCode, config: Config, log: Logger, bootstrapFile: string | undefined): Promise<void> {
  const chainConfig = config.chains[chain];
  if (chainConfig.rpcUrl === undefined) {
    fail(`ADDRSUM_${chain}_RPC_URL is not set: the ${chain} indexer needs its node's JSON-RPC URL (http://user:pass@host:port)`);
  }
  const controller = new AbortController();
  const { signal } = controller;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      log.info({ signal: sig }, 'stopping after the current block');
      controller.abort(new Error(sig));
    });
  }

  const dbPath = chainDbPath(config.dataDir, chain);
  const client = new NodeClient({
    url: chainConfig.rpcUrl,
    ...(chainConfig.rpcCookieFile !== undefined && { cookieFile: chainConfig.rpcCookieFile }),
    log,
  });
  // A snapshot is checked (file header, base block on the node) before the database is touched.
  let snapshot: CheckedSnapshot | null = null;
  try {
    if (bootstrapFile !== undefined) snapshot = await checkSnapshot(bootstrapFile, chain, chainConfig.network, client, log, signal);
  } catch (err) {
    client.close();
    throw err;
  }
  // Opening takes the single-writer lock and applies migrations; a second indexer stops here.
  const store = ChainStore.open(dbPath, { chain, network: chainConfig.network, undoDepth: chainConfig.undoDepth });
  const metrics = new IndexerMetrics(chain, true);
  let metricsServer: Server | undefined;
  try {
    metricsServer = await startMetricsServer(metrics.registry, config.api.host, chainConfig.metricsPort);
    log.info(
      { db: path.resolve(dbPath), node: redactUrl(chainConfig.rpcUrl), network: chainConfig.network, metricsPort: chainConfig.metricsPort },
      'indexer starting',
    );
    const source = retryingSource(client, log, metrics, signal);
    const info = await retryingGetChainInfo(client, log, signal);
    await checkNode(chain, chainConfig.network, info, source);
    if (snapshot) runBootstrap(snapshot, store, log);
    const syncer = new Syncer(
      store,
      source,
      { pollIntervalMs: chainConfig.pollIntervalMs, prefetch: chainConfig.prefetch, commitIntervalMs: chainConfig.commitIntervalMs, undoDepth: chainConfig.undoDepth },
      log,
      metrics,
    );
    if (chainConfig.zmq !== undefined) {
      void followHashBlocks(chainConfig.zmq, () => syncer.wake.notify(), log, signal);
    }
    await syncer.run(signal);
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    client.close();
    metricsServer?.close();
    store.close();
  }
  const tip = store.tip();
  log.info({ height: tip?.height ?? null }, 'indexer stopped cleanly');
}

function retryingGetChainInfo(client: NodeClient, log: Logger, signal: AbortSignal) {
  return withRetry(() => client.getChainInfo(), { log, signal, what: 'getblockchaininfo' });
}

const program = new Command('indexer')
  .description('Index one chain from its node into SQLite')
  .addOption(new Option('--chain <chain>', 'chain to index').choices([...CHAIN_CODES]).makeOptionMandatory())
  .addOption(bootstrapOption())
  .showHelpAfterError();
program.parse();
const { chain, bootstrap: bootstrapFile } = program.opts<{ chain: ChainCode; bootstrap?: string }>();

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}
const log = createLogger({ level: config.logLevel }).child({ chain, component: 'indexer' });
run(chain, config, log, bootstrapFile).then(
  () => process.exit(0),
  (err: unknown) => {
    const e = err as { code?: string; message?: string };
    log.fatal({ code: e.code, err: e.message }, 'indexer stopped');
    fail(`${e.code ?? 'ERROR'}: ${e.message ?? String(err)}`);
  },
);
