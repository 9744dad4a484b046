import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { address as bjsAddress } from 'bitcoinjs-lib';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { buildWorld, Caller, type Answer, type World } from '../support/api-world.js';

// Real addresses (Bitcoin Core key_io_valid.json; Litecoin Core node output, see test/fixtures/key_io).
const BTC_P2PKH = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';
const BTC_P2PKH_SCRIPT = '76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac';
const BTC_BECH32 = 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';
const BTC_BECH32_SCRIPT = '00146100fc6343edc8c874496cb2f5bbfec88ea9b77c';
const BTC_TESTNET = 'mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ';
const LTC_BECH32 = 'ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz';
const LTC_MWEB =
  'ltcmweb1qq2j6sjq6eltw9v305ntdksxmjvwyjlyklkw4sn4xrlwa4kuq5hk4qqnxxhpxsz8gcdsmwxmjaxztdkanqssgnz80q7vcs8wr4c7cml7nxsgp2hlc';
const LTC_P2SH_3 = '3BeQ84kkQFL2xPmkhLJbsWkw5ZdHV1u25v';
const LTC_P2SH_SCRIPT = 'a9146d328a5b2a20d943a641c8d29b6cc3c2d2df85d387';
// The same script hash under Litecoin's SCRIPT_ADDRESS2 version (50): the `M…` spelling.
const LTC_P2SH_M = bjsAddress.toBase58Check(Buffer.from(LTC_P2SH_SCRIPT.slice(4, 44), 'hex'), 50);

let world: World;
let caller: Caller;
let key: string;

function url(chain: string, address: string): string {
  return `/api/v1/${chain}/address/${encodeURIComponent(address)}`;
}
const get = (u: string, headers: Record<string, string> = {}) => caller.send('GET', u, { 'x-api-key': key, ...headers });
const failCode = (a: Answer) => (a.body as { data: { code: string } }).data.code;
const errorCode = (a: Answer) => (a.body as { code: string }).code;

beforeEach(() => {
  world = buildWorld();
  caller = new Caller(world.app);
  key = world.createKey('private').key;
});

afterEach(() => {
  expect(caller.problems).toEqual([]);
  world.cleanup();
});

