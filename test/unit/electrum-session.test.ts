/**
 * One Electrum session (src/electrum/session.ts) over a real loopback socket, with methods and a meter
 * of the test's own: what the registry's handlers may do (throw, notify, be slow, take named params),
 * what a client may do wrong (garbage lines in a row, spending past a hard limit, going quiet), and that the
 * session says why it closed exactly once.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CloseReason } from '../../src/electrum/close-reasons.js';
import { methodRegistry, type MethodSpec } from '../../src/electrum/methods/registry.js';
import type { Admission, Meter } from '../../src/electrum/cost-meter.js';
import { MAX_BAD_LINES, MAX_IN_FLIGHT, Session } from '../../src/electrum/session.js';
import { ElectrumClient, type Answer } from '../support/electrum-client.js';

interface World {
  readonly client: ElectrumClient;
  readonly closed: Array<CloseReason | undefined>;
  readonly details: Array<string | undefined>;
  readonly outcomes: string[];
  readonly internal: unknown[];
}

const servers: net.Server[] = [];
const clients: ElectrumClient[] = [];

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) s.close();
});

const NOW: Admission = { kind: 'serve', delayMs: 0 };
const free: Meter = { admit: () => NOW };

async function world(methods: Record<string, MethodSpec>, meter: Meter = free, idleTimeoutMs = 60_000): Promise<World> {
  const closed: Array<CloseReason | undefined> = [];
  const details: Array<string | undefined> = [];
  const outcomes: string[] = [];
  const internal: unknown[] = [];
  const registry = methodRegistry(methods);
  const server = net.createServer((socket) => {
    new Session({
      socket,
      network: '127.0.0.1',
      registry,
      limits: { maxLineBytes: 4096, maxBufferedBytes: 1 << 20, idleTimeoutMs },
      meter,
      events: {
        request: (method, outcome) => outcomes.push(`${method} ${outcome}`),
        notified: (method) => outcomes.push(`${method} notified`),
        delayed: (ms) => outcomes.push(`delayed ${ms}`),
        internalError: (_method, err) => internal.push(err),
        closed: (reason, detail) => {
          closed.push(reason);
          details.push(detail);
        },
      },
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = await ElectrumClient.connect((server.address() as net.AddressInfo).port);
  clients.push(client);
  return { client, closed, details, outcomes, internal };
}

const method = (handler: MethodSpec['handler'], params: string[] = []): MethodSpec => ({ cost: 1, params, handler });

describe('Electrum session', () => {
  it('answers a method that throws with -32603, logs it, and goes on', async () => {
    const w = await world({
      'test.broken': method(async () => {
        throw new TypeError('bug');
      }),
      'test.ok': method(async () => 'fine'),
    });
    expect((await w.client.call('test.broken')).error).toEqual({ code: -32603, message: 'internal error' });
    expect(w.internal).toHaveLength(1);
    expect((await w.client.call('test.ok')).result).toBe('fine');
    expect(w.outcomes).toEqual(['test.broken internal', 'test.ok ok']);
  });

  it('gives named params to the handler in order, and refuses unknown names and extra params', async () => {
    const w = await world({ 'test.echo': method(async (params) => params, ['a', 'b']) });
    w.client.send(JSON.stringify({ jsonrpc: '2.0', id: 'n', method: 'test.echo', params: { b: 2, a: 1 } }));
    expect((await w.client.answer('n')).result).toEqual([1, 2]);
    w.client.send(JSON.stringify({ jsonrpc: '2.0', id: 'u', method: 'test.echo', params: { c: 3 } }));
    expect((await w.client.answer('u')).error?.code).toBe(-32602);
    expect((await w.client.call('test.echo', [1, 2, 3])).error?.code).toBe(-32602);
  });

  it('ignores extra params of a method that says so, as 1.6 asks of server.version', async () => {
    const w = await world({ 'test.lenient': { ...method(async (params) => params, ['a', 'b']), extraParams: 'ignored' } });
    expect((await w.client.call('test.lenient', [1, 2, 'trailing', 9999.9, {}])).result).toEqual([1, 2]);
    w.client.send(JSON.stringify({ jsonrpc: '2.0', id: 'n', method: 'test.lenient', params: { a: 1, dd: {} } }));
    expect((await w.client.answer('n')).result).toEqual([1, null]);
  });

  it('serves a method only in the protocol versions that have it', async () => {
    const w = await world({
      'test.version': method(async (_params, session) => {
        session.negotiated('t', '1.6');
        return 'ok';
      }),
      'test.new': { ...method(async () => 'new'), since: '1.6' },
      'test.old': { ...method(async () => 'old'), until: '1.6' },
    });
    // Before any negotiation a session speaks 1.4.
    expect((await w.client.call('test.old')).result).toBe('old');
    expect((await w.client.call('test.new')).error).toEqual({ code: -32601, message: 'method test.new is not part of protocol 1.4' });
    await w.client.call('test.version');
    expect((await w.client.call('test.new')).result).toBe('new');
    expect((await w.client.call('test.old')).error).toEqual({ code: -32601, message: 'method test.old is not part of protocol 1.6' });
    expect(w.outcomes).toContain('test.new not_found');
  });

  it('sends what a handler notifies, named after its method', async () => {
    const w = await world({
      'test.subscribe': method(async (_params, session) => {
        setImmediate(() => session.notify('test.subscribe', ['news']));
        return 'subscribed';
      }),
    });
    expect((await w.client.call('test.subscribe')).result).toBe('subscribed');
    const note = await w.client.waitFor((m) => (m as { method?: string }).method === 'test.subscribe');
    expect(note).toEqual({ jsonrpc: '2.0', method: 'test.subscribe', params: ['news'] });
    expect(w.outcomes).toContain('test.subscribe notified');
  });

  it(`closes after ${MAX_BAD_LINES} unusable lines in a row, each answered; a good line in between resets the count`, async () => {
    const w = await world({ 'test.ok': method(async () => 'fine') });
    for (let i = 0; i < MAX_BAD_LINES - 1; i++) w.client.send('garbage');
    expect((await w.client.call('test.ok')).result).toBe('fine');
    for (let i = 0; i < MAX_BAD_LINES - 1; i++) w.client.send('garbage');
    expect((await w.client.call('test.ok')).result).toBe('fine');
    for (let i = 0; i < MAX_BAD_LINES; i++) w.client.send('{"jsonrpc":"1.0"}');
    await w.client.closedWithin();
    expect((w.client.messages as Answer[]).filter((m) => m.error !== undefined)).toHaveLength(3 * MAX_BAD_LINES - 2);
    expect(w.closed).toEqual(['bad_lines']);
  });

  it('serves a line the meter delays once its delay has passed, not before, and never refuses it', async () => {
    let admitted = 0;
    let ran = 0;
    const w = await world(
      { 'test.ok': method(async () => (ran = performance.now())) },
      {
        // The request's cost (1) waits; its line's size cost, before parsing, does not.
        admit: (cost) => {
          if (cost < 1) return NOW;
          admitted = performance.now();
          return { kind: 'serve', delayMs: 300 };
        },
      },
    );
    expect((await w.client.call('test.ok')).error).toBeUndefined();
    // A lower bound only: a slow machine makes the wait longer, never shorter.
    expect(ran - admitted).toBeGreaterThanOrEqual(295);
    expect(w.outcomes).toEqual(['delayed 300', 'test.ok ok']);
  });

  it('answers every line with -101 once past the hard limit, says why and closes', async () => {
    let budget = 3;
    // Counted by the requests' costs (1 each), not the lines' size costs before parsing (far below 1).
    const meter: Meter = { admit: (cost) => (cost < 1 || budget-- > 0 ? NOW : { kind: 'over', why: 'the session is over' }) };
    const w = await world({ 'test.ok': method(async () => 'fine') }, meter);
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'test.ok' }));
    w.client.socket.write(`${lines.join('\n')}\n`);
    await w.client.closedWithin();
    const answers = w.client.messages as Answer[];
    expect(answers.filter((a) => a.result === 'fine')).toHaveLength(3);
    const over = answers.filter((a) => a.error?.code === -101);
    expect(over.length).toBeGreaterThanOrEqual(1);
    expect(over[0]!.error?.message).toContain('the session is over');
    expect(w.closed).toEqual(['rate_limited']);
    expect(w.details).toEqual(['the session is over']);
  });

  it(`handles at most ${MAX_IN_FLIGHT} lines at once`, async () => {
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = await world({
      'test.slow': method(async () => {
        most = Math.max(most, ++running);
        await gate;
        running--;
        return 'done';
      }),
    });
    const lines = Array.from({ length: 3 * MAX_IN_FLIGHT }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'test.slow' }));
    w.client.socket.write(`${lines.join('\n')}\n`);
    await expect.poll(() => running).toBe(MAX_IN_FLIGHT);
    release();
    await w.client.answer(3 * MAX_IN_FLIGHT - 1);
    expect(most).toBe(MAX_IN_FLIGHT);
  });

  it('keeps a client that reads a long answer while notifications are written behind it', async () => {
    // 12 MB per answer, over maxBufferedBytes (1 MiB here) and what the kernel takes at once; each answer
    // is followed at once by notifications, written while it is still on its way to the client.
    const long = 'x'.repeat(12 << 20);
    const w = await world({
      'test.long': method(async (_params, session) => {
        setImmediate(() => {
          for (let i = 0; i < 20; i++) session.notify('test.news', [i]);
        });
        return long;
      }),
    });
    for (let i = 0; i < 2; i++) expect((await w.client.call('test.long', [], 30_000)).result).toHaveLength(long.length);
    await w.client.waitFor((m) => (m as { params?: unknown[] }).params?.[0] === 19);
    expect(w.closed).toEqual([]);
  });

  it('closes a connection that sends nothing for the idle time', async () => {
    const w = await world({}, free, 200);
    await w.client.closedWithin();
    expect(w.closed).toEqual(['idle']);
  });

  it('says nothing of a cause when the client leaves', async () => {
    const w = await world({ 'test.ok': method(async () => 'fine') });
    expect((await w.client.call('test.ok')).result).toBe('fine');
    w.client.close();
    await expect.poll(() => w.closed).toEqual([undefined]);
  });

  it('charges work done by debit, and runs close hooks once when the client leaves', async () => {
    const paid: number[] = [];
    let hooks = 0;
    const w = await world(
      {
        'test.long': method(async (_params, session) => {
          session.onClose(() => hooks++);
          await session.charge(3);
          await session.charge(0);
          return 'read';
        }),
      },
      {
        admit: (cost) => {
          paid.push(cost);
          return NOW;
        },
      },
    );
    expect((await w.client.call('test.long')).result).toBe('read');
    // The line's size before it is parsed, the fixed cost before the handler, the work after it; nothing for 0.
    expect(paid[0]).toBeGreaterThan(0);
    expect(paid[0]).toBeLessThan(0.01);
    expect(paid.slice(1)).toEqual([1, 3]);
    w.client.close();
    await expect.poll(() => hooks).toBe(1);
  });

  it('answers -101 and closes when work charged passes the hard limit', async () => {
    const w = await world(
      {
        'test.long': method(async (_params, session) => {
          await session.charge(50);
          return 'read';
        }),
      },
      { admit: (cost) => (cost > 10 ? { kind: 'over', why: 'too much read' } : NOW) },
    );
    expect((await w.client.call('test.long')).error).toEqual({ code: -101, message: "over this server's limits (too much read): closing" });
    await w.client.closedWithin();
    expect(w.closed).toEqual(['rate_limited']);
    expect(w.details).toEqual(['too much read']);
  });
});
