/**
 * Cross-checks of docker-compose.yml, config/prometheus.yml and the Dockerfile against the code's own
 * configuration (src/config.ts): each check returns the problems it finds, one readable line each, so a
 * test asserts an empty list and a broken file names what is wrong.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHAIN_CODES, chainParams, networkNames, type ChainCode } from '../../src/chain/params.js';
import { chainModule } from '../../src/chain/registry.js';
import { ConfigError, ENV_VARIABLES, isChainServed, loadConfig, type Config } from '../../src/config.js';
import {
  argv,
  composeSchema,
  daemonFlags,
  durationSeconds,
  environmentOf,
  interpolate,
  mounts,
  variableReferences,
  portMappings,
  prometheusSchema,
  type ComposeModel,
  type PrometheusModel,
  type Service,
} from './compose-model.js';
import { compiledFrom, copiesOf, parseStages } from './dockerfile-model.js';

/** The compiled entry points the image runs (npm run build → dist/, the repository's layout kept). */
export const ENTRY_POINTS = { api: 'dist/src/api-process/addrsum-api.js', indexer: 'dist/indexer/addrsum-indexer.js' } as const;

export interface Stack {
  readonly compose: ComposeModel;
  readonly prometheus: PrometheusModel;
  readonly dockerfile: string;
  readonly repoRoot: string;
}

export function buildStack(
  rawCompose: unknown,
  rawPrometheus: unknown,
  dockerfile: string,
  env: Record<string, string>,
  repoRoot: string,
): Stack {
  return {
    compose: composeSchema.parse(interpolate(rawCompose, env)),
    prometheus: prometheusSchema.parse(rawPrometheus),
    dockerfile,
    repoRoot,
  };
}

export interface AddrsumService {
  readonly name: string;
  readonly service: Service;
  readonly env: Record<string, string>;
  readonly args: string[];
  readonly role: 'api' | 'indexer' | 'unknown';
  readonly chain: ChainCode | undefined;
  readonly config: Config | undefined;
  readonly configError: string | undefined;
}

/** The Compose profiles a service runs with; none = the default stack, which every `up` starts. */
const profilesOf = (service: Service): readonly string[] => service.profiles ?? [];

const defaultStack = (items: readonly AddrsumService[]): AddrsumService[] => items.filter((i) => profilesOf(i.service).length === 0);

/** Each profile's own services, named for messages (`docker compose --profile p up` starts them beside the default stack). */
function profileGroups(items: readonly AddrsumService[]): Array<{ label: string; members: AddrsumService[] }> {
  const profiles = [...new Set(items.flatMap((i) => profilesOf(i.service)))];
  return profiles.map((p) => ({ label: `profile ${p}`, members: items.filter((i) => profilesOf(i.service).includes(p)) }));
}

/**
 * The default stack and each profile, each checked as a stack of its own: a profile's API may serve other
 * chains than the default API, from the profile's own indexer.
 */
const serviceGroups = (items: readonly AddrsumService[]): AddrsumService[][] => [
  defaultStack(items),
  ...profileGroups(items).map((g) => g.members),
];

