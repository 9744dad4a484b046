/**
 * The API's wiring (src/api-process/wiring.ts), built in-process without listening: a served chain answers from
 * the index file in the data dir once it exists, an index for another network is refused (and said so
 * at start when it is there already), a chain the service is not configured for says so, keys come from
 * keys.sqlite, and close() closes the files.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { wireApi, type WiredApi } from '../../src/api-process/wiring.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams, type NetworkName } from '../../src/chain/params.js';
import { loadConfig } from '../../src/config.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { chainDbPath } from '../../src/store/paths.js';
import { writeOneCoinIndex } from '../support/one-coin-index.js';

const ADDRESS = 'rltc1qcswcz6dxhm2pgd6amemskh48azmfleqsrgcuyd';

let dir = '';
let wired: WiredApi | null = null;
afterEach(() => {
  wired?.close();
  wired = null;
  rmSync(dir, { recursive: true, force: true });
});

/** The API wired on a fresh data dir (`before` runs on it first), with its log lines as written. */
function wire(env: Record<string, string> = {}, before?: () => void): { wired: WiredApi; key: string; logs: string[] } {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-wiring-'));
  const store = KeyStore.open(path.join(dir, 'keys.sqlite'));
  const { key } = store.create('private', 'wiring test');
  store.close();
  before?.();
  const config = loadConfig({ env: { ADDRSUM_DATA_DIR: dir, ADDRSUM_SERVE_CHAINS: 'LTC', ADDRSUM_LTC_NETWORK: 'regtest', ...env } });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  wired = wireApi(config, pino({ level: 'info' }, sink));
  return { wired, key, logs };
}

/** The warn lines logged so far, parsed. */
const warnings = (logs: string[]): Record<string, unknown>[] =>
  logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40);

function indexWithOneCoin(network: NetworkName): void {
  const script = addressToScript(chainParams('LTC', 'regtest'), ADDRESS);
  if (!script.ok) throw script.error;
  writeOneCoinIndex(chainDbPath(dir, 'LTC'), network, script.script);
}

/** Files under `root` this process holds open (Linux: /proc/self/fd). */
function openFilesUnder(root: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(`${root}/`));
}

const code = (body: { code?: unknown }): unknown => body.code;

describe('wireApi', () => {
  it('answers from the index in the data dir, with the key from keys.sqlite', async () => {
    const { wired, key } = wire();
    indexWithOneCoin('regtest');
    const r = await request(wired.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', key);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ chain: 'LTC', address: ADDRESS, balanceSatoshi: 123, utxoCount: 1, blockHeight: 1 });
    expect((await request(wired.app).get(`/api/v1/LTC/address/${ADDRESS}`)).status).toBe(401);
    expect((await request(wired.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', `${key}x`)).status).toBe(401);
  });

  it('answers CHAIN_UNAVAILABLE before the indexer has created the index', async () => {
    const { wired, key } = wire();
    const r = await request(wired.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', key);
    expect(r.status).toBe(503);
    expect(code(r.body)).toBe('CHAIN_UNAVAILABLE');
    expect(JSON.stringify(r.body)).toContain('does not exist yet');
  });

  it('refuses an index built for another network', async () => {
    const { wired, key } = wire();
    indexWithOneCoin('mainnet');
    const r = await request(wired.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', key);
    expect(r.status).toBe(503);
    expect(code(r.body)).toBe('CHAIN_UNAVAILABLE');
    expect(JSON.stringify(r.body)).toContain('indexes LTC mainnet, but this service is configured for LTC regtest');
  });

  it('says at start that an index already there was built for another network; nothing when none is there yet', async () => {
    const { wired: api, key, logs } = wire({}, () => indexWithOneCoin('mainnet'));
    // Logged while wiring, before any request (and before main.ts listens).
    const foreign = warnings(logs).filter((l) => String(l.msg).includes('indexes LTC mainnet'));
    expect(foreign).toHaveLength(1);
    expect(foreign[0]).toMatchObject({ chain: 'LTC', configuredNetwork: 'regtest', indexNetwork: 'mainnet' });
    expect(foreign[0]!.msg).toContain('but this service is configured for LTC regtest');
    expect(foreign[0]!.msg).toContain('chains.LTC.network (ADDRSUM_LTC_NETWORK)');
    // The check on each request still answers.
    const r = await request(api.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', key);
    expect(r.status).toBe(503);
    expect(code(r.body)).toBe('CHAIN_UNAVAILABLE');
    api.close();
    rmSync(dir, { recursive: true, force: true });

    // No index yet (the indexer has not run), then one of the configured network: nothing to say.
    const quiet = (w: { logs: string[] }) => warnings(w.logs).filter((l) => String(l.msg).includes('configured for'));
    const none = wire();
    expect(quiet(none)).toEqual([]);
    none.wired.close();
    rmSync(dir, { recursive: true, force: true });
    expect(quiet(wire({}, () => indexWithOneCoin('regtest')))).toEqual([]);
  });

  it('says so for a chain this service is not configured for', async () => {
    const { wired, key } = wire();
    const r = await request(wired.app).get('/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo').set('x-api-key', key);
    expect(r.status).toBe(503);
    expect(JSON.stringify(r.body)).toContain('not configured');
    expect([...wired.deps.chains].map(([c, h]) => [c, h.configured])).toEqual([
      ['BTC', false],
      ['LTC', true],
    ]);
  });

  it('close() closes the index and keys files it opened', async () => {
    const { wired: api, key } = wire();
    indexWithOneCoin('regtest');
    expect((await request(api.app).get(`/api/v1/LTC/address/${ADDRESS}`).set('x-api-key', key)).status).toBe(200);
    expect(openFilesUnder(dir).length).toBeGreaterThan(0);
    api.close();
    wired = null;
    expect(openFilesUnder(dir)).toEqual([]);
  });
});
