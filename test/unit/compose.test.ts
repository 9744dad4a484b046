/**
 * docker-compose.yml without a Docker engine: the file is valid against the official compose-spec JSON
 * schema (test/fixtures/compose-spec), and its services agree with the code's configuration — every
 * variable is one src/config.ts reads and loads cleanly, RPC URLs and ZMQ endpoints name the nodes'
 * listeners and credentials, the API's published port and Prometheus' targets are the configured ports,
 * the APIs hold no node credentials, and the commands run compiled dist/ files built from existing
 * sources. The profile scale-out is checked alike, as a stack of its own, and its PostgreSQL topology
 * with it: a standby streaming from the primary, the indexer writing the primary, the APIs reading a copy
 * of what it writes, every URL naming a database service. Where Debian's Compose v1 is installed, its own
 * `docker-compose config` accepts the file too. Each check is also run against a deliberately broken
 * copy, to prove it can fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildStack,
  checkApiCredentials,
  checkApiPort,
  checkConfigs,
  checkDataVolume,
  checkEnvironment,
  checkOperations,
  checkPostgres,
  checkPrometheus,
  checkProcesses,
  checkRpc,
  checkSecrets,
  checkZmq,
  cidrContains,
  type Stack,
} from '../support/compose-checks.js';
import { interpolate, InterpolationError, interpolateString } from '../support/compose-model.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A directory holding none of the entry files: as if they were renamed and the compose file missed it. */
const NO_ENTRIES_ROOT = `${ROOT}test/fixtures/compose-spec/`;
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');

/** `merge`: the file's `<<:` merge keys (YAML 1.1, which Compose reads) are applied as Compose does. */
const RAW_COMPOSE: unknown = parse(read('docker-compose.yml'), { merge: true });
const RAW_PROMETHEUS: unknown = parse(read('config/prometheus.yml'));
const DOCKERFILE = read('Dockerfile');
/** What an operator's .env holds (URL-safe, as the compose file's header asks). */
const DOT_ENV = {
  BTC_RPC_PASSWORD: 'btc0test0secret',
  LTC_RPC_PASSWORD: 'ltc0test0secret',
  PG_PASSWORD: 'pg0test0secret',
  PG_REPLICATION_PASSWORD: 'repl0test0secret',
};

/**
 * The compose-spec schema is draft 2019-09 but still carries draft-04 `id` members, which Ajv 8 refuses
 * ("use $id"). They are labels only here — every $ref is a local `#/definitions/...` pointer — so they
 * are dropped. Union types are the schema's style, hence allowUnionTypes; strictTypes is off because the
 * schema is not ours to tidy.
 */
function composeValidator() {
  const dropIds = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(dropIds)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k, x]) => !(k === 'id' && typeof x === 'string'))
              .map(([k, x]) => [k, dropIds(x)]),
          )
        : v;
  const schema = dropIds(JSON.parse(read('test/fixtures/compose-spec/compose-spec.json'))) as object;
  const ajv = new Ajv2019({ allErrors: true, allowUnionTypes: true, strictTypes: false });
  // compose-go's "expose" format: a port or range with an optional protocol.
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  return ajv.compile(schema);
}
const validateCompose = composeValidator();