/** Services built from this repository (`build:`), i.e. running our code. */
export function addrsumServices(stack: Stack): AddrsumService[] {
  return Object.entries(stack.compose.services)
    .filter(([, s]) => s.build !== undefined)
    .map(([name, service]) => {
      const env = environmentOf(service);
      const args = argv(service.command);
      const role = args.includes(ENTRY_POINTS.indexer) ? 'indexer' : args.includes(ENTRY_POINTS.api) ? 'api' : 'unknown';
      const chainArg = args[args.indexOf('--chain') + 1];
      const chain = CHAIN_CODES.find((c) => c === chainArg);
      let config: Config | undefined;
      let configError: string | undefined;
      try {
        config = loadConfig({ env });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        configError = err.message;
      }
      return { name, service, env, args, role, chain: role === 'indexer' ? chain : undefined, config, configError };
    });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const ANY_HOST = new Set(['0.0.0.0', '*', '::', '[::]']);
/** Read by libraries, not by src/config.ts (express switches to production behaviour). */
const LIBRARY_ENV = new Set(['NODE_ENV']);

/** Where a chain's index lives, as one comparable string: the PostgreSQL server and database, or the file. */
function indexWhere(config: Config, chain: ChainCode): string {
  const url = config.chains[chain].indexUrl;
  if (url === undefined) return path.posix.join(config.dataDir, `${chain.toLowerCase()}.sqlite`);
  const { hostname, port, pathname } = new URL(url);
  return `postgres://${hostname}:${port || '5432'}${pathname}`;
}

/** Whether the process opens a SQLite file in ADDRSUM_DATA_DIR: an index without a URL, or keys.sqlite. */
function usesDataDir(s: AddrsumService): boolean {
  const config = s.config;
  if (config === undefined) return true;
  if (s.role === 'indexer') return s.chain === undefined || config.chains[s.chain].indexUrl === undefined;
  return config.keysUrl === undefined || CHAIN_CODES.some((c) => isChainServed(config, c) && config.chains[c].indexUrl === undefined);
}

export function checkEnvironment(stack: Stack): string[] {
  const known = new Set(ENV_VARIABLES);
  const problems = addrsumServices(stack).flatMap((s) =>
    Object.keys(s.env)
      .filter((k) => !known.has(k))
      .map((k) => `${s.name}: sets ${k}, which the code does not read (src/config.ts ENV_VARIABLES)`),
  );
  for (const m of stack.dockerfile.matchAll(/^ENV\s+((?:.*\\\n)*.*)$/gm)) {
    for (const [, key] of (m[1] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)) {
      if (key && !known.has(key) && !LIBRARY_ENV.has(key)) problems.push(`Dockerfile: ENV ${key} is not read by the code`);
    }
  }
  return problems;
}

export function checkConfigs(stack: Stack): string[] {
  return addrsumServices(stack).flatMap((s) => (s.configError === undefined ? [] : [`${s.name}: invalid configuration: ${s.configError}`]));
}

export function checkProcesses(stack: Stack): string[] {
  const services = addrsumServices(stack);
  const problems: string[] = [];
  const defaults = defaultStack(services);
  const apis = defaults.filter((s) => s.role === 'api');
  if (apis.length !== 1) problems.push(`expected one API service, found ${apis.length}`);
  for (const chain of CHAIN_CODES) {
    const indexers = defaults.filter((s) => s.role === 'indexer' && s.chain === chain);
    if (indexers.length !== 1) problems.push(`expected one ${chain} indexer, found ${indexers.length}`);
  }
  for (const { label, members } of profileGroups(services)) {
    if (!members.some((s) => s.role === 'api')) problems.push(`${label}: no API service`);
  }
  // One writer per index: a second indexer on the same file or database would wait for the lock and stop.
  const writers = new Map<string, string>();
  for (const s of services.filter((x) => x.role === 'indexer' && x.chain && x.config)) {
    const where = indexWhere(s.config as Config, s.chain as ChainCode);
    const first = writers.get(where);
    if (first !== undefined) problems.push(`${s.name} and ${first} both write the ${s.chain as ChainCode} index ${where}`);
    writers.set(where, s.name);
  }
  for (const s of services.filter((x) => x.role === 'unknown')) problems.push(`${s.name}: command runs neither the API nor an indexer`);
  for (const s of services) {
    if (s.role === 'indexer' && s.chain === undefined) problems.push(`${s.name}: indexer without a valid --chain`);
    if (s.role === 'indexer' && s.chain && s.config && s.config.chains[s.chain].rpcUrl === undefined) {
      problems.push(`${s.name}: --chain ${s.chain} but ADDRSUM_${s.chain}_RPC_URL is unset (the indexer would exit)`);
    }
    if (s.args[0] !== 'node')
      problems.push(`${s.name}: command starts with ${s.args[0] ?? '(nothing)'}, not node (signals must reach the process)`);
    if (s.args.some((a) => a === 'tsx' || a.endsWith('.ts')))
      problems.push(`${s.name}: runs TypeScript through tsx; the image runs the compiled dist/`);
    problems.push(...entryProblems(s.name, s.args, stack.dockerfile, stack.repoRoot));
  }
  return problems;
}

/** Why `npm run build` would not produce the compiled file `entry` (undefined when it would). */
export function missingSource(entry: string, repoRoot: string): string | undefined {
  const source = compiledFrom(entry);
  if (source !== undefined && existsSync(path.join(repoRoot, source))) return undefined;
  return `entry ${entry} is built from no source (${source ?? 'not a .js file'} does not exist)`;
}

/** Each compiled file a command runs is built from an existing source that the build stage copies. */
export function entryProblems(who: string, args: readonly string[], dockerfile: string, repoRoot: string): string[] {
  const problems: string[] = [];
  const stages = parseStages(dockerfile);
  const buildStage = stages.find((st) => st.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args)));
  for (const entry of args.filter((a) => a.startsWith('dist/'))) {
    const missing = missingSource(entry, repoRoot);
    if (missing !== undefined) {
      problems.push(`${who}: ${missing}`);
      continue;
    }
    const source = compiledFrom(entry) as string;
    const top = source.split('/')[0] ?? '';
    const copied =
      buildStage !== undefined &&
      copiesOf(buildStage).some((c) => c.from === undefined && c.sources.some((src) => path.normalize(src).replace(/\/$/, '') === top));
    if (!copied) problems.push(`${who}: the Dockerfile's build stage (npm run build) does not copy ${top}/`);
  }
  return problems;
}

