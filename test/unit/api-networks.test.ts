/**
 * The API started (in-process, no spawn) for each BTC network the registry adds beyond testnet3:
 * a valid tb1 address is accepted (503 until the index exists, never 400) and a mainnet address is
 * refused with 400 WRONG_NETWORK. Every answer is checked against the app's own OpenAPI document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type RunningApi } from '../../src/api-process/main.js';
import { loadConfig } from '../../src/config.js';
import { OpenApiValidator } from '../support/openapi-validate.js';

const TB1 = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const BC1 = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

describe.each(['signet', 'testnet4'] as const)('API with ADDRSUM_BTC_NETWORK=%s', (network) => {
  let dir: string;
  let api: RunningApi;
  let validator: OpenApiValidator;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), `addrsum-${network}-`));
    const config = loadConfig({
      env: {
        ADDRSUM_DATA_DIR: dir,
        ADDRSUM_HOST: '127.0.0.1',
        ADDRSUM_PORT: '0',
        ADDRSUM_ALLOW_ANONYMOUS: 'true',
        ADDRSUM_SERVE_CHAINS: 'BTC',
        ADDRSUM_BTC_NETWORK: network,
      },
    });
    api = await main(config, pino({ level: 'silent' }));
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as Record<string, unknown>;
    validator = new OpenApiValidator(doc);
  });

  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function get(address: string): Promise<{ status: number; body: { code?: string; data?: { code?: string } } }> {
    const url = `/api/v1/btc/address/${address}`;
    const res = await fetch(api.url + url);
    const text = await res.text();
    const headers = Object.fromEntries(res.headers.entries());
    expect(validator.check({ method: 'GET', path: url, status: res.status, headers, text })).toEqual([]);
    return { status: res.status, body: JSON.parse(text) as { code?: string; data?: { code?: string } } };
  }

  it('accepts a tb1 address: 503 CHAIN_UNAVAILABLE until the index exists, never 400', async () => {
    const a = await get(TB1);
    expect(a.status).toBe(503);
    expect(a.body.code).toBe('CHAIN_UNAVAILABLE');
  });

  it('refuses a mainnet address with 400 WRONG_NETWORK', async () => {
    const a = await get(BC1);
    expect(a.status).toBe(400);
    expect(a.body.data?.code).toBe('WRONG_NETWORK');
  });
});
