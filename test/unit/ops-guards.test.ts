/**
 * The small parts behind operational truth, each on its own: client networks (/64), the wrong-key peek,
 * log sampling, file identity, a watched database file (deleted, replaced, damaged, restored), the
 * reader's error messages, file modes, the connection guard, and the indexer's retry series.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFile,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { buckets, clientNetwork } from '../../src/serving/caller-buckets.js';
import { createHttpServer } from '../../src/api/http-server.js';
import { LogSampler } from '../../src/serving/log-sampler.js';
import { perTurn } from '../../src/api-process/per-turn.js';
import { TokenBucketLimiter } from '../../src/serving/token-bucket.js';
import { WatchedFile } from '../../src/serving/watched-file.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { isUnusableDatabase } from '../../src/store/errors.js';
import { truncationProblem } from '../../src/store/sqlite/file-header.js';
import { fileIdentity, sameFile } from '../../src/file-identity.js';
import { buildWorld, type World } from '../support/api-world.js';
import { REPO_ROOT } from '../../harness/indexer-process.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'addrsum-ops-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('client networks', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6 and cuts IPv6 to its /64', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:DB8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetwork(undefined)).toBe('unknown');
    expect(buckets.anonymous('2001:db8:1:2::1')).toBe(buckets.anonymous('2001:db8:1:2:ffff::2'));
    expect(buckets.anonymous('2001:db8:1:3::1')).not.toBe(buckets.anonymous('2001:db8:1:2::1'));
    expect(buckets.invalidKey('10.0.0.1')).not.toBe(buckets.anonymous('10.0.0.1'));
  });

  it('anonymous callers share one bucket per IPv6 /64', async () => {
    const w: World = buildWorld({ allowAnonymous: true });
    try {
      w.app.set('trust proxy', 1);
      const { default: request } = await import('supertest');
      const get = (ip: string) => request(w.app).get('/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo').set('X-Forwarded-For', ip);
      const statuses: number[] = [];
      // burst 10 for the default tier: 11 requests from 11 addresses of one /64.
      for (let i = 1; i <= 11; i++) statuses.push((await get(`2001:db8:aa:bb::${i.toString(16)}`)).status);
      expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      expect(statuses[10]).toBe(429);
      expect((await get('2001:db8:aa:bc::1')).status).toBe(200);
    } finally {
      w.cleanup();
    }
  });
});

describe('token bucket peek', () => {
  it('cost 0 looks without taking and without creating a bucket', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    const limits = { rate: 1, burst: 2 };
    expect(limiter.consume('a', limits, 0).allowed).toBe(true);
    expect(limiter.size).toBe(0);
    limiter.consume('a', limits);
    limiter.consume('a', limits);
    expect(limiter.consume('a', limits, 0).allowed).toBe(false);
    t += 1000;
    expect(limiter.consume('a', limits, 0).allowed).toBe(true);
    expect(limiter.consume('a', limits, 0).allowed).toBe(true);
  });
});

describe('log sampler', () => {
  it('writes the first lines of a window, counts the rest, and reports them once when the window ends', () => {
    const s = new LogSampler(3, 1000);
    const admitted = Array.from({ length: 10 }, () => s.admit('401', 0));
    expect(admitted.filter(Boolean)).toHaveLength(3);
    expect(s.due(999)).toEqual([]);
    expect(s.due(1000)).toEqual([{ kind: '401', suppressed: 7, windowStart: 0 }]);
    expect(s.due(1000)).toEqual([]);
    expect(s.admit('401', 1000)).toBe(true);
    expect(s.admit('429', 1000)).toBe(true);
  });
});

describe('file identity', () => {
  it('tells the same file from a replaced or missing one', () => {
    const d = tempDir();
    const a = path.join(d, 'a');
    writeFileSync(a, 'x');
    const first = fileIdentity(a);
    expect(sameFile(first, fileIdentity(a))).toBe(true);
    writeFileSync(path.join(d, 'b'), 'y');
    renameSync(path.join(d, 'b'), a);
    expect(sameFile(first, fileIdentity(a))).toBe(false);
    rmSync(a);
    expect(fileIdentity(a)).toBeNull();
    expect(sameFile(null, null)).toBe(false);
  });
});

function makeIndex(file: string): void {
  const store = ChainStore.open(file, { chain: 'LTC', network: 'regtest' });
  store.close();
}

describe('per-turn check', () => {
  // As in the API: asked from I/O callbacks (a socket's data, here a file read's completion), whose
  // continuation runs before the loop moves on to its check phase.
  const ioTurn = (): Promise<void> => new Promise((resolve) => readFile(new URL(import.meta.url), () => resolve()));

  it('computes once per event-loop turn of I/O callbacks, again in a later turn, and at once after forget()', async () => {
    let calls = 0;
    const check = perTurn(() => ++calls);
    await ioTurn();
    expect([check.get(), check.get(), check.get()]).toEqual([1, 1, 1]);
    // A request read in a later turn (one sent after a change) gets a fresh check.
    await ioTurn();
    expect([check.get(), check.get()]).toEqual([2, 2]);
    check.forget();
    expect(check.get()).toBe(3);
    await ioTurn();
    expect(check.get()).toBe(4);
  });
});

describe('watched database file', () => {
  it('reopens a replaced file, answers missing for a deleted one, and recovers from damage once restored', () => {
    const d = tempDir();
    const file = path.join(d, 'ltc.sqlite');
    makeIndex(file);
    let t = 0;
    const clock = { now: () => t };
    const opened: string[] = [];
    const watched = new WatchedFile(
      file,
      () => ChainReader.open(file),
      clock,
      isUnusableDatabase,
      { onReplaced: (what) => opened.push(what) },
      1000,
      truncationProblem,
    );
    const first = watched.get();
    expect(first.ok).toBe(true);
    // Deleted: never the old handle again.
    rmSync(file);
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
    const gone = watched.get();
    expect(gone).toMatchObject({ ok: false, damaged: false });
    expect(opened).toEqual(['deleted']);
    // Re-created by a new indexer: opened at once (no retry wait: the identity changed).
    makeIndex(file);
    const again = watched.get();
    expect(again.ok).toBe(true);
    expect(again.ok && first.ok && again.value !== first.value).toBe(true);
    // Replaced by rename: a new handle.
    const copy = path.join(d, 'copy.sqlite');
    const db = new Database(file, { readonly: true });
    db.exec(`VACUUM INTO '${copy}'`);
    db.close();
    renameSync(copy, file);
    const swapped = watched.get();
    expect(swapped.ok && again.ok && swapped.value !== again.value).toBe(true);
    expect(opened).toEqual(['deleted', 'replaced']);
    // Truncated in place (same inode, header intact): noticed by the size check within retryMs.
    const backup = path.join(d, 'backup.sqlite');
    copyFileSync(file, backup);
    const size = statSync(file).size;
    truncateSync(file, Math.floor(size / 2));
    expect(watched.get().ok).toBe(true);
    t += 1000;
    const cut = watched.get();
    expect(cut).toMatchObject({ ok: false, damaged: true, reason: expect.stringContaining('is truncated') });
    // Overwritten header: a read fails (the handle is dropped), opening fails as DAMAGED.
    writeFileSync(file, Buffer.alloc(100, 0x41), { flag: 'r+' });
    watched.drop('a read failed');
    t += 1000;
    const broken = watched.get();
    expect(broken).toMatchObject({ ok: false, damaged: true });
    // Restored (copied over the same inode): answers again without a restart.
    copyFileSync(backup, file);
    t += 1000;
    const restored = watched.get();
    expect(restored.ok).toBe(true);
    watched.close();
  });
});

describe('reader error messages', () => {
  it('tells a missing file from an unreadable one and from a damaged one', () => {
    const d = tempDir();
    const missing = path.join(d, 'none.sqlite');
    expect(() => ChainReader.open(missing)).toThrow(
      expect.objectContaining({ code: 'NO_DATABASE', message: expect.stringContaining('does not exist') }) as Error,
    );
    const dir = path.join(d, 'dir.sqlite');
    mkdirSync(dir);
    expect(() => ChainReader.open(dir)).toThrow(
      expect.objectContaining({ code: 'UNREADABLE', message: expect.stringContaining('is a directory') }) as Error,
    );
    const junk = path.join(d, 'junk.sqlite');
    writeFileSync(junk, Buffer.alloc(8192, 0x41));
    expect(() => ChainReader.open(junk)).toThrow(expect.objectContaining({ code: 'DAMAGED' }) as Error);
    // Permission denied. Root reads any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so as root the
    // child runs without those two capabilities (setpriv, util-linux). It keeps its uid, so it reaches
    // the checkout wherever that lives (another user may not: a clone inside a 0700 directory), and a
    // mode-000 file is as closed to it as to anyone.
    const locked = path.join(d, 'locked.sqlite');
    makeIndex(locked);
    chmodSync(locked, 0o000);
    const opener = [process.execPath, '--import', 'tsx', 'test/support/open-index-child.ts', locked];
    const [cmd, ...args] =
      process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--', ...opener] : opener;
    const child = spawnSync(cmd!, args, { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(child.status, `${child.error?.message ?? ''} ${child.stderr}`).toBe(0);
    const outcome = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as { code?: string; message?: string };
    expect(outcome.code).toBe('UNREADABLE');
    expect(outcome.message).toContain('cannot be read by this process (EACCES)');
    expect(outcome.message).not.toContain('does not exist');
  });
});

describe('file modes', () => {
  it('creates keys.sqlite 0600 and the data directory 0700', () => {
    const d = tempDir();
    const dataDir = path.join(d, 'data');
    const store = KeyStore.open(path.join(dataDir, 'keys.sqlite'));
    store.create('private', 'x');
    store.close();
    expect(statSync(path.join(dataDir, 'keys.sqlite')).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const other = path.join(d, 'other');
    makeIndex(path.join(other, 'ltc.sqlite'));
    expect(statSync(other).mode & 0o777).toBe(0o700);
  });
});

async function connected(port: number): Promise<net.Socket> {
  const s = net.connect({ host: '127.0.0.1', port });
  s.on('error', () => undefined);
  await new Promise<void>((resolve) => s.once('connect', () => resolve()));
  return s;
}

/**
 * Sends a request whose 100 kB body comes one byte per 100 ms (hours in all); resolves, with the bytes of
 * body sent, when the server closed the socket. Only a request timeout can close it within a test.
 */