function schemaErrors(doc: unknown): string[] {
  return validateCompose(doc) ? [] : (validateCompose.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const stackOf = (raw: unknown = RAW_COMPOSE, prometheus: unknown = RAW_PROMETHEUS, dockerfile = DOCKERFILE): Stack =>
  buildStack(raw, prometheus, dockerfile, DOT_ENV, ROOT);

type Json = Record<string, unknown>;
/** A deep copy of `doc` with the value at `at` replaced by `update(old)`. */
function edited(doc: unknown, at: readonly string[], update: (old: unknown) => unknown): unknown {
  const copy = structuredClone(doc) as Json;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Json;
  const last = at[at.length - 1] as string;
  node[last] = update(node[last]);
  return copy;
}
const setEnv = (service: string, key: string, value: string) => edited(RAW_COMPOSE, ['services', service, 'environment', key], () => value);
const mapFlag = (service: string, flag: string, value: string | null) =>
  edited(RAW_COMPOSE, ['services', service, 'command'], (cmd) =>
    (cmd as string[]).flatMap((a) => (a.startsWith(`-${flag}=`) ? (value === null ? [] : [`-${flag}=${value}`]) : [a])),
  );

const withoutKey = (map: unknown, key: string) => Object.fromEntries(Object.entries(map as Json).filter(([k]) => k !== key));
/** `postgres -c name=value` arguments: the value of `name` replaced. */
const setSetting = (service: string, name: string, value: string) =>
  edited(RAW_COMPOSE, ['services', service, 'command'], (cmd) =>
    (cmd as string[]).map((a) => (a.startsWith(`${name}=`) ? `${name}=${value}` : a)),
  );
/** The profile's database URLs, as the file writes them (the password left to .env). */
const PRIMARY_URL = 'postgres://addrsum:${PG_PASSWORD:?x}@postgres-primary:5432/addrsum';
const STANDBY_URL = PRIMARY_URL.replace('postgres-primary', 'postgres-standby');

const CHECKS = {
  environment: checkEnvironment,
  configs: checkConfigs,
  processes: checkProcesses,
  rpc: checkRpc,
  zmq: checkZmq,
  apiPort: checkApiPort,
  prometheus: checkPrometheus,
  dataVolume: checkDataVolume,
  operations: checkOperations,
  apiCredentials: checkApiCredentials,
  postgres: checkPostgres,
} as const;

describe('docker-compose.yml', () => {
  it('is valid against the compose-spec schema, as written and after interpolation', () => {
    expect(schemaErrors(RAW_COMPOSE)).toEqual([]);
    expect(schemaErrors(interpolate(RAW_COMPOSE, DOT_ENV))).toEqual([]);
  });

  it('stops with the variable named when an RPC password is missing or empty', () => {
    expect(() => interpolate(RAW_COMPOSE, { LTC_RPC_PASSWORD: 'x' })).toThrow(/^BTC_RPC_PASSWORD: set BTC_RPC_PASSWORD in \.env/);
    expect(() => interpolate(RAW_COMPOSE, { BTC_RPC_PASSWORD: 'x', LTC_RPC_PASSWORD: '' })).toThrow(InterpolationError);
    // Compose interpolates every service, so the profile's passwords are needed for a plain `up` too.
    expect(() => interpolate(RAW_COMPOSE, { BTC_RPC_PASSWORD: 'x', LTC_RPC_PASSWORD: 'x' })).toThrow(
      /^PG_PASSWORD: set PG_PASSWORD in \.env/,
    );
    expect(checkSecrets(RAW_COMPOSE)).toEqual([]);
  });

  it.each(Object.entries(CHECKS))('agrees with the code: %s', (_name, check) => {
    expect(check(stackOf())).toEqual([]);
  });

  it("reads ports with the code's precedence: the per-chain metrics port wins over ADDRSUM_METRICS_PORT", () => {
    expect(checkPrometheus(stackOf(setEnv('indexer-ltc', 'ADDRSUM_METRICS_PORT', '9500')))).toEqual([]);
  });
});

/** Each check against a copy broken on purpose: [what, check, broken stack, expected problem]. */
const BROKEN: Array<[string, keyof typeof CHECKS, () => Stack, RegExp]> = [
  [
    'a misspelt variable',
    'environment',
    () => stackOf(setEnv('indexer-btc', 'ADDRSUM_BTC_METRIC_PORT', '9410')),
    /indexer-btc: sets ADDRSUM_BTC_METRIC_PORT/,
  ],
  [
    'a variable no code reads in the Dockerfile',
    'environment',
    () => stackOf(RAW_COMPOSE, RAW_PROMETHEUS, `${DOCKERFILE}\nENV ADDRSUM_TIMEOUT=5\n`),
    /Dockerfile: ENV ADDRSUM_TIMEOUT/,
  ],
  [
    'a value the config refuses',
    'configs',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_LTC_NETWORK', 'mainet')),
    /indexer-ltc: .*ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest/,
  ],
  [
    'an indexer without its chain',
    'processes',
    () =>
      stackOf(
        edited(RAW_COMPOSE, ['services', 'indexer-ltc', 'command'], () => ['node', 'dist/indexer/addrsum-indexer.js', '--chain', 'BTC']),
      ),
    /expected one LTC indexer, found 0/,
  ],
  [
    'a command running neither process',
    'processes',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api', 'command'], () => ['node', 'dist/src/api/main.js'])),
    /api: command runs neither/,
  ],
  [
    'an entry file renamed in the repository',
    'processes',
    () => buildStack(RAW_COMPOSE, RAW_PROMETHEUS, DOCKERFILE, DOT_ENV, NO_ENTRIES_ROOT),
    /indexer-btc: entry dist\/indexer\/addrsum-indexer\.js is built from no source \(indexer\/addrsum-indexer\.ts does not exist\)/,
  ],
  [
    'an entry directory the build stage lacks',
    'processes',
    () => stackOf(RAW_COMPOSE, RAW_PROMETHEUS, DOCKERFILE.replace(/^COPY indexer .*$/m, '')),
    /indexer-ltc: the Dockerfile's build stage \(npm run build\) does not copy indexer\//,
  ],
  [
    'a command through tsx',
    'processes',
    () =>
      stackOf(
        edited(RAW_COMPOSE, ['services', 'indexer-btc', 'command'], () => [
          'node',
          '--import',
          'tsx',
          'dist/indexer/addrsum-indexer.js',
          '--chain',
          'BTC',
        ]),
      ),
    /indexer-btc: runs TypeScript through tsx/,
  ],
  [
    'a command through npm',
    'processes',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api', 'command'], () => ['npm', 'start', '--', 'dist/src/api/addrsum-api.js'])),
    /api: command starts with npm, not node/,
  ],
  [
    'an RPC URL on the P2P port',
    'rpc',
    () => stackOf(setEnv('indexer-btc', 'ADDRSUM_BTC_RPC_URL', 'http://addrsum:${BTC_RPC_PASSWORD:?x}@bitcoind:8333')),
    /uses port 8333, bitcoind has -rpcport=8332/,
  ],
  [
    'an RPC URL naming no service',
    'rpc',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_LTC_RPC_URL', 'http://addrsum:${LTC_RPC_PASSWORD:?x}@litecoin:9332')),
    /names host litecoin, which is no service/,
  ],
  [
    "RPC URLs naming the other chain's node",
    'rpc',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_LTC_RPC_URL', 'http://addrsum:${BTC_RPC_PASSWORD:?x}@bitcoind:8332')),
    /whose image is not a litecoin node/,
  ],
  [
    'other RPC credentials on the node',
    'rpc',
    () => stackOf(mapFlag('bitcoind', 'rpcuser', 'admin')),
    /user differs from bitcoind's -rpcuser/,
  ],
  [
    'an rpcallowip outside the compose network',
    'rpc',
    () => stackOf(mapFlag('litecoind', 'rpcallowip', '10.59.0.0/24')),
    /litecoind: no -rpcallowip covers the compose network 10\.58\.0\.0\/24/,
  ],
  ['a node without REST', 'rpc', () => stackOf(mapFlag('litecoind', 'rest', null)), /litecoind: -rest=1 is missing/],
  [
    'a node on another network',
    'rpc',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'bitcoind', 'command'], (c) => [...(c as string[]), '-testnet=1'])),
    /expects mainnet, bitcoind runs testnet/,
  ],
  [
    'a ZMQ port the node does not publish on',
    'zmq',
    () => stackOf(mapFlag('bitcoind', 'zmqpubhashblock', 'tcp://0.0.0.0:28334')),
    /ADDRSUM_BTC_ZMQ tcp:\/\/bitcoind:28332 matches no -zmqpubhashblock/,
  ],
  [
    'a node that publishes no mempool events',
    'zmq',
    () => stackOf(mapFlag('litecoind', 'zmqpubsequence', null)),
    /ADDRSUM_LTC_ZMQ tcp:\/\/litecoind:28333 matches no -zmqpubsequence of litecoind \(none\)/,
  ],
  [
    'rawtx on another port than the indexer listens on',
    'zmq',
    () => stackOf(mapFlag('bitcoind', 'zmqpubrawtx', 'tcp://0.0.0.0:28340')),
    /ADDRSUM_BTC_ZMQ tcp:\/\/bitcoind:28332 matches no -zmqpubrawtx/,
  ],
  [
    'a ZMQ endpoint on the other node',
    'zmq',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_LTC_ZMQ', 'tcp://bitcoind:28333')),
    /ADDRSUM_LTC_ZMQ names bitcoind, its RPC URL names litecoind/,
  ],
  [
    'an API port that is not published',
    'apiPort',
    () => stackOf(setEnv('api', 'ADDRSUM_PORT', '8081')),
    /no port mapping targets ADDRSUM_PORT 8081/,
  ],
  [
    'an API bound to loopback',
    'apiPort',
    () => stackOf(setEnv('api', 'ADDRSUM_HOST', '127.0.0.1')),
    /ADDRSUM_HOST 127\.0\.0\.1 is loopback/,
  ],
  [
    'a moved indexer metrics port',
    'prometheus',
    () => stackOf(setEnv('indexer-btc', 'ADDRSUM_BTC_METRICS_PORT', '9412')),
    /does not scrape indexer-btc at indexer-btc:9412/,
  ],
  [
    'a stale scrape target',
    'prometheus',
    () =>
      stackOf(
        RAW_COMPOSE,
        edited(RAW_PROMETHEUS, ['scrape_configs'], (jobs) => [
          ...(jobs as unknown[]),
          { job_name: 'old', static_configs: [{ targets: ['indexer:9400'] }] },
        ]),
      ),
    /scrapes indexer:9400, which no service listens on/,
  ],
  [
    'indexer metrics on loopback',
    'prometheus',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_HOST', '127.0.0.1')),
    /indexer-ltc: ADDRSUM_HOST 127\.0\.0\.1 is loopback/,
  ],
  [
    'an API on another volume',
    'dataVolume',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api', 'volumes'], () => ['api-data:/data'])),
    /api: api-data at \/data is not a named volume/,
  ],
  [
    'a data directory outside the volume',
    'dataVolume',
    () => stackOf(setEnv('indexer-btc', 'ADDRSUM_DATA_DIR', '/var/lib/addrsum')),
    /disagree on ADDRSUM_DATA_DIR/,
  ],
  [
    'a registry host in an image name',
    'operations',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'bitcoind', 'image'], () => 'localhost:5000/bitcoin:28.1')),
    /bitcoind: image localhost:5000\/bitcoin:28\.1 names a registry host/,
  ],
  [
    'the default stop grace period',
    'operations',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'indexer-btc'], (s) => ({ ...(s as Json), stop_grace_period: undefined }))),
    /indexer-btc: stop_grace_period 10s \(default\) is under 60s/,
  ],
  [
    "an API given a node's RPC URL",
    'apiCredentials',
    () => stackOf(setEnv('api', 'ADDRSUM_BTC_RPC_URL', 'http://addrsum:${BTC_RPC_PASSWORD:?x}@bitcoind:8332')),
    /api: receives ADDRSUM_BTC_RPC_URL, a node credential/,
  ],
  [
    'an API given a cookie file',
    'apiCredentials',
    () => stackOf(setEnv('api', 'ADDRSUM_LTC_RPC_COOKIE_FILE', '/data/.cookie')),
    /api: receives ADDRSUM_LTC_RPC_COOKIE_FILE/,
  ],
  [
    'an API given a password variable',
    'apiCredentials',
    () => stackOf(setEnv('api', 'BTC_RPC_PASSWORD', '${BTC_RPC_PASSWORD:?x}')),
    /api: receives BTC_RPC_PASSWORD/,
  ],
  [
    'an API without ADDRSUM_SERVE_CHAINS',
    'apiCredentials',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api', 'environment'], (e) => withoutKey(e, 'ADDRSUM_SERVE_CHAINS'))),
    /api: ADDRSUM_SERVE_CHAINS is unset/,
  ],
  [
    'an API not serving an indexed chain',
    'apiCredentials',
    () => stackOf(setEnv('api', 'ADDRSUM_SERVE_CHAINS', 'BTC')),
    /api: does not serve LTC, which an indexer builds/,
  ],
  [
    'an API expecting another network',
    'apiCredentials',
    () => stackOf(setEnv('api', 'ADDRSUM_LTC_NETWORK', 'testnet')),
    /api: expects LTC testnet, indexer-ltc indexes mainnet/,
  ],
  [
    'a misspelt variable in the profile',
    'environment',
    () => stackOf(setEnv('api-replica-1', 'ADDRSUM_LTC_INDEXURL', STANDBY_URL)),
    /api-replica-1: sets ADDRSUM_LTC_INDEXURL/,
  ],
  [
    'an index URL that is not PostgreSQL',
    'configs',
    () => stackOf(setEnv('indexer-ltc-pg', 'ADDRSUM_LTC_INDEX_URL', 'mysql://addrsum:${PG_PASSWORD:?x}@postgres-primary/addrsum')),
    /indexer-ltc-pg: invalid configuration: ADDRSUM_LTC_INDEX_URL: expected a postgres:\/\/ URL/,
  ],
  [
    'two indexers writing one database',
    'processes',
    () => stackOf(setEnv('indexer-ltc', 'ADDRSUM_LTC_INDEX_URL', PRIMARY_URL)),
    /indexer-ltc-pg and indexer-ltc both write the LTC index postgres:\/\/postgres-primary:5432\/addrsum/,
  ],
  [
    'a profile without an API',
    'processes',
    () =>
      stackOf(
        edited(RAW_COMPOSE, ['services'], (svcs) =>
          Object.fromEntries(Object.entries(svcs as Json).filter(([k]) => !k.startsWith('api-replica'))),
        ),
      ),
    /profile scale-out: no API service/,
  ],
  [
    "a profile API given a node's RPC URL",
    'apiCredentials',
    () => stackOf(setEnv('api-replica-2', 'ADDRSUM_LTC_RPC_URL', 'http://addrsum:${LTC_RPC_PASSWORD:?x}@litecoind:9332')),
    /api-replica-2: receives ADDRSUM_LTC_RPC_URL, a node credential/,
  ],
  [
    'a profile API serving a chain the profile does not index',
    'apiCredentials',
    () => stackOf(setEnv('api-replica-1', 'ADDRSUM_SERVE_CHAINS', 'BTC,LTC')),
    /api-replica-1: serves BTC, which no indexer builds/,
  ],
  [
    'an API replica published on every interface',
    'apiPort',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api-replica-1', 'ports'], () => ['8081:8080'])),
    /api-replica-1: port 8080 is published on every interface, not loopback/,
  ],
  [
    'two replicas on one host port',
    'apiPort',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api-replica-2', 'ports'], () => ['127.0.0.1:8081:8080'])),
    /api-replica-2 and api-replica-1 both publish 127\.0\.0\.1:8081/,
  ],
  [
    'a replica keeping keys.sqlite without the data volume',
    'dataVolume',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'api-replica-1', 'environment'], (e) => withoutKey(e, 'ADDRSUM_KEYS_URL'))),
    /api-replica-1: nothing is mounted at ADDRSUM_DATA_DIR/,
  ],
  [
    'a standby cloning a host that is no service',
    'postgres',
    () => stackOf(setEnv('postgres-standby', 'PRIMARY_URL', 'postgres://replicator:${PG_REPLICATION_PASSWORD:?x}@postgres:5432')),
    /postgres-standby: PRIMARY_URL names host postgres, which is no PostgreSQL service/,
  ],
  [
    'a standby given the wrong replication password',
    'postgres',
    () => stackOf(setEnv('postgres-standby', 'PRIMARY_URL', 'postgres://replicator:${PG_PASSWORD:?x}@postgres-primary:5432')),
    /postgres-standby: PRIMARY_URL password differs from postgres-primary's PG_REPLICATION_PASSWORD/,
  ],
  [
    'an API reading a host that is no service',
    'postgres',
    () => stackOf(setEnv('api-replica-1', 'ADDRSUM_LTC_INDEX_URL', STANDBY_URL.replace('postgres-standby', 'standby'))),
    /api-replica-1: ADDRSUM_LTC_INDEX_URL names host standby, which is no PostgreSQL service/,
  ],
  [
    'an indexer writing the standby',
    'postgres',
    () => stackOf(setEnv('indexer-ltc-pg', 'ADDRSUM_LTC_INDEX_URL', STANDBY_URL)),
    /indexer-ltc-pg: ADDRSUM_LTC_INDEX_URL names postgres-standby, a standby/,
  ],
  [
    'an API reading a copy no indexer writes',
    'postgres',
    () => {
      const primary = (RAW_COMPOSE as { services: Json }).services['postgres-primary'];
      const twoPrimaries = edited(RAW_COMPOSE, ['services', 'postgres-other'], () => primary);
      const url = PRIMARY_URL.replace('postgres-primary', 'postgres-other');
      return stackOf(edited(twoPrimaries, ['services', 'indexer-ltc-pg', 'environment', 'ADDRSUM_LTC_INDEX_URL'], () => url));
    },
    /api-replica-1: ADDRSUM_LTC_INDEX_URL reads postgres-standby, a copy of postgres-primary, where no LTC indexer writes/,
  ],
  [
    'a default API reading a profile database',
    'postgres',
    () => stackOf(setEnv('api', 'ADDRSUM_KEYS_URL', STANDBY_URL)),
    /api: ADDRSUM_KEYS_URL names postgres-standby, which runs only with profile scale-out/,
  ],
  [
    'another database user than the primary creates',
    'postgres',
    () => stackOf(setEnv('api-replica-1', 'ADDRSUM_KEYS_URL', STANDBY_URL.replace('//addrsum:', '//postgres:'))),
    /api-replica-1: ADDRSUM_KEYS_URL user differs from postgres-primary's POSTGRES_USER/,
  ],
  [
    'a standby without hot_standby_feedback',
    'postgres',
    () => stackOf(setSetting('postgres-standby', 'hot_standby_feedback', 'off')),
    /postgres-standby: hot_standby_feedback is not on/,
  ],
  [
    'a standby whose replay may wait forever',
    'postgres',
    () => stackOf(setSetting('postgres-standby', 'max_standby_streaming_delay', '-1')),
    /postgres-standby: max_standby_streaming_delay is not a short duration/,
  ],
  [
    "a standby on the image's own entrypoint",
    'postgres',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'postgres-standby', 'entrypoint'], () => ['docker-entrypoint.sh'])),
    /postgres-standby: its entrypoint runs no mounted script/,
  ],
  [
    'a published database port',
    'postgres',
    () => stackOf(edited(RAW_COMPOSE, ['services', 'postgres-primary', 'ports'], () => ['127.0.0.1:5432:5432'])),
    /postgres-primary: publishes a port/,
  ],
  [
    'a mounted script that is not in the repository',
    'operations',
    () =>
      stackOf(
        edited(RAW_COMPOSE, ['services', 'postgres-standby', 'volumes'], (v) =>
          (v as string[]).map((m) => m.replace('./config/postgres/standby-entrypoint.sh', './config/postgres/standby.sh')),
        ),
      ),
    /postgres-standby: mounts \.\/config\/postgres\/standby\.sh, which does not exist/,
  ],
  [
    'an image running as root',
    'operations',
    () => stackOf(RAW_COMPOSE, RAW_PROMETHEUS, DOCKERFILE.replace(/^USER node$/m, 'USER root')),
    /Dockerfile: the image runs as root/,
  ],
];

