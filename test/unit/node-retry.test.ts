import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeClient, NodeError, withRetry } from '../../src/node/node-client.js';
import { freePort } from '../../harness/ports.js';
import type { LogSink } from '../../src/logger.js';

function memoryLog(): LogSink & { lines: { obj: object; msg: string }[] } {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, warn: (obj, msg) => lines.push({ obj, msg }), info: (obj, msg) => lines.push({ obj, msg }) };
}

const servers: http.Server[] = [];
const clients: NodeClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

describe('withRetry', () => {
  const transient = (): NodeError => new NodeError('WARMING_UP', 'node at http://u:***@127.0.0.1:1/ warming up', true);

  it('retries transient errors with growing delays and returns the eventual result', async () => {
    const log = memoryLog();
    let calls = 0;
    const delays: number[] = [];
    const result = await withRetry(
      async () => {
        if (++calls < 4) throw transient();
        return 'ok';
      },
      { log, baseDelayMs: 4, maxDelayMs: 16, onRetry: (_e, _a, d) => delays.push(d), what: 'getblockcount' },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(4);
    expect(delays).toHaveLength(3);
    // Equal jitter: each delay lies in [ceiling/2, ceiling] with ceiling = min(16, 4·2^(n-1)).
    [4, 8, 16].forEach((ceiling, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delays[i]).toBeLessThanOrEqual(ceiling);
    });
    expect(log.lines).toHaveLength(4);
    expect(log.lines[3]!.msg).toBe('node getblockcount answered again');
    expect(log.lines[0]!.obj).toMatchObject({ code: 'WARMING_UP', attempt: 1 });
    expect(log.lines[0]!.msg).toContain('getblockcount');
  });

  it('retries AUTH and UNREACHABLE (an operator may fix them) but not RPC or NOT_FOUND', async () => {
    for (const code of ['AUTH', 'UNREACHABLE'] as const) {
      let calls = 0;
      await withRetry(
        async () => {
          if (++calls === 1) throw new NodeError(code, 'x', code === 'UNREACHABLE');
          return 1;
        },
        { baseDelayMs: 1 },
      );
      expect(calls).toBe(2);
    }
    for (const code of ['RPC', 'NOT_FOUND'] as const) {
      let calls = 0;
      const p = withRetry(
        async () => {
          calls++;
          throw new NodeError(code, 'x', false);
        },
        { baseDelayMs: 1 },
      );
      await expect(p).rejects.toMatchObject({ code });
      expect(calls).toBe(1);
    }
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new TypeError('bug');
      }),
    ).rejects.toThrow(TypeError);
    expect(calls).toBe(1);
  });

  it('gives up after maxAttempts with the last error', async () => {
    let calls = 0;
    const p = withRetry(
      async () => {
        calls++;
        throw transient();
      },
      { baseDelayMs: 1, maxAttempts: 3 },
    );
    await expect(p).rejects.toMatchObject({ code: 'WARMING_UP' });
    expect(calls).toBe(3);
  });

  it('stops waiting as soon as the signal aborts', async () => {
    const ac = new AbortController();
    const reason = new Error('shutting down');
    let calls = 0;
    const p = withRetry(
      async () => {
        calls++;
        throw transient();
      },
      { signal: ac.signal, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    );
    // Abort while it waits out its first back-off, which is longer than this test may run: only the
    // signal can end the wait.
    await vi.waitFor(() => expect(calls).toBe(1));
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(calls).toBe(1);
  });

  it('retries against a real socket until the node comes up, logging codes but never the password', async () => {
    const port = await freePort();
    const log = memoryLog();
    const c = new NodeClient({ url: `http://alice:s%40cret@127.0.0.1:${port}`, timeoutMs: 2_000 });
    clients.push(c);
    let server: http.Server | undefined;
    setTimeout(() => {
      server = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: 42, error: null, id: 1 }));
      });
      server.listen(port, '127.0.0.1');
      servers.push(server);
    }, 100);
    const n = await withRetry(() => c.getBlockCount(), { log, baseDelayMs: 20, maxDelayMs: 40 });
    expect(n).toBe(42);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(
      log.lines.filter((l) => !l.msg.endsWith('answered again')).every((l) => (l.obj as { code: string }).code === 'UNREACHABLE'),
    ).toBe(true);
    expect(JSON.stringify(log.lines)).not.toContain('cret');
  });
});