/**
 * The API reads the indexes only: it names its chains (ADDRSUM_SERVE_CHAINS), holds no node credentials,
 * and expects each chain's network as its indexer builds it (it refuses an index of another network).
 * A profile's APIs are held to the profile's indexers.
 */
export function checkApiCredentials(stack: Stack): string[] {
  return serviceGroups(addrsumServices(stack)).flatMap(apiCredentialProblems);
}

/** checkApiCredentials within one group: its APIs serve what its own indexers build. */
function apiCredentialProblems(services: readonly AddrsumService[]): string[] {
  const problems: string[] = [];
  const indexed = new Set(services.filter((s) => s.role === 'indexer' && s.chain).map((s) => s.chain as ChainCode));
  for (const s of services.filter((x) => x.role === 'api')) {
    for (const [key, value] of Object.entries(s.env)) {
      if (/_RPC_(URL|COOKIE_FILE)$|PASSWORD|SECRET/.test(key))
        problems.push(`${s.name}: receives ${key}, a node credential the API does not need`);
      else if (/^https?:\/\/[^/@]*@/.test(value)) problems.push(`${s.name}: ${key} carries a credential`);
    }
    if (s.config === undefined) continue;
    if (s.config.api.serveChains === undefined)
      problems.push(`${s.name}: ADDRSUM_SERVE_CHAINS is unset (without RPC URLs it would serve no chain)`);
    for (const chain of CHAIN_CODES) {
      const served = isChainServed(s.config, chain);
      if (indexed.has(chain) && !served) problems.push(`${s.name}: does not serve ${chain}, which an indexer builds`);
      if (!indexed.has(chain) && served) problems.push(`${s.name}: serves ${chain}, which no indexer builds`);
      for (const indexer of services.filter((x) => x.role === 'indexer' && x.chain === chain && x.config)) {
        const want = (indexer.config as Config).chains[chain].network;
        const have = s.config.chains[chain].network;
        if (served && want !== have) problems.push(`${s.name}: expects ${chain} ${have}, ${indexer.name} indexes ${want}`);
      }
    }
  }
  return problems;
}

