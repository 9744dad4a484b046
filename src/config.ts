/**
 * The one configuration of addrsum, parsed once at process start and frozen.
 *
 * Sources, lowest to highest precedence:
 *   1. config/default.toml (every setting, commented; the only place defaults are written),
 *   2. the TOML file named by ADDRSUM_CONFIG (optional; only the keys it sets),
 *   3. environment variables (ENV_BINDINGS below; an empty value counts as unset).
 * Every leaf remembers where it came from, so a bad value is reported as ONE line naming the variable or
 * file key and what is allowed, e.g. `ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest
 * (got "mainet")`. Values of secret settings (RPC URLs carry passwords) are never echoed.
 */
import path from 'node:path';
import { z } from 'zod';
import { CHAIN_CODES, networkNames, type ChainCode, type NetworkName } from './chain/params.js';
import { packageFile } from './package-root.js';
import { ConfigError, deepFreeze, getPath, merge, readToml, setPath, type Origins, type Table } from './config-sources.js';
import { isAddressOrRange } from './net-ranges.js';
import { ENV_BINDINGS, type EnvBinding } from './config-env.js';
import { bool, int, port, text } from './config-values.js';
import { chainElectrum, electrumProblem, electrumSettings } from './config-electrum.js';

export { ENV_BINDINGS };

export const DEFAULTS_FILE = packageFile('config', 'default.toml');

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export const REQUEST_LOG_MODES = ['all', 'errors', 'off'] as const;
export type RequestLogMode = (typeof REQUEST_LOG_MODES)[number];

// Bitcoin/Litecoin Core's RPC server speaks plain HTTP only (no TLS), so https:// is refused here rather
// than failing later inside the node client.
const rpcUrl = z.string({ error: 'expected an http:// URL' }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' && url.hostname !== '';
    } catch {
      return false;
    }
  },
  { error: 'expected an http:// URL (the node has no TLS), e.g. http://user:pass@127.0.0.1:8332' },
);

// ioredis's URL forms: redis:// (plain) and rediss:// (TLS); a database number may follow as the path.
const redisUrl = z.string({ error: 'expected a redis:// or rediss:// URL' }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
    } catch {
      return false;
    }
  },
  { error: 'expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' },
);

// node-postgres's connection strings: postgres:// or postgresql://, with a host (a socket folder goes in ?host=).
const postgresUrl = z.string({ error: 'expected a postgres:// URL' }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || url.searchParams.has('host'));
    } catch {
      return false;
    }
  },
  { error: 'expected a postgres:// URL, e.g. postgres://addrsum:secret@10.0.0.5:5432/addrsum' },
);

const zmqEndpoint = z
  .string({ error: 'expected a ZMQ endpoint such as tcp://127.0.0.1:28332' })
  .regex(/^(tcp:\/\/[^\s:]+:\d{1,5}|ipc:\/\/\S+)$/, { error: 'expected a ZMQ endpoint such as tcp://127.0.0.1:28332' });

const tierLimits = z.strictObject({
  /** Sustained requests per second (token refill rate). */
  rate: int(1, 1_000_000),
  /** Bucket size: how many requests may arrive at once after a quiet period. */
  burst: int(1, 1_000_000),
});

