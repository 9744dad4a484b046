/**
 * What the shared-limits tests need: a data directory the API can serve (an LTC regtest index and a
 * keys.sqlite), a private redis-server on a free loopback port that a test may stop and restart (the
 * machine's shared Redis is never stopped), bursts of requests spread over several API URLs, and
 * /metrics readings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import type { Tier } from '../../src/store/keys/tier.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { freePort } from '../../harness/ports.js';
import { linkedBlock } from './blocks.js';

/** A regtest bech32 address (valid on LTC regtest; never on chain here, so it answers 200 with zeros). */
export const ADDRESS = 'rltc1qcswcz6dxhm2pgd6amemskh48azmfleqsrgcuyd';
export const ROUTE = `/api/v1/LTC/address/${ADDRESS}`;

export interface DataDir {
  readonly dir: string;
  /** Environment for startApi: this directory, LTC regtest served. */
  readonly env: Record<string, string>;
  createKey(tier: Tier): { key: string; id: string };
  remove(): void;
}

/** Environment for startApi serving `dir` (LTC regtest, no node, no Redis, one process). */
export function apiEnv(dir: string): Record<string, string> {
  return {
    ADDRSUM_DATA_DIR: dir,
    ADDRSUM_LTC_NETWORK: 'regtest',
    ADDRSUM_LTC_RPC_URL: 'http://user:pass@127.0.0.1:1',
    ADDRSUM_CONFIG: '',
    ADDRSUM_REDIS_URL: '',
    ADDRSUM_API_WORKERS: '',
  };
}

export function makeDataDir(prefix: string): DataDir {
  const dir = mkdtempSync(path.join(tmpdir(), `addrsum-${prefix}-`));
  const chain = ChainStore.open(path.join(dir, 'ltc.sqlite'), { chain: 'LTC', network: 'regtest' });
  const genesis = linkedBlock(0, Buffer.alloc(32), []);
  chain.applyBlocks([genesis, linkedBlock(1, genesis.hash, [])]);
  chain.setNodeHeight(1, new Date());
  chain.close();
  return {
    dir,
    env: apiEnv(dir),
    createKey(tier) {
      const store = KeyStore.open(path.join(dir, 'keys.sqlite'));
      try {
        const { key, record } = store.create(tier, 'limits test');
        return { key, id: record.id };
      } finally {
        store.close();
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

export function request(url: string, headers: Record<string, string> = {}, agent?: http.Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} in 30 s`)));
  });
}

export interface BurstResult {
  readonly statuses: Map<number, number>;
  readonly ok: number;
  /** From sending the first request to the last answer. */
  readonly elapsedSeconds: number;
}

/** `count` requests with `key`, the i-th to urls[i % urls.length], `parallel` at a time over keep-alive. */
export async function burst(urls: readonly string[], count: number, key: string, parallel = 20): Promise<BurstResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const statuses = new Map<number, number>();
  let next = 0;
  const started = process.hrtime.bigint();
  const lane = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const a = await request(urls[i % urls.length]! + ROUTE, { 'x-api-key': key }, agent);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return { statuses, ok: statuses.get(200) ?? 0, elapsedSeconds };
}

/** The value of an unlabelled series in a /metrics answer, or null when absent. */
export async function metric(baseUrl: string, name: string): Promise<number | null> {
  const text = (await request(`${baseUrl}/metrics`, {}, false)).body;
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Keys matching `pattern` (redis-cli KEYS; a small test database). */
  keys(pattern: string): Promise<string[]>;
}

function redisCli(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => resolve(out));
    child.on('error', () => resolve(''));
  });
}

/**
 * The machine's Redis at 127.0.0.1:6379 when one answers there (stop() then leaves it alone); otherwise
 * a redis-server of this test's own on that port, stopped by stop().
 */
export async function machineRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if ((await redisCli(6379, 'PING')).trim() === 'PONG') return { url: 'redis://127.0.0.1:6379', stop: async () => undefined };
  const own = await ownRedis(6379);
  return { url: own.url, stop: () => own.stop() };
}

/** A redis-server of this test's own on a free loopback port, without persistence; start() again after stop(). */
export async function ownRedis(fixedPort?: number): Promise<RedisServer> {
  const port = fixedPort ?? (await freePort());
  let dir = '';
  let child: ChildProcess | null = null;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      dir = mkdtempSync(path.join(tmpdir(), 'addrsum-redis-'));
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: 'ignore',
      });
      const up = await until(
        () => redisCli(port, 'PING'),
        (out) => out.trim() === 'PONG',
        10_000,
      );
      if (up.trim() !== 'PONG') throw new Error(`redis-server on port ${port} did not start`);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
    keys: async (pattern) => (await redisCli(port, '--raw', 'KEYS', pattern)).split('\n').filter((l) => l !== ''),
  };
  await server.start();
  return server;
}
