import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULTS_FILE,
  describeSettings,
  ENV_VARIABLES,
  isChainServed,
  keysDbPath,
  loadConfig,
  type Config,
} from '../../src/config.js';
import { redactUrl } from '../../src/redact.js';

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function tomlFile(text: string): string {
  const file = path.join(dir, `c${files++}.toml`);
  writeFileSync(file, text);
  return file;
}

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('are the operator contract defaults (README: Configuration)', () => {
    const c = loadConfig({ env: {} });
    expect(c.dataDir).toBe('./data');
    expect(c.api).toMatchObject({ host: '127.0.0.1', port: 8080, allowAnonymous: false, syncLagBlocks: 3 });
    expect(c.api.tiers).toEqual({ default: { rate: 5, burst: 10 }, private: { rate: 50, burst: 100 } });
    for (const chain of ['BTC', 'LTC'] as const) {
      expect(c.chains[chain]).toMatchObject({ network: 'mainnet', pollIntervalMs: 1000, undoDepth: 288, prefetch: 16 });
      expect(c.chains[chain].rpcUrl).toBeUndefined();
      expect(c.chains[chain].zmq).toBeUndefined();
    }
    expect(c.chains.BTC.metricsPort).not.toBe(c.chains.LTC.metricsPort);
    expect(keysDbPath(c)).toBe(path.resolve('data', 'keys.sqlite'));
  });

  it('are frozen all the way down', () => {
    const c = loadConfig({ env: {} });
    expect(Object.isFrozen(c) && Object.isFrozen(c.api.tiers.default) && Object.isFrozen(c.chains.LTC)).toBe(true);
    expect(() => {
      (c.api as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('config/default.toml comments every setting', () => {
    const lines = readFileSync(DEFAULTS_FILE, 'utf8').split('\n');
    let settings = 0;
    lines.forEach((line, i) => {
      if (/^\s*[A-Za-z]+\s*=/.test(line)) {
        settings += 1;
        expect(lines[i - 1], `comment above: ${line}`).toMatch(/^\s*#/);
      }
    });
    expect(settings).toBeGreaterThanOrEqual(15);
  });
});

describe('every setting has an environment variable', () => {
  // Containers are configured through their environment: a setting only a file can change is one a
  // Docker user cannot reach without mounting a file.
  it('binds every setting of the schema to at least one variable', () => {
    const settings = describeSettings();
    expect(settings.length).toBeGreaterThan(40);
    expect(settings.filter((s) => s.env.length === 0).map((s) => s.key)).toEqual([]);
  });

  it("config/default.toml names each setting's variables in the comment above it", () => {
    const settings = new Map(describeSettings().map((s) => [s.key, s.env]));
    const lines = readFileSync(DEFAULTS_FILE, 'utf8').split('\n');
    let section = '';
    // A setting's line, set or commented out (`# rpcUrl = "…"`): prose such as `# rate = sustained …`
    // under [api] names no setting, so it is not taken for one.
    const settingAt = (line: string): string | undefined => {
      const m = /^\s*(?:#\s*)?([A-Za-z]+)\s*=\s*\S/.exec(line);
      const key = m ? [section, m[1]].filter(Boolean).join('.') : undefined;
      return key !== undefined && settings.has(key) ? key : undefined;
    };
    const comments = new Map<string, string>();
    lines.forEach((line, i) => {
      const header = /^\[([A-Za-z.]+)\]/.exec(line);
      if (header) section = header[1]!;
      const key = header ? undefined : settingAt(line);
      if (key === undefined) return;
      const block: string[] = [];
      for (let j = i - 1; j >= 0 && /^\s*#/.test(lines[j]!) && settingAt(lines[j]!) === undefined; j--) block.push(lines[j]!);
      comments.set(key, block.join('\n'));
    });
    const missing = [...settings].flatMap(([key, env]) => {
      const comment = comments.get(key);
      if (comment === undefined) return [`${key}: not in the file`];
      return env.filter((v) => !new RegExp(`\\b${v}\\b`).test(comment)).map((v) => `${key}: ${v} not named`);
    });
    expect(missing).toEqual([]);
  });

  it('reads the variables of the settings that had none', () => {
    const c = loadConfig({
      env: {
        ADDRSUM_SYNC_LAG_BLOCKS: '7',
        ADDRSUM_TRUST_PROXY_HOPS: '2',
        ADDRSUM_BATCH_MAX_ADDRESSES: '50',
        ADDRSUM_TIER_DEFAULT_RATE: '3',
        ADDRSUM_TIER_DEFAULT_BURST: '6',
        ADDRSUM_TIER_PRIVATE_RATE: '30',
        ADDRSUM_TIER_PRIVATE_BURST: '60',
        ADDRSUM_LIVE_POLL_MS: '500',
        ADDRSUM_LIVE_MAX_BUFFERED_BYTES: '65536',
        ADDRSUM_LIVE_AUTH_TIMEOUT_MS: '2000',
        ADDRSUM_LIVE_CONNECTIONS_PER_NETWORK: '8',
        ADDRSUM_LIVE_SUBSCRIPTIONS_PER_CONNECTION_DEFAULT: '11',
        ADDRSUM_LIVE_SUBSCRIPTIONS_PER_CONNECTION_PRIVATE: '12',
        ADDRSUM_LIVE_SUBSCRIPTIONS_PER_KEY_DEFAULT: '21',
        ADDRSUM_LIVE_SUBSCRIPTIONS_PER_KEY_PRIVATE: '22',
        ADDRSUM_BTC_MEMPOOL_POLL_MS: '2000',
        ADDRSUM_BTC_POLL_INTERVAL_MS: '3000',
        ADDRSUM_BTC_UNDO_DEPTH: '100',
        ADDRSUM_BTC_PREFETCH: '4',
        ADDRSUM_BTC_COMMIT_INTERVAL_MS: '0',
        ADDRSUM_LTC_UNDO_DEPTH: '500',
      },
    });
    expect(c.api).toMatchObject({ syncLagBlocks: 7, trustProxyHops: 2, batchMaxAddresses: 50 });
    expect(c.api.tiers).toEqual({ default: { rate: 3, burst: 6 }, private: { rate: 30, burst: 60 } });
    expect(c.api.live).toEqual({
      pollMs: 500,
      maxBufferedBytes: 65536,
      authTimeoutMs: 2000,
      connectionsPerNetwork: 8,
      subscriptionsPerConnection: { default: 11, private: 12 },
      subscriptionsPerKey: { default: 21, private: 22 },
    });
    expect(c.chains.BTC).toMatchObject({ mempoolPollMs: 2000, pollIntervalMs: 3000, undoDepth: 100, prefetch: 4, commitIntervalMs: 0 });
    // Per-chain variables set their chain only.
    expect(c.chains.LTC).toMatchObject({ mempoolPollMs: 1000, pollIntervalMs: 1000, undoDepth: 500, prefetch: 16, commitIntervalMs: 1000 });
  });
});

describe('sources', () => {
  it('reads every documented variable from the environment', () => {
    const c = loadConfig({
      env: {
        ADDRSUM_DATA_DIR: '/var/lib/addrsum',
        ADDRSUM_HOST: '0.0.0.0',
        ADDRSUM_PORT: '9999',
        ADDRSUM_BTC_NETWORK: 'testnet',
        ADDRSUM_LTC_NETWORK: 'regtest',
        ADDRSUM_BTC_RPC_URL: 'http://u:p@127.0.0.1:8332',
        ADDRSUM_LTC_RPC_URL: 'http://127.0.0.1:19443',
        ADDRSUM_BTC_ZMQ: 'tcp://127.0.0.1:28332',
        ADDRSUM_LTC_ZMQ: 'tcp://127.0.0.1:28333',
        ADDRSUM_ALLOW_ANONYMOUS: 'true',
        ADDRSUM_METRICS_PORT: '9500',
      },
    });
    expect(c.dataDir).toBe('/var/lib/addrsum');
    expect(c.api).toMatchObject({ host: '0.0.0.0', port: 9999, allowAnonymous: true });
    expect(c.chains.BTC).toMatchObject({
      network: 'testnet',
      rpcUrl: 'http://u:p@127.0.0.1:8332',
      zmq: 'tcp://127.0.0.1:28332',
      metricsPort: 9500,
    });
    expect(c.chains.LTC).toMatchObject({
      network: 'regtest',
      rpcUrl: 'http://127.0.0.1:19443',
      zmq: 'tcp://127.0.0.1:28333',
      metricsPort: 9500,
    });
    for (const name of [
      'ADDRSUM_CONFIG',
      'ADDRSUM_DATA_DIR',
      'ADDRSUM_HOST',
      'ADDRSUM_PORT',
      'ADDRSUM_BTC_NETWORK',
      'ADDRSUM_LTC_NETWORK',
      'ADDRSUM_BTC_RPC_URL',
      'ADDRSUM_LTC_RPC_URL',
      'ADDRSUM_BTC_ZMQ',
      'ADDRSUM_LTC_ZMQ',
      'ADDRSUM_ALLOW_ANONYMOUS',
      'ADDRSUM_METRICS_PORT',
    ]) {
      expect(ENV_VARIABLES).toContain(name);
    }
  });

  it('layers defaults < ADDRSUM_CONFIG file < environment; a per-chain metrics port beats the shared one', () => {
    const file = tomlFile(
      'logLevel = "debug"\n[api]\nport = 7000\nsyncLagBlocks = 6\n[api.tiers.default]\nrate = 1\n[chains.LTC]\nnetwork = "testnet"\nrpcCookieFile = "/x/.cookie"\n',
    );
    const c = loadConfig({
      env: { ADDRSUM_CONFIG: file, ADDRSUM_PORT: '7001', ADDRSUM_METRICS_PORT: '9600', ADDRSUM_LTC_METRICS_PORT: '9601' },
    });
    expect(c.logLevel).toBe('debug');
    expect(c.api.port).toBe(7001);
    expect(c.api.syncLagBlocks).toBe(6);
    expect(c.api.tiers.default).toEqual({ rate: 1, burst: 10 });
    expect(c.chains.LTC).toMatchObject({ network: 'testnet', rpcCookieFile: '/x/.cookie', metricsPort: 9601 });
    expect(c.chains.BTC.metricsPort).toBe(9600);
  });

  it('treats an empty variable as unset', () => {
    const c = loadConfig({ env: { ADDRSUM_PORT: '', ADDRSUM_LTC_RPC_URL: '', ADDRSUM_CONFIG: '' } });
    expect(c.api.port).toBe(8080);
    expect(c.chains.LTC.rpcUrl).toBeUndefined();
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['off', false],
  ])('ADDRSUM_ALLOW_ANONYMOUS=%s → %s', (value, expected) => {
    expect(loadConfig({ env: { ADDRSUM_ALLOW_ANONYMOUS: value } }).api.allowAnonymous).toBe(expected);
  });
});

describe('invalid values stop the process with one line naming the key', () => {
  it.each<[Record<string, string>, string]>([
    [{ ADDRSUM_LTC_NETWORK: 'mainet' }, 'ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest (got "mainet")'],
    [{ ADDRSUM_LTC_NETWORK: 'signet' }, 'ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest (got "signet")'],
    [
      { ADDRSUM_BTC_NETWORK: 'testnet3' },
      'ADDRSUM_BTC_NETWORK: expected one of mainnet, testnet, regtest, signet, testnet4 (got "testnet3")',
    ],
    [{ ADDRSUM_PORT: '80x' }, 'ADDRSUM_PORT: expected an integer from 0 to 65535 (got "80x")'],
    [{ ADDRSUM_PORT: '70000' }, 'ADDRSUM_PORT: expected an integer from 0 to 65535 (got 70000)'],
    [{ ADDRSUM_ALLOW_ANONYMOUS: 'sure' }, 'ADDRSUM_ALLOW_ANONYMOUS: expected true or false (also 1/0, yes/no, on/off) (got "sure")'],
    [
      { ADDRSUM_BTC_ZMQ: 'localhost:28332' },
      'ADDRSUM_BTC_ZMQ: expected a ZMQ endpoint such as tcp://127.0.0.1:28332 (got "localhost:28332")',
    ],
    [{ ADDRSUM_METRICS_PORT: '-1' }, 'ADDRSUM_METRICS_PORT: expected an integer from 0 to 65535 (got "-1")'],
    [{ ADDRSUM_LOG_LEVEL: 'loud' }, 'ADDRSUM_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ ADDRSUM_LTC_UNDO_DEPTH: '3' }, 'ADDRSUM_LTC_UNDO_DEPTH: expected an integer from 6 to 100000 (got 3)'],
    [{ ADDRSUM_TIER_PRIVATE_BURST: 'lots' }, 'ADDRSUM_TIER_PRIVATE_BURST: expected an integer from 1 to 1000000 (got "lots")'],
    [{ ADDRSUM_CONFIG: '/nonexistent/addrsum.toml' }, 'ADDRSUM_CONFIG: cannot read /nonexistent/addrsum.toml (ENOENT)'],
  ])('%j', (env, message) => {
    expect(errorOf(env)).toBe(message);
  });

  it('names the file and key for bad file values, unknown keys and TOML syntax', () => {
    const bad = tomlFile('[api]\nsyncLagBlocks = -2\n');
    expect(errorOf({ ADDRSUM_CONFIG: bad })).toBe(`${bad}: api.syncLagBlocks: expected an integer from 0 to 1000000 (got -2)`);
    const typo = tomlFile('[chains.LTC]\nnetwrk = "testnet"\n');
    expect(errorOf({ ADDRSUM_CONFIG: typo })).toBe(
      `${typo}: chains.LTC.netwrk: unknown setting (check the spelling against config/default.toml)`,
    );
    const chain = tomlFile('[chains.DOGE]\nnetwork = "mainnet"\n');
    expect(errorOf({ ADDRSUM_CONFIG: chain })).toContain('chains.DOGE: unknown setting');
    const syntax = tomlFile('[api\nport = 1\n');
    expect(errorOf({ ADDRSUM_CONFIG: syntax })).toMatch(new RegExp(`^ADDRSUM_CONFIG: ${syntax}: .*\\(line \\d+, column \\d+\\)$`));
    const tier = tomlFile('[api.tiers.private]\nburst = 0\n');
    expect(errorOf({ ADDRSUM_CONFIG: tier })).toBe(`${tier}: api.tiers.private.burst: expected an integer from 1 to 1000000 (got 0)`);
  });

  it('never prints an RPC URL, which may carry a password', () => {
    const message = errorOf({ ADDRSUM_BTC_RPC_URL: 'ftp://user:hunter2@127.0.0.1:8332' });
    expect(message).toMatch(/^ADDRSUM_BTC_RPC_URL: expected an http/);
    expect(message).not.toContain('hunter2');
    // The node's RPC server has no TLS: https:// is refused at start, not deep inside the node client.
    expect(errorOf({ ADDRSUM_LTC_RPC_URL: 'https://u:hunter2@127.0.0.1:9332' })).toMatch(
      /^ADDRSUM_LTC_RPC_URL: expected an http:\/\/ URL \(the node has no TLS\)/,
    );
    const file = tomlFile('[chains.LTC]\nrpcUrl = "nope://a:hunter2@x"\n');
    expect(errorOf({ ADDRSUM_CONFIG: file })).not.toContain('hunter2');
  });

  it('a process entry prints the line and exits 1', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/keys/addrsum-keys.ts', 'list'], {
      env: { ...process.env, ADDRSUM_LTC_NETWORK: 'mainet', ADDRSUM_DATA_DIR: dir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'addrsum: invalid configuration: ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest (got "mainet")',
    ]);
  });
});

describe('api.serveChains (ADDRSUM_SERVE_CHAINS): which chains the API answers for', () => {
  const served = (c: Config) => (['BTC', 'LTC'] as const).filter((chain) => isChainServed(c, chain));

  it('unset: the chains whose RPC URL is set, as before', () => {
    expect(loadConfig({ env: {} }).api.serveChains).toBeUndefined();
    expect(served(loadConfig({ env: {} }))).toEqual([]);
    expect(served(loadConfig({ env: { ADDRSUM_LTC_RPC_URL: 'http://u:p@127.0.0.1:9332' } }))).toEqual(['LTC']);
  });

  it('set: exactly the listed chains, with no RPC URL needed (the API never calls the nodes)', () => {
    const c = loadConfig({ env: { ADDRSUM_SERVE_CHAINS: ' BTC, LTC ,' } });
    expect(c.api.serveChains).toEqual(['BTC', 'LTC']);
    expect(c.chains.BTC.rpcUrl).toBeUndefined();
    expect(served(c)).toEqual(['BTC', 'LTC']);
    // The list wins over RPC URLs: an RPC URL alone no longer makes the API serve a chain.
    expect(served(loadConfig({ env: { ADDRSUM_SERVE_CHAINS: 'LTC', ADDRSUM_BTC_RPC_URL: 'http://u:p@127.0.0.1:8332' } }))).toEqual(['LTC']);
  });

  it('reads a TOML list, and the environment wins over the file', () => {
    const file = tomlFile('[api]\nserveChains = ["BTC"]\n');
    expect(served(loadConfig({ env: { ADDRSUM_CONFIG: file } }))).toEqual(['BTC']);
    expect(served(loadConfig({ env: { ADDRSUM_CONFIG: file, ADDRSUM_SERVE_CHAINS: 'LTC' } }))).toEqual(['LTC']);
  });

  it('refuses an unknown chain or an empty list, naming the setting', () => {
    expect(errorOf({ ADDRSUM_SERVE_CHAINS: 'BTC,DOGE' })).toBe('ADDRSUM_SERVE_CHAINS: expected one of BTC, LTC (got "DOGE")');
    expect(errorOf({ ADDRSUM_SERVE_CHAINS: 'btc' })).toBe('ADDRSUM_SERVE_CHAINS: expected one of BTC, LTC (got "btc")');
    expect(errorOf({ ADDRSUM_SERVE_CHAINS: ',' })).toBe('ADDRSUM_SERVE_CHAINS: expected at least one of BTC, LTC (got [])');
    const file = tomlFile('[api]\nserveChains = "BTC"\n');
    expect(errorOf({ ADDRSUM_CONFIG: file })).toBe(`${file}: api.serveChains: expected a list of BTC, LTC (got "BTC")`);
  });
});

describe('logFormat (ADDRSUM_LOG_FORMAT)', () => {
  it('is auto by default and takes json or pretty', () => {
    expect(loadConfig({ env: {} }).logFormat).toBe('auto');
    expect(loadConfig({ env: { ADDRSUM_LOG_FORMAT: 'json' } }).logFormat).toBe('json');
    expect(loadConfig({ env: { ADDRSUM_LOG_FORMAT: 'pretty' } }).logFormat).toBe('pretty');
    expect(errorOf({ ADDRSUM_LOG_FORMAT: 'text' })).toBe('ADDRSUM_LOG_FORMAT: expected one of auto, json, pretty (got "text")');
  });
});

describe('api.requestLog (ADDRSUM_REQUEST_LOG)', () => {
  it('is all by default and takes errors or off', () => {
    expect(loadConfig({ env: {} }).api.requestLog).toBe('all');
    expect(loadConfig({ env: { ADDRSUM_REQUEST_LOG: 'errors' } }).api.requestLog).toBe('errors');
    expect(loadConfig({ env: { ADDRSUM_REQUEST_LOG: 'off' } }).api.requestLog).toBe('off');
    expect(errorOf({ ADDRSUM_REQUEST_LOG: 'none' })).toBe('ADDRSUM_REQUEST_LOG: expected one of all, errors, off (got "none")');
  });
});

describe('Electrum settings (docs/electrum.md)', () => {
  it('are off by default, with the limits of config/default.toml', () => {
    const c = loadConfig({ env: {} });
    expect(c.electrum).toEqual({
      broadcast: false,
      banner: 'addrsum Electrum server',
      maxLineBytes: 1_000_000,
      maxBufferedBytes: 4_194_304,
      connectionsPerNetwork: 32,
      subscriptionsPerConnection: 50_000,
      maxHistory: 200_000,
      idleTimeoutSeconds: 600,
      costSoftLimit: 10_000,
      costHardLimit: 100_000,
      costDecayPerSecond: 100,
      networkCostSoftLimit: 40_000,
      networkCostHardLimit: 400_000,
      networkCostDecayPerSecond: 400,
      maxDelayMs: 2000,
      trustedNetworks: ['127.0.0.1', '::1'],
    });
    expect(c.chains.BTC.electrum).toEqual({});
    expect(c.chains.LTC.electrum).toEqual({});
  });

  it('reads every variable', () => {
    const c = loadConfig({
      env: {
        ADDRSUM_HISTORY: 'true',
        ADDRSUM_UTXO_LIST: 'true',
        ADDRSUM_ELECTRUM_BROADCAST: 'yes',
        ADDRSUM_ELECTRUM_BANNER: 'hello',
        ADDRSUM_ELECTRUM_MAX_LINE_BYTES: '2048',
        ADDRSUM_ELECTRUM_MAX_BUFFERED_BYTES: '65536',
        ADDRSUM_ELECTRUM_CONNECTIONS_PER_NETWORK: '3',
        ADDRSUM_ELECTRUM_SUBSCRIPTIONS_PER_CONNECTION: '7',
        ADDRSUM_ELECTRUM_MAX_HISTORY: '11',
        ADDRSUM_ELECTRUM_IDLE_TIMEOUT_SECONDS: '9',
        ADDRSUM_ELECTRUM_COST_SOFT_LIMIT: '21',
        ADDRSUM_ELECTRUM_COST_HARD_LIMIT: '22',
        ADDRSUM_ELECTRUM_COST_DECAY_PER_SECOND: '23',
        ADDRSUM_ELECTRUM_NETWORK_COST_SOFT_LIMIT: '24',
        ADDRSUM_ELECTRUM_NETWORK_COST_HARD_LIMIT: '25',
        ADDRSUM_ELECTRUM_NETWORK_COST_DECAY_PER_SECOND: '26',
        ADDRSUM_ELECTRUM_MAX_DELAY_MS: '27',
        ADDRSUM_ELECTRUM_TRUSTED_NETWORKS: '10.0.0.0/8, 2001:db8::/32',
        ADDRSUM_LTC_ELECTRUM_PORT: '50001',
        ADDRSUM_LTC_ELECTRUM_TLS_PORT: '50002',
        ADDRSUM_LTC_ELECTRUM_TLS_CERT: '/etc/c.pem',
        ADDRSUM_LTC_ELECTRUM_TLS_KEY: '/etc/k.pem',
      },
    });
    expect(c.electrum).toEqual({
      broadcast: true,
      banner: 'hello',
      maxLineBytes: 2048,
      maxBufferedBytes: 65536,
      connectionsPerNetwork: 3,
      subscriptionsPerConnection: 7,
      maxHistory: 11,
      idleTimeoutSeconds: 9,
      costSoftLimit: 21,
      costHardLimit: 22,
      costDecayPerSecond: 23,
      networkCostSoftLimit: 24,
      networkCostHardLimit: 25,
      networkCostDecayPerSecond: 26,
      maxDelayMs: 27,
      trustedNetworks: ['10.0.0.0/8', '2001:db8::/32'],
    });
    expect(c.chains.LTC.electrum).toEqual({ port: 50001, tlsPort: 50002, tlsCert: '/etc/c.pem', tlsKey: '/etc/k.pem' });
  });

  it('refuses a hard cost limit not above its soft one, and a trusted network that is not one, naming the variable', () => {
    expect(errorOf({ ADDRSUM_ELECTRUM_COST_HARD_LIMIT: '10000' })).toContain('ADDRSUM_ELECTRUM_COST_HARD_LIMIT');
    expect(errorOf({ ADDRSUM_ELECTRUM_NETWORK_COST_SOFT_LIMIT: '400000' })).toContain('ADDRSUM_ELECTRUM_NETWORK_COST_HARD_LIMIT');
    expect(errorOf({ ADDRSUM_ELECTRUM_TRUSTED_NETWORKS: '127.0.0.1,localhost' })).toContain('ADDRSUM_ELECTRUM_TRUSTED_NETWORKS');
    // An empty list in the file: every network metered, loopback too.
    const none = tomlFile('[electrum]\ntrustedNetworks = []\n');
    expect(loadConfig({ env: { ADDRSUM_CONFIG: none } }).electrum.trustedNetworks).toEqual([]);
  });

  it('refuses an Electrum port on a chain whose history is off, naming ADDRSUM_HISTORY', () => {
    const plain = errorOf({ ADDRSUM_LTC_ELECTRUM_PORT: '50001' });
    expect(plain).toContain('ADDRSUM_LTC_ELECTRUM_PORT');
    expect(plain).toContain('ADDRSUM_HISTORY');
    const tls = errorOf({ ADDRSUM_HISTORY: 'true', ADDRSUM_BTC_HISTORY: 'false', ADDRSUM_BTC_ELECTRUM_TLS_PORT: '50002' });
    expect(tls).toContain('ADDRSUM_BTC_ELECTRUM_TLS_PORT');
    expect(tls).toContain('ADDRSUM_HISTORY');
    const served = loadConfig({ env: { ADDRSUM_LTC_HISTORY: 'true', ADDRSUM_LTC_UTXO_LIST: 'true', ADDRSUM_LTC_ELECTRUM_PORT: '50001' } });
    expect(served.chains.LTC.electrum.port).toBe(50001);
  });

  it('refuses an Electrum port on a chain without the UTXO listing (listunspent), naming ADDRSUM_UTXO_LIST', () => {
    const message = errorOf({ ADDRSUM_HISTORY: 'true', ADDRSUM_LTC_ELECTRUM_PORT: '50001' });
    expect(message).toContain('ADDRSUM_LTC_ELECTRUM_PORT');
    expect(message).toContain('ADDRSUM_UTXO_LIST');
    expect(message).toContain('listunspent');
  });

  it('refuses a TLS port without its certificate and key, naming both variables', () => {
    const message = errorOf({
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_TLS_PORT: '50002',
      ADDRSUM_LTC_ELECTRUM_TLS_CERT: '/c',
    });
    expect(message).toContain('ADDRSUM_LTC_ELECTRUM_TLS_CERT');
    expect(message).toContain('ADDRSUM_LTC_ELECTRUM_TLS_KEY');
  });

  it('refuses a line limit below 1024 bytes', () => {
    expect(errorOf({ ADDRSUM_ELECTRUM_MAX_LINE_BYTES: '10' })).toBe(
      'ADDRSUM_ELECTRUM_MAX_LINE_BYTES: expected an integer from 1024 to 16777216 (got 10)',
    );
  });
});

describe('redactUrl', () => {
  it('hides credentials and keeps the rest', () => {
    expect(redactUrl('http://user:hunter2@127.0.0.1:8332/wallet/x')).toBe('http://***:***@127.0.0.1:8332/wallet/x');
    expect(redactUrl('http://127.0.0.1:8332')).toBe('http://127.0.0.1:8332/');
    expect(redactUrl('not a url hunter2')).toBe('<unparseable URL>');
  });
});

// Compile-time check: the parsed type is readonly.
const _readonly = (c: Config) => {
  // @ts-expect-error api.port is readonly
  c.api.port = 1;
};
void _readonly;