describe('the answer', () => {
  it('reports balance, UTXO count and the tip it is true at, for a lower-case chain too', async () => {
    world.index.BTC.set(BTC_P2PKH_SCRIPT, 123, 1);
    for (const chain of ['BTC', 'btc', 'Btc']) {
      const a = await get(url(chain, BTC_P2PKH));
      expect(a.status).toBe(200);
      expect(a.text).toBe(
        `{"status":"success","data":{"chain":"BTC","address":"${BTC_P2PKH}","balanceSatoshi":123,"balance":0.00000123,` +
          `"utxoCount":1,"blockHeight":100,"blockHash":"${'ab'.repeat(32)}"}}`,
      );
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('answers zeros for a valid address never seen', async () => {
    const a = await get(url('LTC', LTC_BECH32));
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ data: { chain: 'LTC', balanceSatoshi: 0, utxoCount: 0 } });
    expect(a.text).toContain('"balance":0.00000000,');
  });

  it.each([
    [0, '0.00000000'],
    [1, '0.00000001'],
    [123, '0.00000123'],
    [100_000_000, '1.00000000'],
    [2_100_000_000_000_000, '21000000.00000000'],
  ])('writes %i sat as the number literal %s', async (sats, text) => {
    world.index.BTC.set(BTC_BECH32_SCRIPT, sats, 2);
    const a = await get(url('BTC', BTC_BECH32));
    expect(a.text).toContain(`"balanceSatoshi":${sats},"balance":${text},"utxoCount":2`);
  });

  it('accepts upper-case bech32 and answers with the canonical spelling', async () => {
    world.index.BTC.set(BTC_BECH32_SCRIPT, 5, 1);
    const lower = await get(url('BTC', BTC_BECH32));
    const upper = await get(url('BTC', BTC_BECH32.toUpperCase()));
    expect(upper.status).toBe(200);
    expect(upper.text).toBe(lower.text);
    expect(upper.headers.etag).toBe(lower.headers.etag);
  });

  it('gives identical answers for the Litecoin 3… and M… spellings of one script', async () => {
    expect(LTC_P2SH_M.startsWith('M')).toBe(true);
    const script = addressToScript(chainParams('LTC', 'mainnet'), LTC_P2SH_M);
    expect(script.ok && script.script.toString('hex')).toBe(LTC_P2SH_SCRIPT);
    world.index.LTC.set(LTC_P2SH_SCRIPT, 777, 3);
    const three = await get(url('LTC', LTC_P2SH_3));
    const em = await get(url('ltc', LTC_P2SH_M));
    expect(three.status).toBe(200);
    expect(three.text).toBe(em.text);
    expect(three.headers.etag).toBe(em.headers.etag);
    expect(three.body).toMatchObject({ data: { address: LTC_P2SH_M, balanceSatoshi: 777, utxoCount: 3 } });
  });

  it('serves HEAD with the headers of GET and no body', async () => {
    const g = await get(url('BTC', BTC_P2PKH));
    const h = await caller.send('HEAD', url('BTC', BTC_P2PKH), { 'x-api-key': key });
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
    expect(h.headers.etag).toBe(g.headers.etag);
    expect(h.headers['x-request-id']).toBeTruthy();
    expect(h.headers['ratelimit-limit']).toBe('100');
  });
});

describe('ETag', () => {
  it('answers 304 to a matching If-None-Match, and a new ETag once the tip moves', async () => {
    const first = await get(url('BTC', BTC_P2PKH));
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get(url('BTC', BTC_P2PKH), { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['ratelimit-remaining']).toBeDefined();
    const head = await caller.send('HEAD', url('BTC', BTC_P2PKH), { 'x-api-key': key, 'If-None-Match': `W/"nope", ${etag}` });
    expect(head.status).toBe(304);

    world.index.BTC.tipHeight = 101;
    world.index.BTC.tipHash = 'cd'.repeat(32);
    world.index.BTC.nodeHeight = 101;
    const moved = await get(url('BTC', BTC_P2PKH), { 'If-None-Match': etag });
    expect(moved.status).toBe(200);
    expect(moved.headers.etag).not.toBe(etag);
  });

  it('differs between addresses at the same tip', async () => {
    const a = await get(url('BTC', BTC_P2PKH));
    const b = await get(url('BTC', BTC_BECH32));
    expect(a.headers.etag).not.toBe(b.headers.etag);
  });
});

describe('address failures (400)', () => {
  it.each([
    ['BTC', 'notanaddress', 'INVALID_ADDRESS'],
    ['BTC', `${BTC_P2PKH.slice(0, -1)}n`, 'INVALID_ADDRESS'],
    ['BTC', 'x'.repeat(300), 'INVALID_ADDRESS'],
    ['BTC', BTC_TESTNET, 'WRONG_NETWORK'],
    ['BTC', LTC_BECH32, 'WRONG_CHAIN'],
    ['LTC', BTC_BECH32, 'WRONG_CHAIN'],
    ['LTC', LTC_MWEB, 'UNSUPPORTED_ADDRESS'],
  ])('%s %s → %s, before any lookup', async (chain, address, code) => {
    const a = await get(url(chain, address));
    expect(a.status).toBe(400);
    expect(failCode(a)).toBe(code);
    expect((a.body as { data: { message: string } }).data.message.length).toBeGreaterThan(10);
    expect(world.index.BTC.lookups + world.index.LTC.lookups).toBe(0);
    expect(a.headers['ratelimit-limit']).toBe('100');
  });

  it('names the network in WRONG_NETWORK messages', async () => {
    const a = await get(url('BTC', BTC_TESTNET));
    expect((a.body as { data: { message: string } }).data.message).toMatch(/Bitcoin testnet.*Bitcoin mainnet/);
  });

  it('refuses bad percent-encoding with BAD_REQUEST, not a stack trace', async () => {
    for (const u of ['/api/v1/BTC/address/%E0%A4%A', '/api/v1/%ZZ/address/x', '/nothing/%E0%A4%A']) {
      const a = await get(u);
      expect(a.status).toBe(400);
      expect(failCode(a)).toBe('BAD_REQUEST');
      expect(a.text).not.toMatch(/URIError|at .*\.js/);
    }
  });
});

describe('keys (401)', () => {
  it('needs a key unless anonymous access is on', async () => {
    const a = await caller.send('GET', url('BTC', BTC_P2PKH));
    expect(a.status).toBe(401);
    expect(failCode(a)).toBe('MISSING_API_KEY');
    expect(a.headers['www-authenticate']).toContain('x-api-key');
    expect(a.headers['ratelimit-limit']).toBeUndefined();
  });

  it('refuses malformed, unknown and revoked keys alike', async () => {
    const other = world.createKey('private');
    world.keyStore.revoke(other.id);
    for (const bad of ['nope', `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, other.key, `${key}, ${key}`]) {
      const a = await caller.send('GET', url('BTC', BTC_P2PKH), { 'x-api-key': bad });
      expect(a.status).toBe(401);
      expect(failCode(a)).toBe('INVALID_API_KEY');
    }
  });

  it('checks the key before the address: no free validator for callers without a key', async () => {
    const a = await caller.send('GET', url('BTC', 'notanaddress'));
    expect(failCode(a)).toBe('MISSING_API_KEY');
  });

  it('never logs the key, but logs its id', async () => {
    const { key: k, id } = world.createKey('default');
    await caller.send('GET', url('BTC', BTC_P2PKH), { 'x-api-key': k });
    await caller.send('GET', url('BTC', BTC_P2PKH), { 'x-api-key': `${k.slice(0, -2)}zz` });
    const text = world.logs.join('');
    expect(text).toContain(id);
    expect(text).not.toContain(k.slice(5));
    expect(text).not.toContain(k.slice(5, -2));
  });
});

describe('routing (404, 405)', () => {
  it('answers UNKNOWN_CHAIN listing the supported chains, before the key check', async () => {
    const a = await caller.send('GET', url('DOGE', BTC_P2PKH));
    expect(a.status).toBe(404);
    expect(failCode(a)).toBe('UNKNOWN_CHAIN');
    expect((a.body as { data: { message: string } }).data.message).toContain('BTC, LTC');
  });

  it.each([
    '/status-page/none.js',
    '/api',
    '/api/v1/BTC',
    '/api/v1/BTC/address',
    '/api/v1/BTC/address/',
    '/api/v2/BTC/address/x',
    '/api/v1/BTC/utxo/x',
    '/API/V1/BTC/address/x',
    '/health/x',
  ])('answers NOT_FOUND for %s', async (u) => {
    const a = await get(u);
    expect(a.status).toBe(404);
    expect(failCode(a)).toBe('NOT_FOUND');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('answers %s with 405 and Allow', async (method) => {
    for (const u of [url('BTC', BTC_P2PKH), url('XYZ', 'x'), '/health', '/ready', '/metrics', '/openapi.json']) {
      const a = await caller.send(method, u, { 'x-api-key': key });
      expect(a.status).toBe(405);
      expect(a.headers.allow).toBe('GET, HEAD');
      expect(failCode(a)).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers an unknown path without naming one route as the only one, and without quoting the path', async () => {
    const tpub = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';
    for (const u of [`/api/v1/LTC/txs/${'ab'.repeat(32)}`, `/api/v1/BTC/wallet/${tpub}`]) {
      const a = await get(u);
      expect(a.status).toBe(404);
      const body = JSON.parse(a.text) as { data: { message: string } };
      expect(body.data.message).toBe('no such resource; GET /openapi.json lists every route of this API');
      expect(a.text).not.toContain(tpub);
    }
  });

  it('answers NOT_FOUND for HEAD of an unknown path, without a body', async () => {
    const a = await caller.send('HEAD', '/nope');
    expect(a.status).toBe(404);
    expect(a.text).toBe('');
  });
});

describe('chain state (503)', () => {
  it('answers CHAIN_SYNCING with both heights while the index lags by more than syncLagBlocks', async () => {
    world.index.BTC.nodeHeight = 104;
    const a = await get(url('BTC', BTC_P2PKH));
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ status: 'error', code: 'CHAIN_SYNCING', data: { indexedHeight: 100, nodeHeight: 104 } });
    expect(a.headers['retry-after']).toBeDefined();
    // One read (the balance comes with the status it is true at); the status decides, the body shows no balance.
    expect(world.index.BTC.lookups).toBe(1);
    expect(JSON.stringify(a.body)).not.toContain('balance');
    world.index.BTC.nodeHeight = 103;
    expect((await get(url('BTC', BTC_P2PKH))).status).toBe(200);
  });

  it('keeps answering from the indexed tip when the node was never reached', async () => {
    world.index.BTC.nodeHeight = null;
    world.index.BTC.nodeSeenAt = null;
    expect((await get(url('BTC', BTC_P2PKH))).status).toBe(200);
  });

  it('answers CHAIN_SYNCING with null heights while the index is empty', async () => {
    world.index.LTC.empty = true;
    const a = await get(url('LTC', LTC_BECH32));
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ code: 'CHAIN_SYNCING', data: { indexedHeight: null, nodeHeight: null } });
  });

  it('answers CHAIN_UNAVAILABLE until the index exists, then answers', async () => {
    world.missing.add('LTC');
    const a = await get(url('LTC', LTC_BECH32));
    expect(a.status).toBe(503);
    expect(errorCode(a)).toBe('CHAIN_UNAVAILABLE');
    world.missing.delete('LTC');
    expect((await get(url('LTC', LTC_BECH32))).status).toBe(200);
  });

  it('answers CHAIN_UNAVAILABLE for a chain this service is not configured for, after validating the address', async () => {
    const w = buildWorld({ unconfigured: ['BTC'] });
    const c = new Caller(w.app);
    const k = w.createKey('private').key;
    try {
      const a = await c.send('GET', url('BTC', BTC_P2PKH), { 'x-api-key': k });
      expect(a.status).toBe(503);
      expect(errorCode(a)).toBe('CHAIN_UNAVAILABLE');
      expect((a.body as { message: string }).message).toContain('not configured');
      const bad = await c.send('GET', url('BTC', 'nope'), { 'x-api-key': k });
      expect(failCode(bad)).toBe('INVALID_ADDRESS');
      expect(c.problems).toEqual([]);
    } finally {
      w.cleanup();
    }
  });

  it('validates against the configured network (regtest)', async () => {
    const w = buildWorld({ networks: { BTC: 'regtest' } });
    const c = new Caller(w.app);
    const k = w.createKey('private').key;
    try {
      const reg = await c.send('GET', url('BTC', 'bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9'), { 'x-api-key': k });
      expect(reg.status).toBe(200);
      const main = await c.send('GET', url('BTC', BTC_P2PKH), { 'x-api-key': k });
      expect(failCode(main)).toBe('WRONG_NETWORK');
      expect(c.problems).toEqual([]);
    } finally {
      w.cleanup();
    }
  });
});

describe('unexpected failures (500)', () => {
  it('answers INTERNAL without internals, and logs the error under the request id', async () => {
    world.index.BTC.summary = () => {
      throw new Error('disk on fire at /secret/path');
    };
    const a = await get(url('BTC', BTC_P2PKH), { 'X-Request-Id': 'trace-me-42' });
    expect(a.status).toBe(500);
    expect(a.body).toEqual({ status: 'error', code: 'INTERNAL', message: expect.any(String) });
    expect(a.text).not.toContain('secret');
    expect(a.headers['x-request-id']).toBe('trace-me-42');
    const line = world.logs.find((l) => l.includes('disk on fire'));
    expect(line).toContain('trace-me-42');
  });
});

describe('X-Request-Id', () => {
  it("is on every response: the caller's when plain, a fresh one otherwise", async () => {
    const mine = await get('/health', { 'X-Request-Id': 'abc-123.x:y' });
    expect(mine.headers['x-request-id']).toBe('abc-123.x:y');
    const weird = await get('/health', { 'X-Request-Id': 'a b<script>' });
    expect(weird.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const none = await caller.send('GET', '/nope');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
