import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/serving/errors.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { worldPerTest } from '../support/api-world.js';
import { OpenApiValidator } from '../support/openapi-validate.js';
import { PACKAGE_VERSION } from '../../src/package-root.js';

const world = worldPerTest();

type ReadyBody = { status: string; code?: string; data: { ready: boolean; chains: Array<Record<string, unknown>> } };

describe('/health', () => {
  it('answers while the process is alive, with uptime from the clock', async () => {
    const { w, c } = world();
    w.clock.t += 5_500;
    const a = await c.send('GET', '/health');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ status: 'success', data: { status: 'ok', uptimeSeconds: 5, version: PACKAGE_VERSION } });
    expect(c.problems).toEqual([]);
  });
});

describe('/ready', () => {
  it('is 200 with per-chain heights when every configured chain answers', async () => {
    const { w, c } = world();
    w.index.LTC.tipHeight = 50;
    w.index.LTC.nodeHeight = 52;
    const a = await c.send('GET', '/ready');
    expect(a.status).toBe(200);
    const body = a.body as ReadyBody;
    expect(body.data.ready).toBe(true);
    expect(body.data.chains).toEqual([
      expect.objectContaining({ chain: 'BTC', ready: true, indexedHeight: 100, nodeHeight: 100, lag: 0 }),
      expect.objectContaining({
        chain: 'LTC',
        ready: true,
        indexedHeight: 50,
        nodeHeight: 52,
        lag: 2,
        nodeSeenAt: '2025-01-01T00:00:00.000Z',
      }),
    ]);
    expect(c.problems).toEqual([]);
  });

  it('says per chain whether history is kept, off or being built, and how far', async () => {
    const { w, c } = world();
    w.index.LTC.historyBuilding = { height: 12, tipHeight: 100 };
    const body = (await c.send('GET', '/ready')).body as ReadyBody;
    expect(body.data.chains.map((r) => [r.chain, r.history, r.historyBuiltHeight])).toEqual([
      ['BTC', 'off', undefined],
      ['LTC', 'building', 12],
    ]);
    expect(c.problems).toEqual([]);
  });

  it('is 503 NOT_READY when a configured chain lags, is empty or has no index', async () => {
    const { w, c } = world();
    w.index.BTC.nodeHeight = 110;
    let a = await c.send('GET', '/ready');
    expect(a.status).toBe(503);
    let body = a.body as ReadyBody;
    expect(body).toMatchObject({ status: 'error', code: 'NOT_READY', data: { ready: false } });
    expect(body.data.chains[0]).toMatchObject({ chain: 'BTC', ready: false, lag: 10, reason: expect.stringContaining('10 blocks') });
    w.index.BTC.nodeHeight = 100;
    w.missing.add('LTC');
    a = await c.send('GET', '/ready');
    body = a.body as ReadyBody;
    expect(a.status).toBe(503);
    expect(body.data.chains[1]).toMatchObject({ chain: 'LTC', ready: false, indexedHeight: null, reason: expect.any(String) });
    w.missing.delete('LTC');
    w.index.LTC.empty = true;
    expect((await c.send('GET', '/ready')).status).toBe(503);
    w.index.LTC.empty = false;
    expect((await c.send('GET', '/ready')).status).toBe(200);
    expect(c.problems).toEqual([]);
  });

  it('leaves unconfigured chains out, and is 503 when no chain is configured', async () => {
    const one = world({ unconfigured: ['BTC'] });
    const a = await one.c.send('GET', '/ready');
    expect(a.status).toBe(200);
    expect((a.body as ReadyBody).data.chains.map((x) => x.chain)).toEqual(['LTC']);
    const none = world({ unconfigured: ['BTC', 'LTC'] });
    const b = await none.c.send('GET', '/ready');
    expect(b.status).toBe(503);
    expect((b.body as { message: string }).message).toContain('no chain is configured');
    expect([...one.c.problems, ...none.c.problems]).toEqual([]);
  });
});

describe('/metrics', () => {
  it('exposes request counts by route template, latency, and per-chain tip gauges', async () => {
    const { w, c } = world();
    const key = w.createKey('private').key;
    await c.send('GET', '/api/v1/LTC/address/ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz', { 'x-api-key': key });
    await c.send('GET', '/nowhere');
    w.index.LTC.tipHeight = 2_901_234;
    w.index.LTC.nodeHeight = 2_901_240;
    const a = await c.send('GET', '/metrics');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/plain/);
    expect(a.text).toContain('addrsum_api_requests_total{route="/api/v1/:chain/address/:address",status="200",tier="private"} 1');
    expect(a.text).toContain('addrsum_api_requests_total{route="unmatched",status="404",tier="none"} 1');
    expect(a.text).toContain('addrsum_api_request_duration_seconds_bucket');
    expect(a.text).toContain('addrsum_api_chain_indexed_height{chain="LTC"} 2901234');
    expect(a.text).toContain('addrsum_api_chain_node_height{chain="LTC"} 2901240');
    expect(a.text).toContain('addrsum_api_chain_ready{chain="LTC"} 0');
    expect(a.text).toContain('addrsum_api_chain_ready{chain="BTC"} 1');
    expect(a.text).not.toContain('ltc1q');
    expect(c.problems).toEqual([]);
  });

  it('keeps a registry per app, so many apps coexist in one process', async () => {
    const { c: c1 } = world();
    const { c: c2 } = world();
    await c1.send('GET', '/nowhere');
    const text = (await c2.send('GET', '/metrics')).text;
    expect(text).not.toContain('status="404"');
  });
});