function ipv4(text: string): number | undefined {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

/** Whether CIDR `outer` contains every address of CIDR `inner` (IPv4; a bare address is a /32). */
export function cidrContains(outer: string, inner: string): boolean {
  const parse = (c: string) => {
    const [addr, bits] = c.split('/');
    return { base: ipv4(addr ?? ''), bits: bits === undefined ? 32 : Number(bits) };
  };
  const o = parse(outer);
  const i = parse(inner);
  if (o.base === undefined || i.base === undefined || !(o.bits >= 0 && o.bits <= 32) || o.bits > i.bits) return false;
  const size = 2 ** (32 - o.bits);
  return Math.floor(o.base / size) === Math.floor(i.base / size);
}

/** The node's chain name (getblockchaininfo `chain`) from its chain-selection flags (Bitcoin Core ArgsManager::GetChainTypeString). */
function nodeChain(flags: Map<string, string[]>): string {
  const last = (k: string) => flags.get(k)?.at(-1);
  const chain = last('chain');
  if (chain !== undefined) return chain;
  const selected = (['regtest', 'testnet', 'signet', 'testnet4'] as const).find((flag) => last(flag) === '1');
  return selected === 'testnet' ? 'test' : (selected ?? 'main');
}

/** Our name for the node's network, or the node's own chain name when the chain module has no such network. */
function nodeNetwork(chain: ChainCode, flags: Map<string, string[]>): string {
  const name = nodeChain(flags);
  return networkNames(chain).find((n) => chainParams(chain, n).nodeChain === name) ?? `chain=${name}`;
}

/** Each served chain's RPC URL names a node service whose flags accept exactly those credentials. */
export function checkRpc(stack: Stack): string[] {
  const problems: string[] = [];
  const subnets = (stack.compose.networks?.default?.ipam?.config ?? []).flatMap((c) => (c.subnet ? [c.subnet] : []));
  if (subnets.length === 0) problems.push('networks.default has no fixed ipam subnet, so no -rpcallowip can be checked against it');
  const nodeOf = new Map<ChainCode, string>();
  for (const s of addrsumServices(stack)) {
    for (const chain of CHAIN_CODES) {
      const chainConfig = s.config?.chains[chain];
      if (chainConfig?.rpcUrl === undefined) continue;
      const where = `${s.name}: ADDRSUM_${chain}_RPC_URL`;
      const url = new URL(chainConfig.rpcUrl);
      const node = stack.compose.services[url.hostname];
      if (node === undefined) {
        problems.push(`${where} names host ${url.hostname}, which is no service`);
        continue;
      }
      const seen = nodeOf.get(chain);
      if (seen !== undefined && seen !== url.hostname) problems.push(`${where} names ${url.hostname}, another service names ${seen}`);
      nodeOf.set(chain, url.hostname);
      const daemon = chainModule(chain).daemon;
      if (!(node.image ?? '').includes(daemon)) problems.push(`${where} names ${url.hostname}, whose image is not a ${daemon} node`);
      const flags = daemonFlags(argv(node.command));
      const last = (k: string) => flags.get(k)?.at(-1);
      for (const flag of ['server', 'rest']) if (last(flag) !== '1') problems.push(`${url.hostname}: -${flag}=1 is missing`);
      if (last('rpcport') !== url.port)
        problems.push(`${where} uses port ${url.port || '(none)'}, ${url.hostname} has -rpcport=${last('rpcport') ?? '(unset)'}`);
      if (last('rpcuser') !== decodeURIComponent(url.username)) problems.push(`${where} user differs from ${url.hostname}'s -rpcuser`);
      if (last('rpcpassword') !== decodeURIComponent(url.password))
        problems.push(`${where} password differs from ${url.hostname}'s -rpcpassword`);
      const binds = flags.get('rpcbind') ?? [];
      if (!binds.some((b) => !LOOPBACK.has(b.replace(/:\d+$/, ''))))
        problems.push(`${url.hostname}: no -rpcbind beyond loopback, other containers cannot call it`);
      const allowed = flags.get('rpcallowip') ?? [];
      for (const subnet of subnets) {
        if (!allowed.some((a) => cidrContains(a, subnet)))
          problems.push(`${url.hostname}: no -rpcallowip covers the compose network ${subnet}`);
      }
      const network = nodeNetwork(chain, flags);
      if (network !== chainConfig.network)
        problems.push(`${where}: ${s.name} expects ${chainConfig.network}, ${url.hostname} runs ${network}`);
    }
  }
  return [...new Set(problems)];
}

/** Whether `node` publishes `flag` (e.g. zmqpubhashblock) on `port`, on all interfaces or as `host`. */
function publishes(node: Service | undefined, flag: string, host: string, port: string): { ok: boolean; pubs: string[] } {
  const pubs = node ? (daemonFlags(argv(node.command)).get(flag) ?? []) : [];
  const ok = pubs.some((p) => {
    const pm = /^tcp:\/\/(.+):(\d+)$/.exec(p);
    return pm !== null && pm[2] === port && (ANY_HOST.has(pm[1] ?? '') || pm[1] === host);
  });
  return { ok, pubs };
}

/**
 * Each indexer's ZMQ endpoint is its own node's zmqpubhashblock listener; with the mempool view on, the
 * node also publishes rawtx and sequence where the indexer listens for them (ZMQ_MEMPOOL, else ZMQ),
 * or the view falls back to polling getrawmempool.
 */
export function checkZmq(stack: Stack): string[] {
  const problems: string[] = [];
  for (const s of addrsumServices(stack).filter((x) => x.role === 'indexer' && x.chain)) {
    const chain = s.chain as ChainCode;
    const chainConfig = s.config?.chains[chain];
    if (chainConfig === undefined) continue;
    if (chainConfig.zmq === undefined) {
      problems.push(`${s.name}: ADDRSUM_${chain}_ZMQ is unset (the indexer would poll only)`);
      continue;
    }
    const wanted: Array<[string, string, string]> = [[`ADDRSUM_${chain}_ZMQ`, chainConfig.zmq, 'zmqpubhashblock']];
    if (chainConfig.mempool) {
      const [name, endpoint] =
        chainConfig.zmqMempool === undefined
          ? [`ADDRSUM_${chain}_ZMQ`, chainConfig.zmq]
          : [`ADDRSUM_${chain}_ZMQ_MEMPOOL`, chainConfig.zmqMempool];
      wanted.push([name, endpoint, 'zmqpubrawtx'], [name, endpoint, 'zmqpubsequence']);
    }
    const rpcHost = chainConfig.rpcUrl ? new URL(chainConfig.rpcUrl).hostname : undefined;
    for (const [name, endpoint, flag] of wanted) {
      const m = /^tcp:\/\/([^:/]+):(\d+)$/.exec(endpoint);
      if (!m) {
        problems.push(`${s.name}: ${name} ${endpoint} is not tcp://host:port`);
        continue;
      }
      const [, host = '', port = ''] = m;
      if (host !== rpcHost) problems.push(`${s.name}: ${name} names ${host}, its RPC URL names ${rpcHost ?? '(none)'}`);
      const { ok, pubs } = publishes(stack.compose.services[host], flag, host, port);
      if (!ok) problems.push(`${s.name}: ${name} ${endpoint} matches no -${flag} of ${host} (${pubs.join(', ') || 'none'})`);
    }
  }
  return [...new Set(problems)];
}

function healthcheckText(service: Service): string {
  return argv(service.healthcheck?.test).join(' ');
}

/** The API listens on all interfaces at ADDRSUM_PORT, which is the published port's target and the probe's. */
export function checkApiPort(stack: Stack): string[] {
  const problems: string[] = [];
  for (const s of addrsumServices(stack).filter((x) => x.role === 'api' && x.config)) {
    const { host, port } = (s.config as Config).api;
    if (LOOPBACK.has(host)) problems.push(`${s.name}: ADDRSUM_HOST ${host} is loopback, unreachable through the published port`);
    const maps = portMappings(s.service);
    if (!maps.some((m) => m.target === port))
      problems.push(`${s.name}: no port mapping targets ADDRSUM_PORT ${port} (${maps.map((m) => m.target).join(', ') || 'none'})`);
    for (const m of maps.filter((x) => !LOOPBACK.has(x.hostIp ?? '')))
      problems.push(
        `${s.name}: port ${m.target} is published on ${m.hostIp ?? 'every interface'}, not loopback (the proxy in front terminates TLS)`,
      );
    if (!healthcheckText(s.service).includes(`:${port}/health`))
      problems.push(`${s.name}: healthcheck does not probe /health on port ${port}`);
  }
  const hostPorts = new Map<string, string>();
  for (const [name, service] of Object.entries(stack.compose.services)) {
    for (const m of portMappings(service).filter((x) => x.published !== undefined)) {
      const key = `${m.hostIp ?? ''}:${String(m.published)}`;
      const first = hostPorts.get(key);
      if (first !== undefined) problems.push(`${name} and ${first} both publish ${key}`);
      hostPorts.set(key, name);
    }
  }
  return problems;
}

/**
 * Where Prometheus must find each addrsum process of the default stack: service name → host:port. A
 * profile's processes are not scraped: they would be "down" (and page) whenever the profile is off.
 */
function metricsEndpoints(stack: Stack): Map<string, string> {
  const endpoints = new Map<string, string>();
  for (const s of defaultStack(addrsumServices(stack))) {
    if (!s.config) continue;
    if (s.role === 'api') endpoints.set(s.name, `${s.name}:${s.config.api.port}`);
    if (s.role === 'indexer' && s.chain) endpoints.set(s.name, `${s.name}:${s.config.chains[s.chain].metricsPort}`);
  }
  return endpoints;
}

export function checkPrometheus(stack: Stack): string[] {
  const problems: string[] = [];
  const expected = metricsEndpoints(stack);
  const jobs = stack.prometheus.scrape_configs;
  const targets = jobs.flatMap((j) => (j.static_configs ?? []).flatMap((c) => c.targets.map((t) => ({ job: j, target: t }))));
  for (const [name, endpoint] of expected) {
    const hit = targets.find((t) => t.target === endpoint);
    if (!hit) problems.push(`config/prometheus.yml does not scrape ${name} at ${endpoint}`);
    else if ((hit.job.metrics_path ?? '/metrics') !== '/metrics') problems.push(`job ${hit.job.job_name}: metrics_path is not /metrics`);
  }
  const wanted = new Set(expected.values());
  for (const { target } of targets) {
    const host = target.replace(/:\d+$/, '');
    if (!LOOPBACK.has(host) && !wanted.has(target)) problems.push(`config/prometheus.yml scrapes ${target}, which no service listens on`);
  }
  for (const s of addrsumServices(stack).filter((x) => x.role === 'indexer' && x.config && x.chain)) {
    const config = s.config as Config;
    if (LOOPBACK.has(config.api.host))
      problems.push(`${s.name}: ADDRSUM_HOST ${config.api.host} is loopback, Prometheus cannot reach its metrics`);
    const port = config.chains[s.chain as ChainCode].metricsPort;
    if (!healthcheckText(s.service).includes(`:${port}/metrics`))
      problems.push(`${s.name}: healthcheck does not probe /metrics on port ${port}`);
  }
  const prom = Object.entries(stack.compose.services).find(([, svc]) => (svc.image ?? '').startsWith('prom/prometheus:'));
  if (!prom) return [...problems, 'no prom/prometheus service'];
  const configFile =
    argv(prom[1].command)
      .find((a) => a.startsWith('--config.file='))
      ?.slice('--config.file='.length) ?? '/etc/prometheus/prometheus.yml';
  const mount = mounts(prom[1]).find((m) => m.target === configFile);
  if (!mount || path.normalize(mount.source) !== path.normalize('./config/prometheus.yml')) {
    problems.push(`${prom[0]}: ./config/prometheus.yml is not mounted at --config.file ${configFile}`);
  }
  return problems;
}

/**
 * Indexers (writers) and APIs (readers) of SQLite files share one named volume at the one
 * ADDRSUM_DATA_DIR; a process whose index and keys are all in PostgreSQL opens no file there.
 */
export function checkDataVolume(stack: Stack): string[] {
  const problems: string[] = [];
  const services = addrsumServices(stack).filter((s) => s.config && usesDataDir(s));
  const dirs = new Set(services.map((s) => (s.config as Config).dataDir));
  if (dirs.size !== 1) problems.push(`addrsum services disagree on ADDRSUM_DATA_DIR: ${[...dirs].join(', ')}`);
  const sources = new Set<string>();
  for (const s of services) {
    const dir = (s.config as Config).dataDir;
    const mount = mounts(s.service).find((m) => m.target === dir);
    if (!mount) problems.push(`${s.name}: nothing is mounted at ADDRSUM_DATA_DIR ${dir}`);
    else if (!Object.hasOwn(stack.compose.volumes ?? {}, mount.source))
      problems.push(`${s.name}: ${mount.source} at ${dir} is not a named volume`);
    else if (mount.readOnly) problems.push(`${s.name}: the data volume is read-only (WAL readers write the -shm file)`);
    if (mount) sources.add(mount.source);
  }
  if (sources.size > 1) problems.push(`addrsum services mount different data volumes: ${[...sources].join(', ')}`);
  return problems;
}

/** Images by public name with a pinned tag, restarts, probes, and shutdown time for what must flush. */
export function checkOperations(stack: Stack): string[] {
  const problems: string[] = [];
  const nodes = new Set(
    addrsumServices(stack).flatMap((s) =>
      CHAIN_CODES.flatMap((c) => (s.config?.chains[c].rpcUrl ? [new URL(s.config.chains[c].rpcUrl).hostname] : [])),
    ),
  );
  const refs = [...stack.dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => ({ where: 'Dockerfile', ref: m[1] ?? '' }));
  for (const [name, svc] of Object.entries(stack.compose.services)) {
    if (svc.image === undefined) problems.push(`${name}: no image name`);
    else refs.push({ where: name, ref: svc.image });
    if (!['always', 'unless-stopped'].includes(svc.restart ?? '')) problems.push(`${name}: restart policy is ${svc.restart ?? 'none'}`);
    if (svc.healthcheck?.test === undefined) problems.push(`${name}: no healthcheck`);
    // A missing bind-mount source is not an error to Docker: it mounts an empty directory in its place.
    for (const { source } of mounts(svc).filter((m) => m.source.startsWith('./'))) {
      if (!existsSync(path.join(stack.repoRoot, source))) problems.push(`${name}: mounts ${source}, which does not exist`);
    }
  }
  for (const { where, ref } of refs) {
    const first = ref.split('/')[0] ?? '';
    if (ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost'))
      problems.push(`${where}: image ${ref} names a registry host`);
    const tag = /:([^/:]+)$/.exec(ref)?.[1];
    if (tag === undefined || tag === 'latest') problems.push(`${where}: image ${ref} is not pinned to a version tag`);
  }
  for (const s of addrsumServices(stack).filter((x) => x.role === 'indexer')) {
    if (!(durationSeconds(s.service.stop_grace_period) >= 60))
      problems.push(`${s.name}: stop_grace_period ${s.service.stop_grace_period ?? '10s (default)'} is under 60s`);
  }
  for (const name of nodes) {
    const svc = stack.compose.services[name];
    if (svc && !(durationSeconds(svc.stop_grace_period) >= 120))
      problems.push(`${name}: stop_grace_period ${svc.stop_grace_period ?? '10s (default)'} is under 120s`);
  }
  const user = [...stack.dockerfile.matchAll(/^USER\s+(\S+)/gm)].at(-1)?.[1];
  if (user === undefined || user === 'root' || user === '0') problems.push(`Dockerfile: the image runs as ${user ?? 'root'}`);
  if (/npm ci[^\n]*--ignore-scripts/.test(stack.dockerfile) || !/npm ci/.test(stack.dockerfile))
    problems.push('Dockerfile: npm ci with install scripts is missing');
  return problems;
}

const SECRET_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*:\?[^}]*\}$/;
/** The password of a node's or a database's URL; the user may itself be a `${…}` reference. */
const URL_PASSWORD = /^(?:https?|postgres(?:ql)?):\/\/(?:\$\{[^}]*\}|[^:@/]*):([^@]*)@/;

