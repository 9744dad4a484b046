/**
 * api.metricsAllow (ADDRSUM_METRICS_ALLOW), offered against /metrics floods (issue 22, lower item):
 * only listed client addresses or ranges get /metrics; others get 404 as for an unknown route, from the
 * connection's address (X-Forwarded-For cannot claim a listed one). The real API process.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { loadConfig } from '../../src/config.js';
import { addressMatcher } from '../../src/net-ranges.js';
import { makeDataDir, type DataDir } from '../support/limits-world.js';

let data: DataDir;
let api: ApiProcess;

beforeAll(async () => {
  data = makeDataDir('metrics-allow');
  api = await startApi({ ...data.env, ADDRSUM_METRICS_ALLOW: '127.0.0.2, 10.0.0.0/8' });
}, 90_000);

afterAll(async () => {
  await api?.stop();
  data?.remove();
});

function scrape(from: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${api.url}/metrics`, { localAddress: from, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('metricsAllow', () => {
  it('answers /metrics only to listed addresses, by the connection address', async () => {
    expect(await scrape('127.0.0.2')).toBe(200);
    expect(await scrape('127.0.0.1')).toBe(404);
    expect(await scrape('127.0.0.1', { 'x-forwarded-for': '127.0.0.2' })).toBe(404);
    // The other routes do not care.
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
  }, 30_000);

  it('matches addresses and ranges, IPv4-mapped IPv6 included', () => {
    const allowed = addressMatcher(['127.0.0.2', '10.0.0.0/8', '2001:db8::/32']);
    expect(allowed('10.1.2.3')).toBe(true);
    expect(allowed('::ffff:10.1.2.3')).toBe(true);
    expect(allowed('2001:db8:1::5')).toBe(true);
    expect(allowed('11.0.0.1')).toBe(false);
    expect(allowed('2001:db9::1')).toBe(false);
    expect(allowed(undefined)).toBe(false);
  });

  it('refuses a malformed entry at start, naming the setting', () => {
    expect(() => loadConfig({ env: { ADDRSUM_METRICS_ALLOW: '10.0.0.0/33' } })).toThrow(
      /ADDRSUM_METRICS_ALLOW.*IP addresses or CIDR ranges/,
    );
    expect(loadConfig({ env: {} }).api.metricsAllow).toBeUndefined();
  });
});
