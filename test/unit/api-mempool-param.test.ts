/**
 * The `?mempool=` parameter (issue 22, lower items): said twice it is a 400, not the first value read;
 * on a batch, an invalid value costs one request like any other malformed batch, not one per address.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