/** One chain's settings; the networks it accepts are its chain module's. */
const chainConfig = (chain: ChainCode) => {
  const networks = networkNames(chain) as [NetworkName, ...NetworkName[]];
  return z.strictObject({
    /** Which network the node runs; addresses of the chain's other networks answer WRONG_NETWORK. */
    network: z.enum(networks, { error: `expected one of ${networks.join(', ')}` }),
    /** Node JSON-RPC endpoint, http://user:pass@host:port. Unset = this chain is not served. Secret. */
    rpcUrl: rpcUrl.optional(),
    /**
     * PostgreSQL holding this chain's index (src/store/postgres/): the indexer writes the primary, each API
     * reads the URL it is given (the primary or a streaming standby). Unset = <dataDir>/<chain>.sqlite. Secret.
     */
    indexUrl: postgresUrl.optional(),
    /** Bitcoin Core `.cookie` file; when set, its credentials are used instead of any in rpcUrl. */
    rpcCookieFile: text('a file path').optional(),
    /** Node ZMQ `zmqpubhashblock` endpoint; unset = the indexer polls only. */
    zmq: zmqEndpoint.optional(),
    /** Follow the node's mempool into the index (answers `?mempool=true`). */
    mempool: bool(),
    /**
     * Keep the UTXO listing's index (…/utxos routes; src/store/sqlite/utxo-list.ts). Turning it on builds it
     * once at the indexer's start; turning it off drops it. Costs disk (BENCHMARKS.md).
     */
    utxoList: bool(),
    /**
     * Keep every script's confirmed history (issue 33; src/store/sqlite/history-store.ts): totals on the
     * summaries. It covers every block or none, so for now it starts only on an index with no block yet.
     */
    history: bool(),
    /** How often the mempool is reconciled with getrawmempool (the only source without ZMQ). */
    mempoolPollMs: int(50, 3_600_000),
    /** Node ZMQ endpoint publishing `rawtx` and `sequence`; unset = the `zmq` endpoint is asked for them too. */
    zmqMempool: zmqEndpoint.optional(),
    /** How often the indexer asks the node for its tip (also the fallback when a ZMQ message is lost). */
    pollIntervalMs: int(50, 3_600_000),
    /** How many recent blocks keep undo data; a reorg deeper than this stops the indexer. */
    undoDepth: int(6, 100_000),
    /** Blocks fetched from the node in parallel ahead of the one being applied. */
    prefetch: int(1, 1024),
    /**
     * During catch-up, a batch is committed early (before batchTxs) only when it is at least this old and
     * the next block has not arrived: fewer, larger transactions; at most this much work lost on a kill.
     */
    commitIntervalMs: int(0, 600_000),
    /** Port of the indexer's Prometheus listener (on api.host's interface family: 127.0.0.1 by default). */
    metricsPort: port(),
    /** Electrum protocol listeners of this chain (config-electrum.ts, docs/electrum.md). */
    electrum: chainElectrum,
  });
};
type ChainConfigSchema = ReturnType<typeof chainConfig>;

