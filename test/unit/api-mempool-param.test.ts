/**
 * The `?mempool=` parameter (issue 22, lower items): said twice it is a 400, not the first value read;
 * on a batch, an invalid value costs one request like any other malformed batch, not one per address.
 * With history kept `unconfirmed` adds what the mempool pays to and spends from the script (issue 33);
 * without it the object keeps its older shape, and the ETag follows the added figures.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { buildWorld, Caller, type Answer, type World } from '../support/api-world.js';

const BTC_P2PKH = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';

let world: World;
let caller: Caller;
let key: string;

const code = (a: Answer) => (a.body as { data: { code: string } }).data.code;
const batch = (query: string, addresses: string[]) =>
  caller.send(
    'POST',
    `/api/v1/BTC/addresses${query}`,
    { 'x-api-key': key, 'content-type': 'application/json' },
    JSON.stringify({ addresses }),
  );

beforeEach(() => {
  world = buildWorld();
  caller = new Caller(world.app);
  key = world.createKey('private').key;
});

afterEach(() => {
  expect(caller.problems).toEqual([]);
  world.cleanup();
});

describe('?mempool=', () => {
  it('is a 400 when repeated, on the single route and on a batch', async () => {
    for (const query of ['?mempool=true&mempool=false', '?mempool=false&mempool=true', '?mempool=1&mempool=1']) {
      const one = await caller.send('GET', `/api/v1/BTC/address/${BTC_P2PKH}${query}`, { 'x-api-key': key });
      expect(one.status, query).toBe(400);
      expect(code(one)).toBe('BAD_REQUEST');
      const many = await batch(query, [BTC_P2PKH]);
      expect(many.status, query).toBe(400);
    }
  });

  it('charges a batch with an invalid value one request, not one per address', async () => {
    const sixty = Array.from({ length: 60 }, () => BTC_P2PKH);
    const bad = await batch('?mempool=maybe', sixty);
    expect(bad.status).toBe(400);
    expect(bad.headers['ratelimit-remaining']).toBe('99');
  });
});

describe('unconfirmed with history kept', () => {
  const decoded = addressToScript(chainParams('BTC', 'mainnet'), BTC_P2PKH);
  if (!decoded.ok) throw new Error('test address');
  const scriptHex = Buffer.from(decoded.script).toString('hex');
  const scripthash = createHash('sha256').update(decoded.script).digest().reverse().toString('hex');
  const get = (path: string, headers: Record<string, string> = {}) => caller.send('GET', path, { 'x-api-key': key, ...headers });

  it('adds receivedSatoshi/received and sentSatoshi/sent after txCount, on the address and scripthash routes and in a batch', async () => {
    world.index.BTC.setMempool(scriptHex, { balanceSats: -4000, utxoCount: 0, txCount: 2, received: 6000n, sent: 10_000n });
    const want =
      '"unconfirmed":{"balanceSatoshi":-4000,"balance":-0.00004000,"utxoCount":0,"txCount":2,' +
      '"receivedSatoshi":6000,"received":0.00006000,"sentSatoshi":10000,"sent":0.00010000}';
    for (const a of [
      await get(`/api/v1/BTC/address/${BTC_P2PKH}?mempool=true`),
      await get(`/api/v1/BTC/scripthash/${scripthash}?mempool=true`),
      await batch('?mempool=true', [BTC_P2PKH]),
    ]) {
      expect(a.status).toBe(200);
      expect(a.text).toContain(want);
    }
  });

  it('keeps the older shape without history, and the ETag changes when only received and sent do', async () => {
    world.index.BTC.setMempool(scriptHex, { balanceSats: -4000, utxoCount: 0, txCount: 2 });
    const plain = await get(`/api/v1/BTC/address/${BTC_P2PKH}?mempool=true`);
    expect(plain.text).toContain('"unconfirmed":{"balanceSatoshi":-4000,"balance":-0.00004000,"utxoCount":0,"txCount":2}');
    world.index.BTC.setMempool(scriptHex, { balanceSats: -4000, utxoCount: 0, txCount: 2, received: 6000n, sent: 10_000n });
    const first = await get(`/api/v1/BTC/address/${BTC_P2PKH}?mempool=true`);
    world.index.BTC.setMempool(scriptHex, { balanceSats: -4000, utxoCount: 0, txCount: 2, received: 7000n, sent: 11_000n });
    const etag = String(first.headers.etag);
    const again = await get(`/api/v1/BTC/address/${BTC_P2PKH}?mempool=true`, { 'if-none-match': etag });
    expect(again.status).toBe(200);
    expect(String(again.headers.etag)).not.toBe(etag);
  });
});
