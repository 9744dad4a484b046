/**
 * Logging that cannot take the API down (issue 22, items 2 and 4), on the real process:
 *   - its log (stdout) on a 2 MiB tmpfs that is full: /health keeps answering, whether the disk fills
 *     while it runs or was already full when it started, and a stop still exits;
 *   - 6,000 requests answered 404, 400 and 405 grow the log by at most 300 KB (request lines of every
 *     status are sampled past a rate, and the left-out lines are counted on /metrics).
 * The tmpfs is mounted by a child with a mount namespace of its own (as root and as any user), which
 * starts the API there and fills the disk when told; the test reaches the API on loopback.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from '../../harness/api-process.js';
import { freePort } from '../../harness/ports.js';
import { makeDataDir, type DataDir } from '../support/limits-world.js';
import { onJsonLines, spawnWithOwnMounts } from '../support/own-tmpfs.js';

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
const running: ApiOnTmpfs[] = [];

beforeAll(() => {
  data = makeDataDir('logs');
  mountDir = mkdtempSync(path.join(tmpdir(), 'addrsum-full-'));
});

afterEach(() => {
  for (const api of running.splice(0)) {
    // Ending its stdin makes the child kill the API (SIGKILL) and exit.
    api.child.stdin!.end();
  }
});

afterAll(() => {
  rmSync(mountDir, { recursive: true, force: true });
  data.remove();
});

interface ApiOnTmpfs {
  readonly child: ChildProcess;
  /** The API's own process (the child's child). */
  readonly pid: number;
  readonly url: string;
  /** Bytes left on the log disk when the API started, when it was filled first. */
  readonly free: number | null;
  /** `exited <code or signal>` once the API has exited, else null. */
  exitedWith(): string | null;
  readonly exited: Promise<number | string>;
  stderr(): string;
  /** Fills the log disk while the API runs; resolves with the bytes left. */
  fill(): Promise<number>;
}

/** The API with its stdout on a fresh tmpfs, `full` from the start or `empty`; stderr is kept by the test. */
async function apiLoggingToTmpfs(start: 'empty' | 'full'): Promise<ApiOnTmpfs> {
  const port = await freePort();
  const child = spawnWithOwnMounts('test/support/api-full-disk-child.ts', [mountDir, start], {
    ...data.env,
    ADDRSUM_HOST: '127.0.0.1',
    ADDRSUM_PORT: String(port),
    ADDRSUM_LOG_LEVEL: 'info',
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let exitedWith: string | null = null;
  let onExit: (v: number | string) => void = () => undefined;
  const exited = new Promise<number | string>((resolve) => (onExit = resolve));
  let onFilled: (free: number) => void = () => undefined;
  const started = new Promise<{ pid: number; free: number | null }>((resolve, reject) => {
    onJsonLines(child, (line) => {
      if (typeof line.pid === 'number') resolve({ pid: line.pid, free: line.free as number | null });
      else if ('exit' in line) {
        exitedWith = `exited ${String(line.exit)}`;
        onExit(line.exit as number | string);
      } else if (typeof line.free === 'number') onFilled(line.free);
    });
    child.on('exit', (code) => reject(new Error(`the tmpfs child exited ${String(code)} before starting the API:\n${stderr}`)));
  });
  const { pid, free } = await started;
  const api: ApiOnTmpfs = {
    child,
    pid,
    url: `http://127.0.0.1:${port}`,
    free,
    exitedWith: () => exitedWith,
    exited,
    stderr: () => stderr,
    fill: () =>
      new Promise<number>((resolve) => {
        onFilled = resolve;
        child.stdin!.write('fill\n');
      }),
  };
  running.push(api);
  return api;
}

/** /health's status, or the exit code once the process has exited, polled for up to 15 s (or 60 s to start). */
async function healthOrExit(api: ApiOnTmpfs, timeout: number): Promise<string> {
  let last = 'no answer';
  await expect
    .poll(
      async () => {
        const exited = api.exitedWith();
        if (exited !== null) return (last = exited);
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
    const api = await apiLoggingToTmpfs('empty');
    // Started (it answers) before the disk is full.
    expect(await healthOrExit(api, 60_000)).toBe('status 200');
    expect(await api.fill()).toBe(0);
    await flood(api.url, 3000);
    expect(await healthOrExit(api, 15_000)).toMatch(/^(status 200|exited [1-9]\d*)$/);
    if (api.exitedWith() === null) {
      // The lines it could not write are counted, and said once on stderr.
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      const dropped = /^addrsum_api_log_lines_dropped_total (\d+)/m.exec(metrics);
      expect(Number(dropped?.[1])).toBeGreaterThan(0);
      expect(api.stderr().match(/dropped \d+ log line/g)).toHaveLength(1);
      process.kill(api.pid, 'SIGTERM');
      expect(await Promise.race([api.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(0);
    }
  }, 120_000);

  it('answers /health when started on a full log disk', async () => {
    const api = await apiLoggingToTmpfs('full');
    expect(api.free).toBe(0);
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
