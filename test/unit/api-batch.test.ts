/**
 * ?mempool=true on the single route and POST /api/v1/{chain}/addresses, through the whole app over fake
 * indexes; every response is checked against /openapi.json by the Caller.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildWorld, Caller, type Answer, type World } from '../support/api-world.js';

const BTC_P2PKH = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';
const BTC_P2PKH_SCRIPT = '76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac';
const BTC_BECH32 = 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';
const BTC_BECH32_UPPER = BTC_BECH32.toUpperCase();
const BTC_BECH32_SCRIPT = '00146100fc6343edc8c874496cb2f5bbfec88ea9b77c';
const BTC_TAPROOT = 'bc1p83n3au0rjylefxq2nc2xh2y4jzz4pm6zxj4mw5pagdjjr2a9f36s6jjnnu';
const BTC_TESTNET = 'mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ';
const LTC_BECH32 = 'ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz';
const LTC_P2SH_3 = '3BeQ84kkQFL2xPmkhLJbsWkw5ZdHV1u25v';
const LTC_MWEB =
  'ltcmweb1qq2j6sjq6eltw9v305ntdksxmjvwyjlyklkw4sn4xrlwa4kuq5hk4qqnxxhpxsz8gcdsmwxmjaxztdkanqssgnz80q7vcs8wr4c7cml7nxsgp2hlc';
const TIP = 'ab'.repeat(32);

let world: World;
let caller: Caller;
let key: string;

const single = (chain: string, address: string, query = '', headers: Record<string, string> = {}) =>
  caller.send('GET', `/api/v1/${chain}/address/${encodeURIComponent(address)}${query}`, { 'x-api-key': key, ...headers });
const batch = (chain: string, body: unknown, query = '', headers: Record<string, string> = {}) =>
  caller.send(
    'POST',
    `/api/v1/${chain}/addresses${query}`,
    { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  );
const code = (a: Answer) => (a.body as { data: { code: string } }).data.code;
type Batch = { data: { blockHeight: number; blockHash: string; results: unknown[] } };

beforeEach(() => {
  world = buildWorld();
  caller = new Caller(world.app);
  key = world.createKey('private').key;
  world.index.BTC.set(BTC_P2PKH_SCRIPT, 150_000, 2);
  world.index.BTC.setMempool(BTC_P2PKH_SCRIPT, { balanceSats: -100_000, utxoCount: -1, txCount: 2 });
  world.index.BTC.setMempool(BTC_BECH32_SCRIPT, { balanceSats: 1, utxoCount: 1, txCount: 1 });
});

afterEach(() => {
  expect(caller.problems).toEqual([]);
  world.cleanup();
});

describe('?mempool=true on the single route', () => {
  it('leaves the default answer byte for byte as it was, also for mempool=false and 0', async () => {
    const expected =
      `{"status":"success","data":{"chain":"BTC","address":"${BTC_P2PKH}","balanceSatoshi":150000,"balance":0.00150000,` +
      `"utxoCount":2,"blockHeight":100,"blockHash":"${TIP}"}}`;
    const plain = await single('BTC', BTC_P2PKH);
    expect(plain.text).toBe(expected);
    for (const q of ['?mempool=false', '?mempool=0', '?other=1']) {
      const a = await single('BTC', BTC_P2PKH, q);
      expect(a.text).toBe(expected);
      expect(a.headers.etag).toBe(plain.headers.etag);
    }
  });

  it('adds unconfirmed with negative deltas written with 8 decimals, at the confirmed tip', async () => {
    const a = await single('BTC', BTC_P2PKH, '?mempool=true');
    expect(a.status).toBe(200);
    expect(a.text).toBe(
      `{"status":"success","data":{"chain":"BTC","address":"${BTC_P2PKH}","balanceSatoshi":150000,"balance":0.00150000,"utxoCount":2,` +
        `"unconfirmed":{"balanceSatoshi":-100000,"balance":-0.00100000,"utxoCount":-1,"txCount":2},"blockHeight":100,"blockHash":"${TIP}"}}`,
    );
    const none = await single('BTC', BTC_TAPROOT, '?mempool=1');
    expect(none.body).toMatchObject({ data: { unconfirmed: { balanceSatoshi: 0, utxoCount: 0, txCount: 0 } } });
    expect(none.text).toContain('"balance":0.00000000,"utxoCount":0,"txCount":0');
  });

  it('has an ETag of its own that changes with the mempool and not with other addresses', async () => {
    const first = await single('BTC', BTC_P2PKH, '?mempool=true');
    const plain = await single('BTC', BTC_P2PKH);
    expect(first.headers.etag).not.toBe(plain.headers.etag);
    const again = await single('BTC', BTC_P2PKH, '?mempool=true', { 'If-None-Match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    world.index.BTC.setMempool(BTC_BECH32_SCRIPT, { balanceSats: 7, utxoCount: 1, txCount: 3 });
    expect((await single('BTC', BTC_P2PKH, '?mempool=true', { 'If-None-Match': String(first.headers.etag) })).status).toBe(304);
    world.index.BTC.setMempool(BTC_P2PKH_SCRIPT, { balanceSats: -100_000, utxoCount: -1, txCount: 3 });
    const changed = await single('BTC', BTC_P2PKH, '?mempool=true', { 'If-None-Match': String(first.headers.etag) });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    // The plain answer's ETag does not move with the mempool.
    expect((await single('BTC', BTC_P2PKH)).headers.etag).toBe(plain.headers.etag);
  });

  it('refuses any other value of the parameter with BAD_REQUEST', async () => {
    const a = await single('BTC', BTC_P2PKH, '?mempool=yes');
    expect(a.status).toBe(400);
    expect(code(a)).toBe('BAD_REQUEST');
  });
});

describe('POST /api/v1/{chain}/addresses', () => {
  /** 100 inputs: valid of every kind, duplicates and alias spellings, invalid, wrong chain, wrong network, MWEB. */
  function mixed(): string[] {
    const kinds = [
      BTC_P2PKH,
      BTC_BECH32,
      BTC_BECH32_UPPER,
      BTC_TAPROOT,
      BTC_TESTNET,
      LTC_BECH32,
      LTC_P2SH_3,
      LTC_MWEB,
      'notanaddress',
      '',
      'x'.repeat(300),
      BTC_P2PKH.slice(0, -1) + 'n',
    ];
    return Array.from({ length: 100 }, (_, i) => kinds[(i * 7) % kinds.length]!);
  }

  for (const [chain, query] of [
    ['BTC', ''],
    ['BTC', '?mempool=true'],
    ['LTC', ''],
    ['ltc', '?mempool=true'],
  ] as const) {
    it(`answers each of 100 mixed inputs exactly as the single route does (${chain}${query}), at one blockHeight`, async () => {
      const inputs = mixed();
      const a = await batch(chain, { addresses: inputs }, query);
      expect(a.status).toBe(200);
      const body = a.body as Batch;
      expect(body.data.results).toHaveLength(100);
      expect(body.data.blockHeight).toBe(100);
      expect(world.index.BTC.lookups + world.index.LTC.lookups).toBe(1); // one read for the whole batch
      world.clock.t += 10_000; // the batch took 100 tokens; refill before the 100 single requests
      for (let i = 0; i < inputs.length; i++) {
        if (inputs[i] === '') {
          // The single route has no empty address segment (404 NOT_FOUND); a batch entry says INVALID_ADDRESS.
          expect(body.data.results[i]).toMatchObject({ status: 'fail', data: { code: 'INVALID_ADDRESS' } });
          continue;
        }
        const one = await single(chain, inputs[i]!, query);
        expect(body.data.results[i], `entry ${i}: ${inputs[i]}`).toEqual(one.body);
      }
    });
  }

  it('charges one token per address and answers 429 with Retry-After when the batch does not fit', async () => {
    const sixty = Array.from({ length: 60 }, () => BTC_P2PKH);
    const first = await batch('BTC', { addresses: sixty });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('40');
    const second = await batch('BTC', { addresses: sixty });
    expect(second.status).toBe(429);
    expect(code(second)).toBe('RATE_LIMITED');
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    world.clock.t += 1000; // 50 tokens back: 90 in the bucket
    expect((await batch('BTC', { addresses: sixty })).status).toBe(200);
    // A malformed body costs one request.
    const bad = await batch('BTC', 'nope');
    expect(bad.headers['ratelimit-remaining']).toBe('29');
  });

  it('refuses a batch larger than the tier burst with a message saying to split it', async () => {
    const anon = buildWorld({ allowAnonymous: true });
    const c = new Caller(anon.app);
    try {
      const a = await c.send(
        'POST',
        '/api/v1/BTC/addresses',
        { 'content-type': 'application/json' },
        JSON.stringify({ addresses: Array(11).fill(BTC_P2PKH) }),
      );
      expect(a.status).toBe(429);
      expect((a.body as { data: { message: string } }).data.message).toMatch(/split/);
      expect(a.headers['retry-after']).toBeDefined();
      expect(c.problems).toEqual([]);
    } finally {
      anon.cleanup();
    }
  });

  it('answers malformed bodies with JSend 400 and a clear code, never 5xx', async () => {
    const cases: Array<[string | Buffer, string]> = [
      ['not json', 'INVALID_JSON'],
      ['{"addresses": [', 'INVALID_JSON'],
      ['\u0000{}', 'INVALID_JSON'],
      ['{"addresses": ["a"]} trailing', 'INVALID_JSON'],
      ['', 'INVALID_BATCH'],
      ['"x"', 'INVALID_BATCH'],
      ['42', 'INVALID_BATCH'],
      ['null', 'INVALID_BATCH'],
      ['[]', 'INVALID_BATCH'],
      ['{}', 'INVALID_BATCH'],
      ['{"addresses": "1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo"}', 'INVALID_BATCH'],
      ['{"addresses": []}', 'INVALID_BATCH'],
      ['{"addresses": [1]}', 'INVALID_BATCH'],
      ['{"addresses": ["a", null]}', 'INVALID_BATCH'],
      ['{"addresses": ["a"], "mempool": true}', 'INVALID_BATCH'],
      [JSON.stringify({ addresses: Array(101).fill(BTC_P2PKH) }), 'INVALID_BATCH'],
      [JSON.stringify({ addresses: ['x'.repeat(2 * 1024 * 1024)] }), 'BODY_TOO_LARGE'],
    ];
    for (const [body, expected] of cases) {
      const a = await batch('BTC', body);
      expect(a.status, String(body).slice(0, 40)).toBe(400);
      expect(code(a), String(body).slice(0, 40)).toBe(expected);
      expect(a.headers['cache-control']).toBe('no-store');
    }
  });

  it('checks chain and key before reading the body, and serves POST only', async () => {
    expect(code(await batch('DOGE', { addresses: [BTC_P2PKH] }))).toBe('UNKNOWN_CHAIN');
    const noKey = await caller.send('POST', '/api/v1/BTC/addresses', { 'content-type': 'application/json' }, 'garbage');
    expect(noKey.status).toBe(401);
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const a = await caller.send(method, '/api/v1/BTC/addresses', { 'x-api-key': key });
      expect(a.status, method).toBe(405);
      expect(a.headers.allow).toBe('POST');
    }
    // The single route keeps refusing POST.
    const post = await caller.send('POST', `/api/v1/BTC/address/${BTC_P2PKH}`, { 'x-api-key': key });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('answers the index state for the whole batch (CHAIN_SYNCING, CHAIN_UNAVAILABLE)', async () => {
    world.index.BTC.nodeHeight = 200;
    const a = await batch('BTC', { addresses: [BTC_P2PKH] });
    expect(a.status).toBe(503);
    expect((a.body as { code: string }).code).toBe('CHAIN_SYNCING');
    world.missing.add('LTC');
    const b = await batch('LTC', { addresses: [LTC_BECH32] });
    expect((b.body as { code: string }).code).toBe('CHAIN_UNAVAILABLE');
  });
});