describe('each check catches a broken file', () => {
  it.each(BROKEN)('%s (%s)', (_what, check, broken, expected) => {
    const problems = CHECKS[check](broken());
    expect(
      problems.some((p) => expected.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });

  it('refuses a schema violation', () => {
    const broken = edited(RAW_COMPOSE, ['services', 'api'], (s) => ({ ...(s as Json), restart_policy: 'always' }));
    expect(schemaErrors(broken)).toContain('/services/api must NOT have additional properties');
  });

  it('refuses a literal password and a secret without :?', () => {
    expect(checkSecrets(mapFlag('litecoind', 'rpcpassword', 'hunter2'))).toEqual([
      'a password is written literally: -rpcpassword=<literal>',
    ]);
    expect(checkSecrets(setEnv('indexer-btc', 'ADDRSUM_BTC_RPC_URL', 'http://addrsum:${BTC_RPC_PASSWORD}@bitcoind:8332'))).toEqual([
      '${BTC_RPC_PASSWORD} is used without :? (a missing secret must stop docker compose)',
      'a password is written literally: http://addrsum:<literal>@bitcoind:8332',
    ]);
    expect(checkSecrets(setEnv('api-replica-1', 'ADDRSUM_KEYS_URL', STANDBY_URL.replace('${PG_PASSWORD:?x}', 'hunter2')))).toEqual([
      'a password is written literally: postgres://addrsum:<literal>@postgres-standby:5432/addrsum',
    ]);
  });
});

/**
 * Debian ships Compose v1 (docker-compose 1.29), whose parser refuses what v2 added (a top-level `name:`).
 * The file is kept valid for both; this runs v1's own `config` (scripts/ensure-deps.sh installs
 * docker-compose; without it these tests fail, saying how to get it).
 */
const COMPOSE_V1 = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });

