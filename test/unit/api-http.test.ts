/**
 * What reaches Node's HTTP parser before Express: malformed request lines, oversized headers, CONNECT,
 * odd Expect values, missing Host. Every answer must still be a JSend envelope with X-Request-Id.
 */
import type { AddressInfo } from 'node:net';
import { METHODS, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createHttpServer } from '../../src/api/http-server.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { buildWorld, type World } from '../support/api-world.js';
import { OpenApiValidator } from '../support/openapi-validate.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';

let world: World;
let server: Server;
let port: number;
let key: string;
const validator = new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>);

beforeAll(async () => {
  // Limits out of reach: the method sweeps below send hundreds of requests from one client.
  world = buildWorld({
    live: true,
    tiers: { default: { rate: 1e6, burst: 1e6 }, private: { rate: 1e6, burst: 1e6 } },
    invalidKeys: { rate: 1e6, burst: 1e6 },
  });
  key = world.createKey('private').key;
  server = createHttpServer(world.app, pino({ level: 'silent' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  world.cleanup();
});

function send(lines: string[], opts: { head?: boolean } = {}): Promise<RawResponse> {
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n`, opts);
}

function expectJsend(r: RawResponse, status: number, code: string, method = 'GET', path = '/unlisted'): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]+$/);
  const body = JSON.parse(r.body) as { status: string; code?: string; data?: { code: string } };
  expect(body.status === 'fail' ? body.data?.code : body.code).toBe(code);
  expect(validator.check({ method, path, status: r.status, headers: r.headers, text: r.body })).toEqual([]);
}

describe('requests Node answers before Express', () => {
  it('headers over the size limit → 431 HEADERS_TOO_LARGE', async () => {
    const r = await send(['GET /health HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`]);
    expectJsend(r, 431, 'HEADERS_TOO_LARGE');
  });

  it('a huge URL → 431 as well (the request line counts against the header limit)', async () => {
    const r = await send([`GET /api/v1/BTC/address/${'1'.repeat(20_000)} HTTP/1.1`, 'Host: x']);
    expectJsend(r, 431, 'HEADERS_TOO_LARGE');
  });

  it.each([
    ['garbage request line', ['GARBAGE']],
    ['unknown method', ['FOO /health HTTP/1.1', 'Host: x']],
    ['bad version', ['GET /health HTTP/9.x', 'Host: x']],
    ['control byte in a header', ['GET /health HTTP/1.1', 'Host: x', 'X-A: a\x01b']],
    ['space in a header name', ['GET /health HTTP/1.1', 'Host: x', 'Bad Name: 1']],
    ['conflicting lengths', ['GET /health HTTP/1.1', 'Host: x', 'Content-Length: 1', 'Content-Length: 2']],
    ['non-numeric length', ['GET /health HTTP/1.1', 'Host: x', 'Content-Length: abc']],
  ])('%s → 400 BAD_REQUEST', async (_name, lines) => {
    expectJsend(await send(lines), 400, 'BAD_REQUEST');
  });

  it('CONNECT → 405 with Allow', async () => {
    const r = await send(['CONNECT example.com:443 HTTP/1.1', 'Host: example.com:443']);
    expectJsend(r, 405, 'METHOD_NOT_ALLOWED');
    expect(r.headers.allow).toBe('GET, HEAD');
  });
});

