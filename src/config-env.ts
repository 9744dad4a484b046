/**
 * The environment variables that set settings (config.ts applies them over the TOML files): one or
 * more per setting, per chain where a setting is per chain.
 */
import { CHAIN_CODES, type ChainCode } from './chain/params.js';

export interface EnvBinding {
  readonly name: string;
  readonly path: readonly string[];
  /**
   * `int` values that look like integers become numbers; anything else stays text for the schema to
   * refuse. `list` values are split at commas (blanks around items dropped).
   */
  readonly kind: 'text' | 'int' | 'list';
}

function chainBindings(chain: ChainCode): EnvBinding[] {
  const p = (key: string) => ['chains', chain, key];
  return [
    { name: `ADDRSUM_${chain}_NETWORK`, path: p('network'), kind: 'text' },
    { name: `ADDRSUM_${chain}_RPC_URL`, path: p('rpcUrl'), kind: 'text' },
    { name: `ADDRSUM_${chain}_INDEX_URL`, path: p('indexUrl'), kind: 'text' },
    { name: `ADDRSUM_${chain}_RPC_COOKIE_FILE`, path: p('rpcCookieFile'), kind: 'text' },
    { name: `ADDRSUM_${chain}_ZMQ`, path: p('zmq'), kind: 'text' },
    { name: `ADDRSUM_${chain}_ZMQ_MEMPOOL`, path: p('zmqMempool'), kind: 'text' },
    { name: `ADDRSUM_${chain}_MEMPOOL`, path: p('mempool'), kind: 'text' },
    { name: `ADDRSUM_${chain}_UTXO_LIST`, path: p('utxoList'), kind: 'text' },
    { name: `ADDRSUM_${chain}_HISTORY`, path: p('history'), kind: 'text' },
    { name: `ADDRSUM_${chain}_METRICS_PORT`, path: p('metricsPort'), kind: 'int' },
    { name: `ADDRSUM_${chain}_MEMPOOL_POLL_MS`, path: p('mempoolPollMs'), kind: 'int' },
    { name: `ADDRSUM_${chain}_POLL_INTERVAL_MS`, path: p('pollIntervalMs'), kind: 'int' },
    { name: `ADDRSUM_${chain}_UNDO_DEPTH`, path: p('undoDepth'), kind: 'int' },
    { name: `ADDRSUM_${chain}_PREFETCH`, path: p('prefetch'), kind: 'int' },
    { name: `ADDRSUM_${chain}_COMMIT_INTERVAL_MS`, path: p('commitIntervalMs'), kind: 'int' },
    { name: `ADDRSUM_${chain}_ELECTRUM_PORT`, path: [...p('electrum'), 'port'], kind: 'int' },
    { name: `ADDRSUM_${chain}_ELECTRUM_TLS_PORT`, path: [...p('electrum'), 'tlsPort'], kind: 'int' },
    { name: `ADDRSUM_${chain}_ELECTRUM_TLS_CERT`, path: [...p('electrum'), 'tlsCert'], kind: 'text' },
    { name: `ADDRSUM_${chain}_ELECTRUM_TLS_KEY`, path: [...p('electrum'), 'tlsKey'], kind: 'text' },
  ];
}