export const configSchema = z.strictObject({
  /** Directory of btc.sqlite, ltc.sqlite and keys.sqlite (relative paths: from the working directory). */
  dataDir: text('a directory path'),
  /** PostgreSQL holding the API keys, shared by every API machine naming it; unset = keys.sqlite in dataDir. Secret. */
  keysUrl: postgresUrl.optional(),
  /** pino log level. */
  logLevel: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }),
  /**
   * `json`: one JSON object per line (for collectors); `pretty`: coloured text for a terminal; `auto`:
   * pretty when stdout is a terminal, else JSON (so a service manager or a pipe always gets JSON).
   */
  logFormat: z.enum(LOG_FORMATS, { error: `expected one of ${LOG_FORMATS.join(', ')}` }),
  api: z.strictObject({
    /** Listen address of the HTTP API. */
    host: text('a host name or IP address'),
    /** Listen port of the HTTP API (0 = any free port). */
    port: port(),
    /** Serve requests without x-api-key, limited per client IP at the `default` tier. */
    allowAnonymous: bool(),
    /** Serve the Esplora dialect at /esplora/{chain}/api (src/api/esplora/): requests without a key too. */
    esplora: bool(),
    /** Serve the Blockbook dialect at /blockbook/{chain} (src/api/blockbook/): requests without a key too. */
    blockbook: bool(),
    /** Relay transactions sent to the HTTP dialects (Esplora's POST /tx) to the node; off, they are refused. */
    broadcast: bool(),
    /** Answer 503 CHAIN_SYNCING while the node is more than this many blocks ahead of the index. */
    syncLagBlocks: int(0, 1_000_000),
    /** Reverse proxies in front of the API whose X-Forwarded-For is trusted for the client IP (0 = none). */
    trustProxyHops: int(0, 10),
    /**
     * Browser origins allowed to call the API (CORS), exactly as a browser sends them:
     * `scheme://host[:port]`, no path, no trailing slash. Empty = no cross-origin access.
     */
    corsOrigins: z.array(
      z
        .string()
        .regex(/^https?:\/\/[^/\s]+$/, { error: 'expected an origin such as https://wallet.example.com (scheme://host[:port], no path)' }),
    ),
    /** Most addresses in one POST …/addresses batch (each costs one request of the caller's limit). */
    batchMaxAddresses: int(1, 10_000),
    /**
     * Most indices per branch one xpub request may ask for (`?range=`, default 1000). A bare key has two
     * branches, so a request derives at most twice this many scripts.
     */
    xpubMaxRange: int(1, 100_000),
    /** Worker threads deriving wallets (src/api/derivation-pool.ts); 0 = one fewer than the cores, 1 to 4. */
    walletThreads: int(0, 64),
    /** A wallet that would wait longer than this behind the derivation queue is refused with Retry-After. */
    walletMaxWaitSeconds: int(1, 3600),
    /** Request limits per tier: `default` (anonymous, `--tier default` keys) and `private`. */
    tiers: z.strictObject({ default: tierLimits, private: tierLimits }),
    /**
     * Chains the API answers for. Unset = every chain whose rpcUrl is set; setting it lets the API run
     * without the nodes' credentials (it reads the indexes, never the nodes).
     */
    serveChains: z
      .array(z.enum(CHAIN_CODES as [ChainCode, ...ChainCode[]], { error: `expected one of ${CHAIN_CODES.join(', ')}` }), {
        error: `expected a list of ${CHAIN_CODES.join(', ')}`,
      })
      .min(1, { error: `expected at least one of ${CHAIN_CODES.join(', ')}` })
      .optional(),
    /** API processes sharing the port (node:cluster); 1 = this process serves alone. SIGHUP restarts them one by one. */
    workers: int(1, 64),
    /** Redis holding the token buckets, shared by every API process that names it; unset = in-process buckets. Secret (may hold a password). */
    redisUrl: redisUrl.optional(),
    /** While Redis is unreachable: `fail-open` serves from in-process buckets, `fail-closed` answers 503 LIMITS_UNAVAILABLE. */
    redisFailureMode: z.enum(['fail-open', 'fail-closed'], { error: 'expected fail-open or fail-closed' }),
    /** Requests with a wrong x-api-key, per client address (IPv6: per /64), checked before the key lookup. */
    invalidKeys: tierLimits,
    /** A chain stops answering (503, /ready false) when its indexer has not heard from the node for this long. 0 = off. */
    staleAfterSeconds: int(0, 30 * 86_400),
    /**
     * A chain stops answering when its tip block's header time is older than this. 0 = off. Unset = per
     * network (src/serving/chain-state.ts): mainnet BTC 7200, LTC 3600; off on test networks and regtest.
     */
    maxTipAgeSeconds: int(0, 365 * 86_400).optional(),
    /** Open connections at most; beyond it the oldest idle connection is closed (else the new one is refused). */
    maxConnections: int(16, 1_000_000),
    /** Total time for one request, from its first byte to the end of the answer; slower sockets are closed. */
    requestTimeoutMs: int(1000, 600_000),
    /**
     * Client addresses (IPs or CIDR ranges) that may read /metrics; others get 404 as for an unknown
     * route, so a flood of scrapes costs no render. Unset = anyone. Matched against the connection's peer
     * address, never X-Forwarded-For.
     */
    metricsAllow: z.array(z.string().refine(isAddressOrRange, { error: 'expected IP addresses or CIDR ranges' })).optional(),
    /**
     * Which answers get a request log line: `all`, `errors` (status 400 and above: what someone reads the
     * log for) or `off`. The request metrics count every request either way.
     */
    requestLog: z.enum(REQUEST_LOG_MODES, { error: `expected one of ${REQUEST_LOG_MODES.join(', ')}` }),
    /** Live pushes (WebSocket /api/v1/ws and …/address/{address}/events); src/api/live/limits.ts. */
    live: z.strictObject({
      /** How often each API process reads the change feed while anyone listens. */
      pollMs: int(50, 10_000),
      /** Unsent bytes a client may leave unread before it is disconnected (slow consumer). */
      maxBufferedBytes: int(16_384, 64 * 1024 * 1024),
      /** A WebSocket opened without a key must send its auth message within this (anonymous-serving APIs: or stay anonymous). */
      authTimeoutMs: int(100, 600_000),
      /** WebSockets one client network may hold open at once (live/limits.ts says why). */
      connectionsPerNetwork: int(1, 1_000_000),
      /** Addresses one WebSocket connection may watch, per tier. */
      subscriptionsPerConnection: z.strictObject({ default: int(1, 1_000_000), private: int(1, 1_000_000) }),
      /** Addresses one key (anonymous: one client network) may watch in one API process, per tier. */
      subscriptionsPerKey: z.strictObject({ default: int(1, 10_000_000), private: int(1, 10_000_000) }),
    }),
  }),
  /** The Electrum protocol server's shared settings (config-electrum.ts, docs/electrum.md). */
  electrum: electrumSettings,
  /** One entry per chain of the registry (src/chain/registry.ts), keyed by its code. */
  chains: z.strictObject(Object.fromEntries(CHAIN_CODES.map((c) => [c, chainConfig(c)])) as Record<ChainCode, ChainConfigSchema>),
});

