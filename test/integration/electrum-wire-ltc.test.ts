/**
 * The Electrum server of the real API process (src/electrum/, docs/electrum.md) over loopback sockets,
 * TCP and TLS: the server.* methods, batches and pipelining, what a client does wrong (garbage, unknown
 * methods, an oversized line, too many connections, never reading) answered or closed for, and a flood
 * from one network that leaves another network's pings and the HTTP API served. Each client network is
 * its own loopback address (127.0.0.x), as a remote client's would be.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { REPO_ROOT } from '../../harness/indexer-process.js';
import { freePort } from '../../harness/ports.js';
import { chainParams } from '../../src/chain/params.js';
import { ElectrumClient, type Answer } from '../support/electrum-client.js';
import { makeDataDir, type DataDir } from '../support/limits-world.js';

const CONNECTIONS_PER_NETWORK = 4;
const MAX_LINE_BYTES = 4096;
const BANNER = 'b'.repeat(60_000);

let data: DataDir;
let api: ApiProcess;
let tcpPort: number;
let tlsPort: number;
let cert: Buffer;
const clients: ElectrumClient[] = [];
const children: ChildProcess[] = [];

async function connect(localAddress = '127.0.0.1', tls = false): Promise<ElectrumClient> {
  const client = await ElectrumClient.connect(tls ? tlsPort : tcpPort, { localAddress, ...(tls ? { tlsCa: cert } : {}) });
  clients.push(client);
  return client;
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

beforeAll(async () => {
  data = makeDataDir('electrum');
  const key = path.join(data.dir, 'electrum.key');
  const crt = path.join(data.dir, 'electrum.crt');
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost',
    '-keyout',
    key,
    '-out',
    crt,
  ]);
  expect(made.status, made.stderr.toString()).toBe(0);
  cert = readFileSync(crt);
  [tcpPort, tlsPort] = [await freePort(), await freePort()];
  api = await startApi({
    ...data.env,
    ADDRSUM_HISTORY: 'true',
    ADDRSUM_UTXO_LIST: 'true',
    ADDRSUM_LTC_ELECTRUM_PORT: String(tcpPort),
    ADDRSUM_LTC_ELECTRUM_TLS_PORT: String(tlsPort),
    ADDRSUM_LTC_ELECTRUM_TLS_CERT: crt,
    ADDRSUM_LTC_ELECTRUM_TLS_KEY: key,
    ADDRSUM_ELECTRUM_CONNECTIONS_PER_NETWORK: String(CONNECTIONS_PER_NETWORK),
    ADDRSUM_ELECTRUM_MAX_LINE_BYTES: String(MAX_LINE_BYTES),
    ADDRSUM_ELECTRUM_MAX_BUFFERED_BYTES: '65536',
    ADDRSUM_ELECTRUM_BANNER: BANNER,
  });
}, 90_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const child of children) child.kill('SIGKILL');
  await api?.stop();
  data?.remove();
});

describe('Electrum server.* methods, TCP and TLS', () => {
  it.each([false, true])('negotiates 1.4, pings and describes the chain (tls: %s)', async (tls) => {
    const client = await connect('127.0.0.1', tls);
    const version = await client.call('server.version', ['Electrum 4.3.4', '1.4']);
    expect(version.result).toEqual([expect.stringMatching(/^addrsum /), '1.4']);
    expect((await client.call('server.ping')).result).toBeNull();
    const features = (await client.call('server.features')).result as Record<string, unknown>;
    expect(features).toMatchObject({
      genesis_hash: chainParams('LTC', 'regtest').genesisHash,
      hosts: {},
      protocol_min: '1.4',
      protocol_max: '1.6',
      hash_function: 'sha256',
      pruning: null,
    });
    expect((await client.call('server.banner')).result).toBe(BANNER);
    expect((await client.call('server.donation_address')).result).toBe('');
    expect((await client.call('server.peers.subscribe')).result).toEqual([]);
    // A second server.version is an error, and the session goes on.
    expect((await client.call('server.version', ['Electrum 4.3.4', '1.4'])).error?.code).toBe(1);
    expect((await client.call('server.ping')).result).toBeNull();
    client.close();
  });

  it('refuses a version range without 1.4 or 1.6, then closes', async () => {
    const client = await connect();
    const answer = await client.call('server.version', ['Electrum 9', ['1.7', '1.8']]);
    expect(answer.error).toMatchObject({ code: 1, message: expect.stringContaining('unsupported protocol version') });
    await client.closedWithin();
  });

  it('answers a batch with one array, notifications left out', async () => {
    const client = await connect();
    client.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'server.ping' },
        { jsonrpc: '2.0', method: 'server.ping' },
        { jsonrpc: '2.0', id: 'b', method: 'server.donation_address' },
        { jsonrpc: '2.0', id: 'c', method: 'no.such' },
      ]),
    );
    const batch = (await client.waitFor((m) => Array.isArray(m))) as Answer[];
    expect(batch).toHaveLength(3);
    expect(Object.fromEntries(batch.map((a) => [a.id, 'result' in a ? a.result : a.error?.code]))).toEqual({ a: null, b: '', c: -32601 });
    client.close();
  });

  it('answers pipelined requests, each by its id', async () => {
    const client = await connect();
    const methods = ['server.ping', 'server.donation_address', 'server.peers.subscribe'];
    const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: methods[i % 3] }));
    client.socket.write(`${lines.join('\n')}\n`);
    const answers = await Promise.all(lines.map((_, i) => client.answer(1000 + i)));
    expect(answers.map((a) => a.result)).toEqual(Array.from({ length: 60 }, (_, i) => [null, '', []][i % 3]));
    client.close();
  });

  it('answers garbage with -32700 and unknown methods with -32601, and keeps the session', async () => {
    const client = await connect();
    client.send('this is not JSON');
    expect((await client.answer(null)).error?.code).toBe(-32700);
    expect((await client.call('blockchain.nothing', [1])).error?.code).toBe(-32601);
    expect((await client.call('server.ping')).result).toBeNull();
    client.close();
  });

  it('answers an oversized line with an error, then closes', async () => {
    const client = await connect();
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.ping', params: ['x'.repeat(MAX_LINE_BYTES)] }));
    const answer = await client.answer(null);
    expect(answer.error).toMatchObject({ code: -101, message: expect.stringContaining(`${MAX_LINE_BYTES} bytes`) });
    await client.closedWithin();
    expect(await metric('addrsum_api_electrum_disconnects_total', 'reason="oversized_line"')).toBeGreaterThanOrEqual(1);
  });
});

describe('Electrum limits', () => {
  it('caps connections per client network: the next one gets one error line and is closed; others are not affected', async () => {
    const held = await Promise.all(Array.from({ length: CONNECTIONS_PER_NETWORK }, () => connect('127.0.0.9')));
    for (const c of held) expect((await c.call('server.ping')).result).toBeNull();
    const refused = await connect('127.0.0.9');
    const line = await refused.answer(null);
    expect(line.error).toMatchObject({ code: -101, message: expect.stringContaining('too many connections') });
    await refused.closedWithin();
    const other = await connect('127.0.0.10', true);
    expect((await other.call('server.ping')).result).toBeNull();
    held[0]!.close();
    // The freed place is taken by the next connection once the server has seen the close.
    await expect
      .poll(
        async () => {
          const again = await connect('127.0.0.9');
          const first = await Promise.race([again.call('server.ping', [], 5000), again.closed.then(() => undefined)]);
          return first?.result === null;
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
    expect(await metric('addrsum_api_electrum_disconnects_total', 'reason="limit"')).toBeGreaterThanOrEqual(1);
  });

  it('disconnects a client that never reads while others are served', async () => {
    const slow = await connect('127.0.0.4');
    slow.socket.pause();
    const request = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.banner' })}\n`;
    // 60 kB per answer: far more than the socket buffers and electrum.maxBufferedBytes together.
    slow.socket.write(request.repeat(2000));
    const other = await connect('127.0.0.5');
    await expect
      .poll(() => metric('addrsum_api_electrum_disconnects_total', 'reason="slow_reader"'), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(1);
    expect((await other.call('server.ping')).result).toBeNull();
    slow.socket.resume();
    await slow.closedWithin(30_000);
  });

  it("keeps another network's pings under 250 ms (median) and the HTTP API answering, through a flood", async () => {
    const flood = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/electrum-flood-child.ts', String(tcpPort), '127.0.0.2', '8000', '3'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(flood);
    let report = '';
    flood.stdout.on('data', (d: Buffer) => (report += d.toString()));
    const done = new Promise<void>((resolve) => flood.on('exit', () => resolve()));
    const pinger = await connect('127.0.0.3');
    // Let the flood start before measuring: its first connection is up once the server counts requests from it.
    await expect
      .poll(() => metric('addrsum_api_electrum_requests_total', 'outcome="not_found"'), { timeout: 20_000 })
      .toBeGreaterThan(1000);
    const latencies: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      expect((await pinger.call('server.ping')).result).toBeNull();
      latencies.push(performance.now() - started);
      statuses.push((await fetch(`${api.url}/health`)).status);
    }
    await done;
    const flooded = JSON.parse(report) as { lines: number; connections: number };
    expect(flooded.lines).toBeGreaterThan(10_000);
    latencies.sort((a, b) => a - b);
    expect(latencies[Math.floor(latencies.length / 2)]).toBeLessThan(250);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(await metric('addrsum_api_electrum_disconnects_total', 'reason="bad_lines"')).toBeGreaterThanOrEqual(1);
    // Unknown methods are counted under one label value, never by the name the client sent.
    const scrape = await (await fetch(`${api.url}/metrics`)).text();
    expect(scrape).toContain('method="unknown",outcome="not_found"');
    expect(scrape).not.toContain('no.such.method');
    // The pinger's own session was never touched.
    expect((await pinger.call('server.ping')).result).toBeNull();
  });
});

describe('Electrum connections counted from accept, and evicted when a listener is full', () => {
  it("keeps other networks' TLS clients connecting through 2,100 half-open handshakes from one network", async () => {
    // More than the listener's 2,048 slots: counted after the handshake, they would hold every one.
    const before = await metric('addrsum_api_electrum_disconnects_total', 'reason="limit"');
    const halfOpen: net.Socket[] = [];
    for (let i = 0; i < 2100; i++) {
      const socket = net.connect({ port: tlsPort, host: '127.0.0.1', localAddress: '127.0.0.30' });
      socket.on('error', () => undefined);
      // Three bytes of a ClientHello's record header, and nothing more.
      socket.write(Buffer.from([0x16, 0x03, 0x01]));
      halfOpen.push(socket);
    }
    try {
      await Promise.all(
        halfOpen.map((socket) => new Promise((resolve) => (socket.connecting ? socket.once('connect', resolve) : resolve(null)))),
      );
      for (let n = 31; n < 43; n++) {
        const client = await connect(`127.0.0.${n}`, true);
        expect((await client.call('server.ping')).result).toBeNull();
        client.close();
      }
      // All but the network's cap were closed at accept, before any handshake.
      await expect
        .poll(() => metric('addrsum_api_electrum_disconnects_total', 'reason="limit"'), { timeout: 60_000 })
        .toBeGreaterThanOrEqual(before + 2100 - CONNECTIONS_PER_NETWORK);
    } finally {
      for (const socket of halfOpen) socket.destroy();
    }
  }, 120_000);

  it("evicts the idle connection of the network holding the most when a listener's slots are full", async () => {
    const port = await freePort();
    const full = await startApi({
      ...data.env,
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
      ADDRSUM_MAX_CONNECTIONS: '16',
      ADDRSUM_ELECTRUM_CONNECTIONS_PER_NETWORK: '8',
    });
    try {
      // 16 slots: 8 idle connections from one network, then 4 each from two others, oldest first.
      const held: ElectrumClient[] = [];
      for (const [address, n] of [
        ['127.0.0.50', 8],
        ['127.0.0.51', 4],
        ['127.0.0.52', 4],
      ] as const) {
        for (let i = 0; i < n; i++) {
          const client = await ElectrumClient.connect(port, { localAddress: address });
          clients.push(client);
          expect((await client.call('server.ping')).result).toBeNull();
          held.push(client);
        }
      }
      const newcomer = await ElectrumClient.connect(port, { localAddress: '127.0.0.53' });
      clients.push(newcomer);
      expect((await newcomer.call('server.version', ['Electrum 4.3.4', '1.4'])).result).toEqual([
        expect.stringMatching(/^addrsum /),
        '1.4',
      ]);
      // The one evicted is the first of the network holding 8: the others all still answer.
      await held[0]!.closedWithin(10_000);
      for (const client of held.slice(1)) expect((await client.call('server.ping')).result).toBeNull();
      const text = await (await fetch(`${full.url}/metrics`)).text();
      expect(text).toContain('addrsum_api_electrum_disconnects_total{chain="LTC",reason="evicted"} 1');
    } finally {
      await full.stop();
    }
  });
});

describe('Electrum requests metered per connection and network (cost-meter.ts), on small limits', () => {
  let limited: ApiProcess;
  let port: number;
  // Unknown methods cost 1: 20 are served at once, then lines wait (at most 300 ms, 16 at once, so about
  // 50 a second against a drain of 10) until a connection that keeps on passes 80 and is closed.
  const SOFT = 20;
  const HARD = 80;

  beforeAll(async () => {
    port = await freePort();
    limited = await startApi({
      ...data.env,
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
      ADDRSUM_ELECTRUM_COST_SOFT_LIMIT: String(SOFT),
      ADDRSUM_ELECTRUM_COST_HARD_LIMIT: String(HARD),
      ADDRSUM_ELECTRUM_COST_DECAY_PER_SECOND: '10',
      ADDRSUM_ELECTRUM_MAX_DELAY_MS: '300',
    });
  }, 90_000);

  afterAll(async () => {
    await limited?.stop();
  });

  const unknownLines = (n: number): string =>
    `${Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: `u${i}`, method: 'no.such.method' })).join('\n')}\n`;

  async function limitedMetric(name: string, labels = ''): Promise<number> {
    const text = await (await fetch(`${limited.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
    return line === undefined ? Number.NaN : Number(line.split(' ').pop());
  }

  it('holds lines over the soft limit and serves them: every one answered, none refused, the session kept', async () => {
    const client = await ElectrumClient.connect(port, { localAddress: '127.0.0.6' });
    clients.push(client);
    client.socket.write(unknownLines(SOFT + 30));
    await expect.poll(() => client.messages.length, { timeout: 30_000 }).toBe(SOFT + 30);
    const codes = (client.messages as Answer[]).map((m) => m.error?.code);
    expect(codes.filter((c) => c === -32601)).toHaveLength(SOFT + 30);
    expect(await limitedMetric('addrsum_api_electrum_delayed_total')).toBeGreaterThanOrEqual(1);
    expect((await client.call('server.ping')).result).toBeNull();
  });

  it('closes a connection that keeps on past the hard limit, saying why, and spares other networks', async () => {
    const greedy = await ElectrumClient.connect(port, { localAddress: '127.0.0.7' });
    clients.push(greedy);
    greedy.socket.write(unknownLines(600));
    await greedy.closedWithin(30_000);
    const answers = greedy.messages as Answer[];
    expect(answers.filter((m) => m.error?.code === -32601).length).toBeGreaterThanOrEqual(HARD - 16);
    expect(answers.filter((m) => m.error?.code === -32601).length).toBeLessThan(600);
    const over = answers.find((m) => m.error?.code === -101);
    expect(over?.error?.message).toMatch(/passed its hard limit 80\): closing$/);
    expect(await limitedMetric('addrsum_api_electrum_disconnects_total', 'reason="rate_limited"')).toBe(1);
    const other = await ElectrumClient.connect(port, { localAddress: '127.0.0.8' });
    clients.push(other);
    expect((await other.call('server.ping')).result).toBeNull();
  });

  it('does not meter a trusted network (loopback 127.0.0.1 by default)', async () => {
    const trusted = await ElectrumClient.connect(port, { localAddress: '127.0.0.1' });
    clients.push(trusted);
    trusted.socket.write(unknownLines(600));
    await expect.poll(() => trusted.messages.length, { timeout: 30_000 }).toBe(600);
    expect((trusted.messages as Answer[]).every((m) => m.error?.code === -32601)).toBe(true);
    expect((await trusted.call('server.ping')).result).toBeNull();
  });
});

describe('Electrum in the API process: several workers, and files it cannot read', () => {
  it('serves Electrum from every worker, while the supervisor announces the HTTP port', async () => {
    const port = await freePort();
    const workers = await startApi({
      ...data.env,
      ADDRSUM_API_WORKERS: '2',
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
    });
    try {
      expect((await fetch(`${workers.url}/health`)).status).toBe(200);
      for (let i = 0; i < 6; i++) {
        const client = await ElectrumClient.connect(port, { localAddress: '127.0.0.8' });
        clients.push(client);
        expect((await client.call('server.ping')).result).toBeNull();
        client.close();
      }
      // A scrape answers for every worker (cluster-metrics.ts): all six pings, wherever they were served.
      const text = await (await fetch(`${workers.url}/metrics`)).text();
      expect(text).toContain('addrsum_api_electrum_requests_total{chain="LTC",method="server.ping",outcome="ok"} 6');
    } finally {
      await workers.stop();
    }
  });

  it('refuses to start when the TLS files cannot be read, naming the variable', async () => {
    const start = startApi({
      ...data.env,
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_TLS_PORT: String(await freePort()),
      ADDRSUM_LTC_ELECTRUM_TLS_CERT: path.join(data.dir, 'missing.crt'),
      ADDRSUM_LTC_ELECTRUM_TLS_KEY: path.join(data.dir, 'missing.key'),
    });
    await expect(start).rejects.toThrow(/CONFIG_INVALID: chains\.LTC\.electrum\.tlsCert \(ADDRSUM_LTC_ELECTRUM_TLS_CERT\): cannot read/);
  });
});