/** Applied in this order, so a later binding of the same key wins (per-chain metrics port over the shared one). */
export const ENV_BINDINGS: readonly EnvBinding[] = Object.freeze([
  { name: 'ADDRSUM_DATA_DIR', path: ['dataDir'], kind: 'text' },
  { name: 'ADDRSUM_KEYS_URL', path: ['keysUrl'], kind: 'text' },
  { name: 'ADDRSUM_LOG_LEVEL', path: ['logLevel'], kind: 'text' },
  { name: 'ADDRSUM_LOG_FORMAT', path: ['logFormat'], kind: 'text' },
  { name: 'ADDRSUM_HOST', path: ['api', 'host'], kind: 'text' },
  { name: 'ADDRSUM_PORT', path: ['api', 'port'], kind: 'int' },
  { name: 'ADDRSUM_ALLOW_ANONYMOUS', path: ['api', 'allowAnonymous'], kind: 'text' },
  { name: 'ADDRSUM_ESPLORA', path: ['api', 'esplora'], kind: 'text' },
  { name: 'ADDRSUM_BLOCKBOOK', path: ['api', 'blockbook'], kind: 'text' },
  { name: 'ADDRSUM_BROADCAST', path: ['api', 'broadcast'], kind: 'text' },
  { name: 'ADDRSUM_SERVE_CHAINS', path: ['api', 'serveChains'], kind: 'list' },
  { name: 'ADDRSUM_API_WORKERS', path: ['api', 'workers'], kind: 'int' },
  { name: 'ADDRSUM_CORS_ORIGINS', path: ['api', 'corsOrigins'], kind: 'list' },
  { name: 'ADDRSUM_REDIS_URL', path: ['api', 'redisUrl'], kind: 'text' },
  { name: 'ADDRSUM_REDIS_FAILURE_MODE', path: ['api', 'redisFailureMode'], kind: 'text' },
  { name: 'ADDRSUM_STALE_AFTER_SECONDS', path: ['api', 'staleAfterSeconds'], kind: 'int' },
  { name: 'ADDRSUM_MAX_TIP_AGE_SECONDS', path: ['api', 'maxTipAgeSeconds'], kind: 'int' },
  { name: 'ADDRSUM_MAX_CONNECTIONS', path: ['api', 'maxConnections'], kind: 'int' },
  { name: 'ADDRSUM_REQUEST_TIMEOUT_MS', path: ['api', 'requestTimeoutMs'], kind: 'int' },
  { name: 'ADDRSUM_METRICS_ALLOW', path: ['api', 'metricsAllow'], kind: 'list' },
  { name: 'ADDRSUM_XPUB_MAX_RANGE', path: ['api', 'xpubMaxRange'], kind: 'int' },
  { name: 'ADDRSUM_WALLET_THREADS', path: ['api', 'walletThreads'], kind: 'int' },
  { name: 'ADDRSUM_WALLET_MAX_WAIT_SECONDS', path: ['api', 'walletMaxWaitSeconds'], kind: 'int' },
  { name: 'ADDRSUM_INVALID_KEY_RATE', path: ['api', 'invalidKeys', 'rate'], kind: 'int' },
  { name: 'ADDRSUM_INVALID_KEY_BURST', path: ['api', 'invalidKeys', 'burst'], kind: 'int' },
  { name: 'ADDRSUM_REQUEST_LOG', path: ['api', 'requestLog'], kind: 'text' },
  { name: 'ADDRSUM_SYNC_LAG_BLOCKS', path: ['api', 'syncLagBlocks'], kind: 'int' },
  { name: 'ADDRSUM_TRUST_PROXY_HOPS', path: ['api', 'trustProxyHops'], kind: 'int' },
  { name: 'ADDRSUM_BATCH_MAX_ADDRESSES', path: ['api', 'batchMaxAddresses'], kind: 'int' },
  { name: 'ADDRSUM_TIER_DEFAULT_RATE', path: ['api', 'tiers', 'default', 'rate'], kind: 'int' },
  { name: 'ADDRSUM_TIER_DEFAULT_BURST', path: ['api', 'tiers', 'default', 'burst'], kind: 'int' },
  { name: 'ADDRSUM_TIER_PRIVATE_RATE', path: ['api', 'tiers', 'private', 'rate'], kind: 'int' },
  { name: 'ADDRSUM_TIER_PRIVATE_BURST', path: ['api', 'tiers', 'private', 'burst'], kind: 'int' },
  { name: 'ADDRSUM_LIVE_POLL_MS', path: ['api', 'live', 'pollMs'], kind: 'int' },
  { name: 'ADDRSUM_LIVE_MAX_BUFFERED_BYTES', path: ['api', 'live', 'maxBufferedBytes'], kind: 'int' },
  { name: 'ADDRSUM_LIVE_AUTH_TIMEOUT_MS', path: ['api', 'live', 'authTimeoutMs'], kind: 'int' },
  { name: 'ADDRSUM_LIVE_CONNECTIONS_PER_NETWORK', path: ['api', 'live', 'connectionsPerNetwork'], kind: 'int' },
  {
    name: 'ADDRSUM_LIVE_SUBSCRIPTIONS_PER_CONNECTION_DEFAULT',
    path: ['api', 'live', 'subscriptionsPerConnection', 'default'],
    kind: 'int',
  },
  {
    name: 'ADDRSUM_LIVE_SUBSCRIPTIONS_PER_CONNECTION_PRIVATE',
    path: ['api', 'live', 'subscriptionsPerConnection', 'private'],
    kind: 'int',
  },
  { name: 'ADDRSUM_LIVE_SUBSCRIPTIONS_PER_KEY_DEFAULT', path: ['api', 'live', 'subscriptionsPerKey', 'default'], kind: 'int' },
  { name: 'ADDRSUM_LIVE_SUBSCRIPTIONS_PER_KEY_PRIVATE', path: ['api', 'live', 'subscriptionsPerKey', 'private'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_BROADCAST', path: ['electrum', 'broadcast'], kind: 'text' },
  { name: 'ADDRSUM_ELECTRUM_BANNER', path: ['electrum', 'banner'], kind: 'text' },
  { name: 'ADDRSUM_ELECTRUM_MAX_LINE_BYTES', path: ['electrum', 'maxLineBytes'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_MAX_BUFFERED_BYTES', path: ['electrum', 'maxBufferedBytes'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_CONNECTIONS_PER_NETWORK', path: ['electrum', 'connectionsPerNetwork'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_SUBSCRIPTIONS_PER_CONNECTION', path: ['electrum', 'subscriptionsPerConnection'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_MAX_HISTORY', path: ['electrum', 'maxHistory'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_IDLE_TIMEOUT_SECONDS', path: ['electrum', 'idleTimeoutSeconds'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_COST_SOFT_LIMIT', path: ['electrum', 'costSoftLimit'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_COST_HARD_LIMIT', path: ['electrum', 'costHardLimit'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_COST_DECAY_PER_SECOND', path: ['electrum', 'costDecayPerSecond'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_NETWORK_COST_SOFT_LIMIT', path: ['electrum', 'networkCostSoftLimit'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_NETWORK_COST_HARD_LIMIT', path: ['electrum', 'networkCostHardLimit'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_NETWORK_COST_DECAY_PER_SECOND', path: ['electrum', 'networkCostDecayPerSecond'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_MAX_DELAY_MS', path: ['electrum', 'maxDelayMs'], kind: 'int' },
  { name: 'ADDRSUM_ELECTRUM_TRUSTED_NETWORKS', path: ['electrum', 'trustedNetworks'], kind: 'list' },
  // One process runs one chain's indexer, so the shared variable sets both chains' ports.
  ...CHAIN_CODES.map((chain) => ({ name: 'ADDRSUM_METRICS_PORT', path: ['chains', chain, 'metricsPort'], kind: 'int' as const })),
  ...CHAIN_CODES.map((chain) => ({ name: 'ADDRSUM_UTXO_LIST', path: ['chains', chain, 'utxoList'], kind: 'text' as const })),
  ...CHAIN_CODES.map((chain) => ({ name: 'ADDRSUM_HISTORY', path: ['chains', chain, 'history'], kind: 'text' as const })),
  ...CHAIN_CODES.flatMap(chainBindings),
]);