describe('slow clients', () => {
  it('get 408 REQUEST_TIMEOUT when the headers do not arrive in time', async () => {
    const slow = createHttpServer(world.app, pino({ level: 'silent' }), {
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
      checkIntervalMs: 100,
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const r = await rawRequest((slow.address() as AddressInfo).port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Partial: 1', {
        timeoutMs: 5000,
      });
      expectJsend(r, 408, 'REQUEST_TIMEOUT');
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe('odd but valid requests reach the app', () => {
  it('an unknown Expect value is ignored (no bare 417)', async () => {
    const r = await send(['GET /health HTTP/1.1', 'Host: x', 'Expect: something', 'Connection: close']);
    expect(r.status).toBe(200);
  });

  it('HTTP/1.1 without Host, HTTP/1.0, absolute-form targets', async () => {
    expect((await send(['GET /health HTTP/1.1', 'Connection: close'])).status).toBe(200);
    expect((await send(['GET /health HTTP/1.0'])).status).toBe(200);
    expect((await send(['GET http://example.com/health HTTP/1.1', 'Host: example.com', 'Connection: close'])).status).toBe(200);
  });

  it('an Upgrade request is answered as a normal request', async () => {
    const r = await send(['GET /health HTTP/1.1', 'Host: x', 'Connection: Upgrade', 'Upgrade: websocket']);
    expect(r.status).toBe(200);
  });

  it('a bad percent-encoding → 400 BAD_REQUEST through Express', async () => {
    const path = '/api/v1/BTC/address/%E0%A4%A';
    const r = await send([`GET ${path} HTTP/1.1`, 'Host: x', `x-api-key: ${key}`, 'Connection: close']);
    expectJsend(r, 400, 'BAD_REQUEST', 'GET', path);
  });

  it('route-pattern characters in paths are data, not patterns', async () => {
    for (const path of ['/api/v1/:chain/address/:address', '/api/v1/(.*)/address/*', '/*', '/api/v1/BTC/address/{address}']) {
      const r = await send([`GET ${path} HTTP/1.1`, 'Host: x', 'Connection: close']);
      expect(r.status, path).toBeLessThan(500);
      expect(validator.check({ method: 'GET', path, status: r.status, headers: r.headers, text: r.body })).toEqual([]);
    }
  });

  it('HEAD over the wire carries the headers and no body', async () => {
    const path = '/api/v1/LTC/address/ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz';
    const r = await send([`HEAD ${path} HTTP/1.1`, 'Host: x', `x-api-key: ${key}`, 'Connection: close'], { head: true });
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    expect(Number(r.headers['content-length'])).toBeGreaterThan(100);
    expect(validator.check({ method: 'HEAD', path, status: r.status, headers: r.headers, text: r.body })).toEqual([]);
  });
});

/**
 * A concrete path for each path the document lists, parameters filled with plausible values. Not the
 * WebSocket's: its server (ws-server.ts) is not attached here.
 */
const DOCUMENTED_PATHS = Object.keys(openApiDocument().paths as Record<string, unknown>)
  .filter((template) => template !== '/api/v1/ws')
  .map((template) =>
    template
      .replace('{chain}', 'BTC')
      .replace('{address}', '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo')
      .replace('{hash}', 'ab'.repeat(32))
      .replace('{key}', 'not-a-key'),
  );

const codeOf = (r: RawResponse): unknown => (JSON.parse(r.body) as { data?: { code?: unknown } }).data?.code;

/** The path the document is asked about: the fragment (`#…`) is not part of it; the query is not either. */
const pathPart = (target: string): string => target.split(/[?#]/)[0] ?? '';

async function expectDocumented(method: string, target: string, extra: string[] = []): Promise<RawResponse> {
  const r = await send([`${method} ${target} HTTP/1.1`, 'Host: x', ...extra, 'Connection: close'], { head: method === 'HEAD' });
  const where = `${method} ${target} ${extra.join(' ')}`;
  expect(r.status, where).toBeLessThan(500);
  expect(validator.check({ method, path: pathPart(target), status: r.status, headers: r.headers, text: r.body }), where).toEqual([]);
  return r;
}

describe('every method Node accepts, on every documented path', () => {
  // CONNECT never reaches the app (Node hands its socket to the 'connect' handler, tested above).
  const methods = METHODS.filter((m) => m !== 'CONNECT');
  // A stream that stays open: no whole answer to check.
  const streams = (method: string, path: string): boolean => path.endsWith('/events') && (method === 'GET' || method === 'HEAD');

  it.each([
    ['plain', []],
    ['with an unknown Expect value', ['Expect: something']],
    ['with an empty Expect', ['Expect: ']],
  ])('answers as the document says (%s)', async (_name, extra) => {
    for (const path of DOCUMENTED_PATHS) {
      for (const method of methods) if (!streams(method, path)) await expectDocumented(method, path, extra);
    }
  });

  it('SEARCH, PROPFIND, QUERY… on the address route answer 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD', async () => {
    for (const method of ['SEARCH', 'PROPFIND', 'QUERY', 'PURGE', 'M-SEARCH', 'MKCOL']) {
      for (const extra of [[], ['Expect: something']]) {
        const r = await expectDocumented(method, '/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo', extra);
        expect(r.status, `${method} ${extra.join(' ')}`).toBe(405);
        expect(r.headers.allow).toBe('GET, HEAD');
      }
    }
  });
});

describe('an unknown Expect value does not change how a path is routed', () => {
  // Node hands such requests to 'checkExpectation' instead of 'request': both must route the same.
  it.each([
    // `\` before a fragment: Node's url.parse reads it as `/` (FC_SEED=1964450892 in api-fuzz.test.ts).
    ['SEARCH', '/api/v1/BTC/address/1FsSi\\&#9rv4NeEwvJ2GvXrX7LyxYspbN2mo'],
    ['GET', '/api/v1/BTC/address/1FsSi\\&#9rv4NeEwvJ2GvXrX7LyxYspbN2mo'],
    ['GET', '/api/v1/BTC/address/a\\b'],
    ['POST', '/api/v1/BTC\\addresses#x'],
    ['GET', '//health'],
    ['GET', '//api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo'],
  ])('%s %s', async (method, target) => {
    const withKey = `x-api-key: ${key}`;
    const plain = await expectDocumented(method, target, [withKey]);
    for (const expectation of ['Expect: ', 'Expect: something', 'Expect: 100-continue']) {
      const r = await expectDocumented(method, target, [withKey, expectation]);
      expect([r.status, codeOf(r)], expectation).toEqual([plain.status, codeOf(plain)]);
    }
  });
});