describe('/openapi.json', () => {
  const doc = openApiDocument() as {
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    components: { responses: Record<string, unknown> };
  };

  it('is OpenAPI 3.1 and is what the app serves', async () => {
    const { c } = world();
    const a = await c.send('GET', '/openapi.json');
    expect(a.status).toBe(200);
    expect(a.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/',
      '/api/v1/ws',
      '/api/v1/{chain}/address/{address}',
      '/api/v1/{chain}/address/{address}/events',
      '/api/v1/{chain}/address/{address}/transactions',
      '/api/v1/{chain}/address/{address}/utxos',
      '/api/v1/{chain}/addresses',
      '/api/v1/{chain}/block/{id}',
      '/api/v1/{chain}/block/{id}/txids',
      '/api/v1/{chain}/blocks/tip',
      '/api/v1/{chain}/scripthash/{hash}',
      '/api/v1/{chain}/scripthash/{hash}/transactions',
      '/api/v1/{chain}/scripthash/{hash}/utxos',
      '/api/v1/{chain}/tx/{txid}',
      '/api/v1/{chain}/tx/{txid}/hex',
      '/api/v1/{chain}/tx/{txid}/merkle-proof',
      '/api/v1/{chain}/tx/{txid}/outspends',
      '/api/v1/{chain}/xpub',
      '/api/v1/{chain}/xpub/transactions',
      '/api/v1/{chain}/xpub/{key}',
      '/api/v1/{chain}/xpub/{key}/transactions',
      '/api/v1/{chain}/xpub/{key}/utxos',
      '/health',
      '/metrics',
      '/openapi.json',
      '/ready',
      '/status/events',
    ]);
  });

  it('documents every error code and every $ref resolves', () => {
    const text = JSON.stringify(doc);
    for (const code of ERROR_CODES) expect(text, code).toContain(`"${code}"`);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = (ref ?? '').split('/').reduce<unknown>((n, k) => (n as Record<string, unknown> | undefined)?.[k], doc);
      expect(target, ref).toBeTypeOf('object');
    }
  });

  it('documents GET, HEAD and a 405 for every other method on every path (POST only, and 405 otherwise, on the POST paths)', () => {
    const postOnly = ['/api/v1/{chain}/addresses', '/api/v1/{chain}/xpub', '/api/v1/{chain}/xpub/transactions'];
    for (const [path, item] of Object.entries(doc.paths)) {
      // Live streams (a GET that stays open, a WebSocket upgrade) document their GET only.
      if (path.endsWith('/events') || path === '/api/v1/ws') {
        expect(Object.keys(item).sort(), path).toEqual(['get']);
        continue;
      }
      const served = postOnly.includes(path) ? ['post'] : ['get', 'head'];
      for (const m of served) expect(item[m]?.responses['200'], `${m} ${path}`).toBeDefined();
      for (const m of ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'].filter((x) => !served.includes(x))) {
        expect(Object.keys(item[m]?.responses ?? {}), `${m} ${path}`).toEqual(['405']);
      }
    }
    const address = doc.paths['/api/v1/{chain}/address/{address}']?.get?.responses ?? {};
    expect(Object.keys(address).sort()).toEqual(['200', '304', '400', '401', '404', '429', '500', '503']);
  });
});

describe('the OpenAPI response checker used by every API test', () => {
  const v = new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>);
  const json = 'application/json; charset=utf-8';
  const path = '/api/v1/BTC/address/x';

  it('accepts a documented answer', () => {
    const text = '{"status":"fail","data":{"code":"UNKNOWN_CHAIN","message":"unknown chain"}}';
    expect(v.check({ method: 'GET', path, status: 404, headers: { 'x-request-id': 'a', 'content-type': json }, text })).toEqual([]);
  });

  it('catches a missing required header, a wrong code, an undocumented status and a body on HEAD', () => {
    const fail = '{"status":"fail","data":{"code":"RATE_LIMITED","message":"x"}}';
    expect(v.check({ method: 'GET', path, status: 404, headers: { 'content-type': json }, text: fail }).join()).toContain('X-Request-Id');
    expect(
      v.check({ method: 'GET', path, status: 404, headers: { 'x-request-id': 'a', 'content-type': json }, text: fail }).join(),
    ).toContain('allowed values');
    expect(v.check({ method: 'GET', path, status: 418, headers: { 'x-request-id': 'a' }, text: '' })).toHaveLength(1);
    expect(v.check({ method: 'HEAD', path: '/health', status: 200, headers: { 'x-request-id': 'a' }, text: '{}' }).join()).toContain(
      'no body',
    );
    expect(
      v
        .check({
          method: 'GET',
          path: '/health',
          status: 200,
          headers: { 'x-request-id': 'a', 'content-type': 'text/html' },
          text: '<html>',
        })
        .join(),
    ).toContain('content-type');
    const balance =
      '{"status":"success","data":{"chain":"BTC","address":"x","balanceSatoshi":-1,"balance":0,"utxoCount":0,"blockHeight":0,"blockHash":"00"}}';
    expect(
      v
        .check({
          method: 'GET',
          path,
          status: 200,
          headers: {
            'x-request-id': 'a',
            'content-type': json,
            etag: '"a"',
            'ratelimit-limit': '1',
            'ratelimit-remaining': '0',
            'ratelimit-reset': '1',
            'cache-control': 'no-cache',
          },
          text: balance,
        })
        .join(),
    ).toMatch(/balanceSatoshi|blockHash/);
  });
});