/** Secrets come from .env and fail loudly when missing: `${NAME:?message}`, never a literal. */
export function checkSecrets(rawCompose: unknown): string[] {
  const problems = variableReferences(rawCompose)
    .filter((r) => /PASSWORD|SECRET|TOKEN/.test(r.name) && r.op !== ':?')
    .map((r) => `\${${r.name}} is used without :? (a missing secret must stop docker compose)`);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      const password = /^-rpcpassword=(.*)$/s.exec(v)?.[1] ?? URL_PASSWORD.exec(v)?.[1];
      if (password !== undefined && !SECRET_REFERENCE.test(password))
        problems.push(`a password is written literally: ${v.replace(password, '<literal>')}`);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(rawCompose);
  return [...new Set(problems)];
}

interface PostgresServer {
  readonly name: string;
  readonly service: Service;
  readonly env: Record<string, string>;
  /** The server a standby clones and streams from (its PRIMARY_URL); undefined for a primary. */
  readonly primaryUrl: URL | undefined;
}

const isPostgresImage = (service: Service) => /^postgres:/.test(service.image ?? '');

function postgresServers(stack: Stack): Map<string, PostgresServer> {
  const servers = new Map<string, PostgresServer>();
  for (const [name, service] of Object.entries(stack.compose.services).filter(([, svc]) => isPostgresImage(svc))) {
    const env = environmentOf(service);
    servers.set(name, { name, service, env, primaryUrl: env.PRIMARY_URL === undefined ? undefined : new URL(env.PRIMARY_URL) });
  }
  return servers;
}

