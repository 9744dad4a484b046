/**
 * The Esplora dialect's door: off unless api.esplora is on; on, it serves callers without a key (the
 * operator's consent) at the default tier, refuses a wrong key, and answers every refusal as electrs
 * does, a text/plain body with the status (429 with Retry-After), never JSend.
 */
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWorld, type World } from '../support/api-world.js';

let world: World | undefined;
afterEach(() => world?.cleanup());

describe('the Esplora door', () => {
  it('is off by default: its paths are the native API’s 404', async () => {
    world = buildWorld();
    const res = await request(world.app).get('/esplora/LTC/api/blocks/tip/height');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 'fail' });
  });

  it('on: serves without a key, refuses a wrong one, and answers in text', async () => {
    world = buildWorld({ esplora: true, allowAnonymous: false });
    const unknown = await request(world.app).get('/esplora/LTC/api/nope');
    expect({ status: unknown.status, type: unknown.type, text: unknown.text }).toEqual({
      status: 404,
      type: 'text/plain',
      text: 'endpoint does not exist "/esplora/LTC/api/nope"',
    });
    const wrongKey = await request(world.app).get('/esplora/LTC/api/nope').set('x-api-key', 'asum_nothing');
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.type).toBe('text/plain');
    const post = await request(world.app).post('/esplora/LTC/api/tx').send('00');
    expect({ status: post.status, type: post.type }).toEqual({ status: 403, type: 'text/plain' });
    expect(post.text).toMatch(/does not relay transactions: .*ADDRSUM_BROADCAST/);
    const pkg = await request(world.app).post('/esplora/LTC/api/txs/package').send('["00"]');
    expect({ status: pkg.status, type: pkg.type, text: pkg.text }).toEqual({ status: 403, type: 'text/plain', text: post.text });
    const put = await request(world.app).put('/esplora/LTC/api/tx').send('00');
    expect(put.status).toBe(404);
    const chain = await request(world.app).get('/esplora/XYZ/api/blocks/tip/height');
    expect(chain.status).toBe(404);
    expect(chain.type).toBe('text/plain');
  });

  it('limits anonymous callers per client network at the default tier, with Retry-After', async () => {
    world = buildWorld({ esplora: true, tiers: { default: { rate: 0.001, burst: 3 }, private: { rate: 50, burst: 100 } } });
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 5; i++) {
      last = await request(world.app).get('/esplora/LTC/api/nope');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    expect(last!.type).toBe('text/plain');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    const { key } = world.createKey('private');
    expect((await request(world.app).get('/esplora/LTC/api/nope').set('x-api-key', key)).status).toBe(404);
  });
});
