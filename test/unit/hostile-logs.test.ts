/**
 * Logging that cannot take the API down (issue 22, items 2 and 4), on the real process:
 *   - its log (stdout) on a 2 MiB tmpfs that is full: /health keeps answering, whether the disk fills
 *     while it runs or was already full when it started, and a stop still exits;
 *   - 6,000 requests answered 404, 400 and 405 grow the log by at most 300 KB (request lines of every
 *     status are sampled past a rate, and the left-out lines are counted on /metrics).
 * The tmpfs needs root (mount); the test fails, not skips, without it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from '../../harness/api-process.js';
import { REPO_ROOT } from '../../harness/indexer-process.js';
import { freePort } from '../../harness/ports.js';
import { makeDataDir, type DataDir } from '../support/limits-world.js';

// autocannon ships no types; this is the part of its programmatic API used here.
type Autocannon = (
  opts: {
    url: string;
    connections: number;
    amount: number;
    timeout: number;
    requests: Array<{ method: string; path: string }>;
  },
  done: (err: Error | null) => void,
) => { stop(): void };
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

let data: DataDir;
let mountDir: string;
const running: ChildProcess[] = [];

beforeAll(() => {
  data = makeDataDir('logs');
  mountDir = mkdtempSync(path.join(tmpdir(), 'addrsum-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountDir]);
});

afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

afterAll(() => {
  try {
    execFileSync('umount', ['-l', mountDir]);
  } finally {
    rmSync(mountDir, { recursive: true, force: true });
    data.remove();
  }
});

/** Fills the tmpfs to the last byte. */
function fillDisk(): void {
  const fd = openSync(path.join(mountDir, `filler-${Date.now()}`), 'w');
  const chunk = Buffer.alloc(64 * 1024, 'x');
  try {
    for (;;) writeFileSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // What is left after the last whole chunk.
  const fd2 = openSync(path.join(mountDir, `filler-tail-${Date.now()}`), 'w');
  try {
    for (;;) writeFileSync(fd2, 'x');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd2);
  }
}

function emptyDisk(): void {
  execFileSync('sh', ['-c', `rm -f "${mountDir}"/*`]);
}

/** The API with its stdout on the tmpfs; stderr is kept by the test. */
async function apiLoggingToTmpfs(): Promise<{ child: ChildProcess; url: string; exited: Promise<number | string>; stderr: () => string }> {
  const port = await freePort();
  const log = openSync(path.join(mountDir, `api-${port}.log`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/api/addrsum-api.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...data.env, ADDRSUM_HOST: '127.0.0.1', ADDRSUM_PORT: String(port), ADDRSUM_LOG_LEVEL: 'info' },
    stdio: ['ignore', log, 'pipe'],
  });
  closeSync(log);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  running.push(child);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, url: `http://127.0.0.1:${port}`, exited, stderr: () => stderr };
}

/** /health's status, or the exit code once the process has exited, polled for up to 15 s (or 60 s to start). */
async function healthOrExit(api: { url: string; child: ChildProcess }, timeout: number): Promise<string> {
  let last = 'no answer';
  await expect
    .poll(
      async () => {
        if (api.child.exitCode !== null) return (last = `exited ${api.child.exitCode}`);
        try {
          const res = await fetch(`${api.url}/health`, { signal: AbortSignal.timeout(1000) });
          return (last = `status ${res.status}`);
        } catch {
          return (last = 'no answer');
        }
      },
      { timeout, interval: 250 },
    )
    .toMatch(/^(status 200|exited [1-9]\d*)$/);
  return last;
}

async function flood(url: string, count: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    // Bounded in time too: an API that stops answering must fail the test, not hang it.
    const run = autocannon(
      {
        url,
        connections: 10,
        amount: count,
        timeout: 2,
        requests: [
          { method: 'GET', path: '/no/such/route' },
          { method: 'GET', path: '/api/v1/LTC/address/not-an-address' },
          { method: 'DELETE', path: '/health' },
        ],
      },
      (err) => (err ? reject(err) : resolve()),
    );
    setTimeout(() => run.stop(), 20_000).unref();
  });
}

describe('logging', () => {
  it('keeps /health answering when the log disk fills while it runs', async () => {
    emptyDisk();
    const api = await apiLoggingToTmpfs();
    // Started (it answers) before the disk is full.
    expect(await healthOrExit(api, 60_000)).toBe('status 200');
    fillDisk();
    await flood(api.url, 3000);
    expect(await healthOrExit(api, 15_000)).toMatch(/^(status 200|exited [1-9]\d*)$/);
    if (api.child.exitCode === null) {
      // The lines it could not write are counted, and said once on stderr.
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      const dropped = /^addrsum_api_log_lines_dropped_total (\d+)/m.exec(metrics);
      expect(Number(dropped?.[1])).toBeGreaterThan(0);
      expect(api.stderr().match(/dropped \d+ log line/g)).toHaveLength(1);
      api.child.kill('SIGTERM');
      expect(await Promise.race([api.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(0);
    }
  }, 120_000);

  it('answers /health when started on a full log disk', async () => {
    emptyDisk();
    fillDisk();
    const api = await apiLoggingToTmpfs();
    expect(await healthOrExit(api, 60_000)).toMatch(/^(status 200|exited [1-9]\d*)$/);
  }, 90_000);

  it('grows the log by at most 300 KB for 6,000 requests answered 404, 400 and 405', async () => {
    const api = await startApi({ ...data.env });
    try {
      const before = Buffer.byteLength(api.output());
      await flood(api.url, 6000);
      // Let the last lines and any summary land, then measure.
      await expect.poll(async () => (await fetch(`${api.url}/health`)).status).toBe(200);
      const grown = Buffer.byteLength(api.output()) - before;
      expect(grown).toBeLessThanOrEqual(300 * 1024);
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      const suppressed = metrics
        .split('\n')
        .filter((l) => l.startsWith('addrsum_api_log_lines_suppressed_total{'))
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      expect(suppressed).toBeGreaterThan(5000);
    } finally {
      await api.stop();
    }
  }, 120_000);
});