/** The PostgreSQL URLs a process is given: each chain's index, and the keys. */
function postgresUrls(s: AddrsumService): Array<{ variable: string; url: URL; chain: ChainCode | undefined }> {
  const config = s.config;
  if (config === undefined) return [];
  const urls = CHAIN_CODES.flatMap((chain) => {
    const url = config.chains[chain].indexUrl;
    return url === undefined ? [] : [{ variable: `ADDRSUM_${chain}_INDEX_URL`, url: new URL(url), chain }];
  });
  return config.keysUrl === undefined ? urls : [...urls, { variable: 'ADDRSUM_KEYS_URL', url: new URL(config.keysUrl), chain: undefined }];
}

/** Why `client` cannot reach `server` whenever it runs: a service that only some profile starts. */
function profileGap(client: Service, server: Service): string | undefined {
  const needed = profilesOf(server);
  if (needed.length === 0) return undefined;
  const has = profilesOf(client);
  return has.length > 0 && has.every((p) => needed.includes(p)) ? undefined : `runs only with profile ${needed.join(' or ')}`;
}

/** Problems with `url` as a connection from `client` to one of `servers`; the server when it is one. */
function resolveServer(
  where: string,
  url: URL,
  client: Service,
  servers: ReadonlyMap<string, PostgresServer>,
  problems: string[],
): PostgresServer | undefined {
  const server = servers.get(url.hostname);
  if (server === undefined) {
    problems.push(`${where} names host ${url.hostname}, which is no PostgreSQL service`);
    return undefined;
  }
  if ((url.port || '5432') !== '5432') problems.push(`${where} uses port ${url.port}, ${server.name} listens on 5432`);
  const gap = profileGap(client, server.service);
  if (gap !== undefined) problems.push(`${where} names ${server.name}, which ${gap}`);
  return server;
}