type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
export type Config = DeepReadonly<z.infer<typeof configSchema>>;
export type ChainConfig = Config['chains'][ChainCode];
export type TierLimits = Config['api']['tiers']['default'];

/** Settings whose values must never appear in output (they can carry passwords). */
const SECRET_KEYS = new Set(['rpcUrl', 'redisUrl', 'keysUrl', 'indexUrl']);

/** Every environment variable the code reads (for docs and the docker-compose check). */
export const ENV_VARIABLES: readonly string[] = Object.freeze(['ADDRSUM_CONFIG', ...new Set(ENV_BINDINGS.map((b) => b.name))]);

export { ConfigError };

function describeIssue(issue: z.core.$ZodIssue, raw: Table, origins: Origins): string {
  const at = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = [...at, issue.keys[0] ?? '?'];
    const where = origins.get(key.join('.')) ?? key.join('.');
    return `${where}: unknown setting (check the spelling against config/default.toml)`;
  }
  const dotted = at.join('.');
  // A list item has no origin of its own: name the setting that holds it.
  const holder = at.map((_, i) => at.slice(0, at.length - i).join('.')).find((p) => origins.has(p));
  const where = (holder === undefined ? undefined : origins.get(holder)) ?? dotted;
  const value = getPath(raw, issue.path);
  if (value === undefined) return `${where}: missing; ${issue.message}`;
  const secret = SECRET_KEYS.has(at[at.length - 1] ?? '');
  return secret ? `${where}: ${issue.message}` : `${where}: ${issue.message} (got ${JSON.stringify(value)})`;
}

function envValue(kind: EnvBinding['kind'], value: string): unknown {
  if (kind === 'int' && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  if (kind === 'list')
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  return value;
}

export interface LoadConfigOptions {
  /** Environment to read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Defaults file (default config/default.toml of this checkout). */
  readonly defaultsFile?: string;
}

/** Loads, validates and freezes the configuration; throws ConfigError with a one-line message. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const origins: Origins = new Map();
  const raw: Table = {};
  merge(raw, readToml(options.defaultsFile ?? DEFAULTS_FILE, 'config/default.toml'), 'config/default.toml', origins);
  const file = env.ADDRSUM_CONFIG;
  if (file !== undefined && file !== '') merge(raw, readToml(file, 'ADDRSUM_CONFIG'), file, origins);
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.name];
    if (value === undefined || value === '') continue;
    const parsed = envValue(binding.kind, value);
    setPath(raw, binding.path, parsed);
    origins.set(binding.path.join('.'), binding.name);
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const first = result.error.issues[0];
    throw new ConfigError(first ? describeIssue(first, raw, origins) : 'invalid configuration');
  }
  // What no single value can say: settings that do not work together.
  const problem = electrumProblem(result.data);
  if (problem !== undefined) throw new ConfigError(problem);
  return deepFreeze(result.data);
}

/** For process entries: the config, or the one-line reason on stderr and exit code 1. */
export function loadConfigOrExit(options?: LoadConfigOptions): Config {
  try {
    return loadConfig(options);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`addrsum: invalid configuration: ${err.message}\n`);
    process.exit(1);
  }
}

/** Whether the API serves the chain: the ones api.serveChains names, else those with a node RPC URL. */
export function isChainServed(config: Config, chain: ChainCode): boolean {
  const listed = config.api.serveChains;
  return listed === undefined ? config.chains[chain].rpcUrl !== undefined : listed.includes(chain);
}

export function keysDbPath(config: Config): string {
  return path.resolve(config.dataDir, 'keys.sqlite');
}

/** Every setting's dotted key (`api.port`, `chains.<CODE>.rpcUrl`, …) with the variables that set it. */
export function describeSettings(): { key: string; env: string[] }[] {
  const keys: string[] = [];
  const walk = (schema: z.core.$ZodType, at: string[]): void => {
    const def = schema._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; innerType?: z.core.$ZodType };
    if (def.type === 'optional' && def.innerType) return walk(def.innerType, at);
    if (def.type === 'object' && def.shape) {
      for (const [k, v] of Object.entries(def.shape)) walk(v, [...at, k]);
      return;
    }
    keys.push(at.join('.'));
  };
  walk(configSchema, []);
  return keys.map((key) => ({ key, env: [...new Set(ENV_BINDINGS.filter((b) => b.path.join('.') === key).map((b) => b.name))] }));
}