async function trickleUntilClosed(s: net.Socket): Promise<number> {
  s.write('GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
  let sent = 0;
  const timer = setInterval(() => s.write('a', () => sent++), 100);
  await new Promise<void>((resolve) => s.once('close', () => resolve()));
  clearInterval(timer);
  return sent;
}

describe('connection guard', () => {
  it('with the cap full of idle sockets, /health still answers (the oldest idle one is closed)', async () => {
    const w = buildWorld();
    const server = createHttpServer(w.app, pino({ level: 'silent' }), { maxConnections: 50 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sockets: net.Socket[] = [];
    try {
      let closedByServer = 0;
      for (let i = 0; i < 200; i++) {
        const s = net.connect({ host: '127.0.0.1', port });
        s.on('error', () => undefined);
        s.on('close', () => closedByServer++);
        sockets.push(s);
        await new Promise<void>((resolve) => s.once('connect', () => resolve()));
      }
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(JSON.parse(body)).toMatchObject({ status: 'success', data: { status: 'ok' } });
      await vi.waitFor(() => expect(closedByServer).toBeGreaterThanOrEqual(150));
    } finally {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      w.cleanup();
    }
  });

  it('holds one timer and one close listener per keep-alive connection, and still times out its later requests', async () => {
    const w = buildWorld();
    const server = createHttpServer(w.app, pino({ level: 'silent' }), { requestTimeoutMs: 1000, checkIntervalMs: 200 });
    const serverSockets: net.Socket[] = [];
    server.on('connection', (sock: net.Socket) => serverSockets.push(sock));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const s = await connected(port);
      let received = '';
      s.on('data', (c: Buffer) => (received += c.toString('latin1')));
      for (let i = 1; i <= 300; i++) {
        s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
        while ((received.match(/HTTP\/1\.1 200/g) ?? []).length < i) await new Promise((r) => setTimeout(r, 1));
      }
      expect(serverSockets).toHaveLength(1);
      // Before: one 'close' listener (and one timer) per request was left on the socket until it closed.
      expect(serverSockets[0]!.listenerCount('close')).toBeLessThan(10);
      expect(await trickleUntilClosed(s)).toBeLessThan(100_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      w.cleanup();
    }
  });

  it('closes a request that is not done within requestTimeoutMs (a body trickled byte by byte)', async () => {
    const w = buildWorld();
    const server = createHttpServer(w.app, pino({ level: 'silent' }), { requestTimeoutMs: 1000, checkIntervalMs: 200 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const s = await connected(port);
      // Far below Node's own 300 s default; the exact time depends on the check interval and load.
      expect(await trickleUntilClosed(s)).toBeLessThan(100_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      w.cleanup();
    }
  });
});

describe('indexer retry series', () => {
  it('exports node_retries_total for every code at 0 from the start, and build info', async () => {
    const text = await new IndexerMetrics('LTC').registry.metrics();
    for (const code of ['UNREACHABLE', 'AUTH', 'WARMING_UP', 'TIMEOUT']) {
      expect(text).toContain(`addrsum_indexer_node_retries_total{code="${code}",chain="LTC"} 0`);
    }
    expect(text).toMatch(/addrsum_build_info\{version="[^"]+",node="v[^"]+",chain="LTC"\} 1/);
    expect(text).toContain('addrsum_indexer_node_last_seen_timestamp_seconds');
    expect(text).toContain('addrsum_indexer_tip_block_timestamp_seconds');
  });
});