/** The primary a server's data comes from: itself, or (through standbys) the one it streams from. */
function primaryOf(server: PostgresServer, servers: ReadonlyMap<string, PostgresServer>): PostgresServer | undefined {
  const seen = new Set<string>();
  let at: PostgresServer | undefined = server;
  while (at?.primaryUrl !== undefined && !seen.has(at.name)) {
    seen.add(at.name);
    at = servers.get(at.primaryUrl.hostname);
  }
  return at?.primaryUrl === undefined ? at : undefined;
}

/** Problems unless `url` logs in as the role `server` creates from its `userVariable` and `passwordVariable`. */
function credentialProblems(where: string, url: URL, server: PostgresServer, userVariable: string, passwordVariable: string): string[] {
  const parts = [
    ['user', url.username, userVariable],
    ['password', url.password, passwordVariable],
  ] as const;
  return parts
    .filter(([, given, variable]) => decodeURIComponent(given) !== server.env[variable])
    .map(([what, , variable]) => `${where} ${what} differs from ${server.name}'s ${variable}`);
}

const settingOf = (service: Service, name: string) =>
  argv(service.command)
    .filter((a) => a.startsWith(`${name}=`))
    .at(-1)
    ?.slice(name.length + 1);

/**
 * The PostgreSQL topology (docs/scale-out.md): each standby streams from a primary with the replication
 * role the primary creates, keeps API reads from being cancelled and replay from waiting long; every
 * addrsum URL names a PostgreSQL service with the primary's database and owner; an indexer writes a
 * primary (a standby takes no writes); an API's index is a copy of what an indexer of that chain writes;
 * no database port is published.
 */