describe(`docker-compose ${COMPOSE_V1.stdout?.trim() ?? ''} (Compose v1) config`, () => {
  it('is installed', () => {
    expect(COMPOSE_V1.status, 'docker-compose is missing: run scripts/ensure-deps.sh as root, or apt-get install docker-compose').toBe(0);
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-compose-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `docker-compose config` on `text`, relative paths resolved from the repository, with `dotEnv` as .env. */
  function v1Config(text: string, dotEnv: Record<string, string>) {
    const file = path.join(dir, 'docker-compose.yml');
    const envFile = path.join(dir, 'env');
    writeFileSync(file, text);
    writeFileSync(
      envFile,
      Object.entries(dotEnv)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
    // A clean environment: variables of the shell running the tests must not stand in for .env.
    return spawnSync('docker-compose', ['--env-file', envFile, '--project-directory', ROOT, '-f', file, 'config'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      timeout: 60_000,
    });
  }

  it('accepts the file and resolves the same services and API command', { timeout: 120_000 }, () => {
    const run = v1Config(read('docker-compose.yml'), DOT_ENV);
    expect(run.stderr).not.toMatch(/invalid|error/i);
    expect(run.status).toBe(0);
    const resolved = parse(run.stdout) as { services: Record<string, { command?: string[]; environment?: Record<string, string> }> };
    expect(Object.keys(resolved.services).sort()).toEqual(Object.keys((RAW_COMPOSE as { services: object }).services).sort());
    expect(resolved.services.api?.command).toEqual(['node', 'dist/src/api-process/addrsum-api.js']);
    // Relative paths resolve from the repository: the build context and Prometheus' configuration.
    expect(JSON.stringify(resolved)).toContain(path.join(ROOT, 'config/prometheus.yml'));
    expect(Object.keys(resolved.services.api?.environment ?? {}).filter((k) => /RPC|PASSWORD/.test(k))).toEqual([]);
    // The merge key (`<<:`) gives the second replica the first one's settings, its own port.
    expect(resolved.services['api-replica-2']?.environment).toEqual(resolved.services['api-replica-1']?.environment);
  });

  it('refuses a top-level name: (why the file has none) and a missing password', { timeout: 120_000 }, () => {
    const named = v1Config(`name: addrsum\n${read('docker-compose.yml')}`, DOT_ENV);
    expect(named.status).not.toBe(0);
    expect(named.stderr).toMatch(/'name' does not match/);
    const noPassword = v1Config(read('docker-compose.yml'), { LTC_RPC_PASSWORD: 'x' });
    expect(noPassword.status).not.toBe(0);
    expect(noPassword.stderr).toMatch(/set BTC_RPC_PASSWORD in \.env/);
  });
});

describe('compose helpers', () => {
  it('interpolates as Compose does', () => {
    const env = { A: 'a', EMPTY: '' };
    expect(interpolateString('$A ${A} $${A} ${B:-d} ${EMPTY:-d} ${EMPTY-d} ${A:+x} ${B+x}', env)).toBe('a a ${A} d d  x ');
    expect(() => interpolateString('${B:?need B}', env)).toThrow('B: need B');
    expect(() => interpolateString('${EMPTY?x}', env)).not.toThrow();
    expect(() => interpolateString('cost: 5$', env)).toThrow(/invalid interpolation/);
  });

  it('compares CIDR ranges', () => {
    expect(cidrContains('10.58.0.0/16', '10.58.3.0/24')).toBe(true);
    expect(cidrContains('10.58.0.0/24', '10.58.0.0/16')).toBe(false);
    expect(cidrContains('10.58.0.0/24', '10.59.0.0/24')).toBe(false);
    expect(cidrContains('0.0.0.0/0', '192.168.1.7')).toBe(true);
  });
});
