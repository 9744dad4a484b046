/**
 * CORS (ADDRSUM_CORS_ORIGINS): preflights from a listed origin get 204 with that origin, x-api-key and
 * GET/HEAD/POST allowed; answers to it carry the origin and expose the headers a client reads. Other
 * origins, and every origin when none is listed, get no Access-Control-Allow-Origin, and their OPTIONS
 * keeps the 405 METHOD_NOT_ALLOWED that any OPTIONS got before CORS existed.
 */
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildWorld, type World } from '../support/api-world.js';

const ALLOWED = 'https://wallet.example.com';
const ROUTE = '/api/v1/BTC/address/bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv';
const worlds: World[] = [];
const world = (corsOrigins?: string[]) => {
  const w = buildWorld(corsOrigins ? { corsOrigins } : {});
  worlds.push(w);
  return w;
};
afterEach(() => {
  for (const w of worlds.splice(0)) w.cleanup();
});

const preflight = (w: World, origin: string, path = ROUTE) =>
  request(w.app)
    .options(path)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'GET')
    .set('Access-Control-Request-Headers', 'x-api-key');

describe('CORS', () => {
  it('answers a preflight from a listed origin with 204, the origin, x-api-key and GET/HEAD/POST', async () => {
    const w = world([ALLOWED, 'http://localhost:3000']);
    for (const path of [ROUTE, '/api/v1/BTC/addresses']) {
      const res = await preflight(w, ALLOWED, path);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-headers']).toContain('x-api-key');
      expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST');
      expect(res.headers.vary).toMatch(/\bOrigin\b/);
      expect(res.text).toBe('');
    }
    expect((await preflight(w, 'http://localhost:3000')).headers['access-control-allow-origin']).toBe('http://localhost:3000');
  });

  it('gives other origins no allow-origin; their OPTIONS stays 405', async () => {
    const w = world([ALLOWED]);
    for (const origin of ['https://evil.example.com', `${ALLOWED}.evil.example`, 'http://wallet.example.com']) {
      const res = await preflight(w, origin);
      expect(res.status).toBe(405);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect((res.body as { data: { code: string } }).data.code).toBe('METHOD_NOT_ALLOWED');
    }
    const { key } = w.createKey('private');
    const get = await request(w.app).get(ROUTE).set('Origin', 'https://evil.example.com').set('x-api-key', key);
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('marks answers to a listed origin, exposing RateLimit-*, X-Request-Id and ETag', async () => {
    const w = world([ALLOWED]);
    const { key } = w.createKey('private');
    const res = await request(w.app).get(ROUTE).set('Origin', ALLOWED).set('x-api-key', key);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    const exposed = String(res.headers['access-control-expose-headers']).split(', ');
    for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'ETag']) {
      expect(exposed).toContain(h);
      expect(res.headers[h.toLowerCase()], h).toBeDefined();
    }
    // A refusal is readable by the page too (it can show the 401's message).
    const refused = await request(w.app).get(ROUTE).set('Origin', ALLOWED);
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('is off by default: no CORS headers, OPTIONS is 405', async () => {
    const w = world();
    const res = await preflight(w, ALLOWED);
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(loadConfig({ env: {} }).api.corsOrigins).toEqual([]);
  });

  it('reads ADDRSUM_CORS_ORIGINS as a comma-separated list and refuses what is not an origin', () => {
    const cfg = loadConfig({ env: { ADDRSUM_CORS_ORIGINS: 'https://a.example, http://localhost:3000' } });
    expect(cfg.api.corsOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(() => loadConfig({ env: { ADDRSUM_CORS_ORIGINS: 'https://a.example/' } })).toThrow(/ADDRSUM_CORS_ORIGINS: expected an origin/);
    expect(() => loadConfig({ env: { ADDRSUM_CORS_ORIGINS: '*' } })).toThrow(/ADDRSUM_CORS_ORIGINS: expected an origin/);
  });
});