export function checkPostgres(stack: Stack): string[] {
  const problems: string[] = [];
  const servers = postgresServers(stack);
  for (const server of servers.values()) {
    if (portMappings(server.service).length > 0)
      problems.push(`${server.name}: publishes a port; the database is for the compose network only`);
    if (server.primaryUrl === undefined) continue;
    // The clone on first start is the mounted script's doing; the image's own entrypoint would initdb instead.
    const targets = new Set(mounts(server.service).map((m) => m.target));
    if (!argv(server.service.entrypoint).some((a) => targets.has(a)))
      problems.push(`${server.name}: its entrypoint runs no mounted script, so nothing clones the primary`);
    const where = `${server.name}: PRIMARY_URL`;
    const primary = resolveServer(where, server.primaryUrl, server.service, servers, problems);
    if (primary?.primaryUrl !== undefined) problems.push(`${where} names ${primary.name}, itself a standby`);
    else if (primary !== undefined) {
      problems.push(...credentialProblems(where, server.primaryUrl, primary, 'PG_REPLICATION_USER', 'PG_REPLICATION_PASSWORD'));
    }
    if (settingOf(server.service, 'hot_standby_feedback') !== 'on')
      problems.push(`${server.name}: hot_standby_feedback is not on (a block's commit would cancel API reads)`);
    const delay = durationSeconds(settingOf(server.service, 'max_standby_streaming_delay'));
    if (!(delay >= 0 && delay <= 30))
      problems.push(`${server.name}: max_standby_streaming_delay is not a short duration (at most 30s; replay must not wait on reads)`);
  }
  const services = addrsumServices(stack);
  const written = new Map<string, Set<ChainCode>>();
  for (const s of services.filter((x) => x.role === 'indexer' && x.chain)) {
    const url = s.config?.chains[s.chain as ChainCode].indexUrl;
    if (url === undefined) continue;
    const host = new URL(url).hostname;
    written.set(host, new Set([...(written.get(host) ?? []), s.chain as ChainCode]));
  }
  for (const s of services) {
    for (const { variable, url, chain } of postgresUrls(s)) {
      const where = `${s.name}: ${variable}`;
      const server = resolveServer(where, url, s.service, servers, problems);
      if (server === undefined) continue;
      const primary = primaryOf(server, servers);
      if (primary === undefined) {
        problems.push(`${where} names ${server.name}, which streams from no primary`);
        continue;
      }
      problems.push(...credentialProblems(where, url, primary, 'POSTGRES_USER', 'POSTGRES_PASSWORD'));
      if (url.pathname.slice(1) !== (primary.env.POSTGRES_DB ?? primary.env.POSTGRES_USER))
        problems.push(
          `${where} names database ${url.pathname.slice(1) || '(none)'}, ${primary.name} creates ${primary.env.POSTGRES_DB ?? '(its user)'}`,
        );
      if (s.role === 'indexer' && server !== primary)
        problems.push(`${where} names ${server.name}, a standby: the indexer writes, so it must name the primary ${primary.name}`);
      if (s.role === 'api' && chain !== undefined && !written.get(primary.name)?.has(chain))
        problems.push(`${where} reads ${server.name}, a copy of ${primary.name}, where no ${chain} indexer writes`);
    }
  }
  return problems;
}
