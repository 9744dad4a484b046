/**
 * API keys in PostgreSQL (ADDRSUM_KEYS_URL), with real clusters this suite starts (harness/postgres.ts):
 * a key created with the keys CLI on one machine works on API processes that read the primary and a
 * streaming standby; revoked, both refuse it; a database that goes away answers 503 KEYS_UNAVAILABLE
 * (never 401, never a dead process) and the API recovers by itself when it is back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { startPrimary, startStandby, waitForReplay, type PgCluster } from '../../harness/postgres.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { loadConfig } from '../../src/config.js';
import { main as keysCli } from '../../src/keys/cli.js';
import { chainDbPath } from '../../src/store/paths.js';
import { writeOneCoinIndex } from '../support/one-coin-index.js';

const ADDRESS = 'rltc1qcswcz6dxhm2pgd6amemskh48azmfleqsrgcuyd';
const dirs: string[] = [];
const apis: ApiProcess[] = [];
const clusters: PgCluster[] = [];

afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await Promise.all(clusters.map((c) => c.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The keys CLI in this process with ADDRSUM_KEYS_URL = `url`: exit code and output. */
async function keys(url: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let [out, err] = ['', ''];
  const code = await keysCli(argv, () => loadConfig({ env: { ADDRSUM_KEYS_URL: url, ADDRSUM_DATA_DIR: '/nonexistent' } }), {
    out: (t) => (out += t),
    err: (t) => (err += t),
  });
  return { code, out, err };
}

/** An API "machine": a data dir of its own holding a one-coin LTC index, keys from `keysUrl`. */
async function apiMachine(keysUrl: string): Promise<ApiProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-keys-pg-'));
  dirs.push(dir);
  const script = addressToScript(chainParams('LTC', 'regtest'), ADDRESS);
  if (!script.ok) throw script.error;
  writeOneCoinIndex(chainDbPath(dir, 'LTC'), 'regtest', script.script);
  const api = await startApi({
    ADDRSUM_DATA_DIR: dir,
    ADDRSUM_KEYS_URL: keysUrl,
    ADDRSUM_SERVE_CHAINS: 'LTC',
    ADDRSUM_LTC_NETWORK: 'regtest',
    ADDRSUM_STALE_AFTER_SECONDS: '0',
  });
  apis.push(api);
  return api;
}

async function lookup(api: ApiProcess, key: string): Promise<{ status: number; code?: string; balanceSatoshi?: number }> {
  const res = await fetch(`${api.url}/api/v1/LTC/address/${ADDRESS}`, { headers: { 'x-api-key': key } });
  // JSend: a 4xx says its code in data, a 5xx beside it.
  const body = (await res.json()) as { code?: string; data?: { code?: string; balanceSatoshi?: number } };
  return { status: res.status, code: body.code ?? body.data?.code, balanceSatoshi: body.data?.balanceSatoshi };
}

describe('API keys in PostgreSQL', () => {
  let primary: PgCluster;
  let standby: PgCluster;

  beforeAll(async () => {
    primary = await startPrimary();
    clusters.push(primary);
    standby = await startStandby(primary);
    clusters.push(standby);
  });

  it('a key created once works on the primary’s and the standby’s APIs; revoked, both refuse it', async () => {
    expect((await keys(primary.url, 'list')).out).toMatch(/^No keys yet in PostgreSQL postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/postgres/);
    const onPrimary = await apiMachine(primary.url);
    const onStandby = await apiMachine(standby.url);

    const created = await keys(primary.url, 'create', '--label', 'shared');
    expect(created.code).toBe(0);
    const key = created.out.trim().split('\n').pop()!;
    const id = /Created key (key_[0-9a-f]+)/.exec(created.out)![1]!;
    await waitForReplay(primary, standby);
    for (const api of [onPrimary, onStandby]) {
      await waitFor('the new key to be accepted', async () => (await lookup(api, key)).status === 200, 30_000);
      expect(await lookup(api, key)).toEqual({ status: 200, balanceSatoshi: 123, code: undefined });
      expect((await lookup(api, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).code).toBe('INVALID_API_KEY');
    }

    const revoked = await keys(primary.url, 'revoke', id);
    expect(revoked.out).toMatch(new RegExp(`^Revoked key ${id} at `));
    const at = Date.now();
    const refusedAfter: number[] = [];
    for (const api of [onPrimary, onStandby]) {
      await waitFor('the revoked key to be refused', async () => (await lookup(api, key)).status === 401, 30_000);
      refusedAfter.push(Date.now() - at);
      expect((await lookup(api, key)).code).toBe('INVALID_API_KEY');
    }
    // A figure for the closing note (the mirror polls every second), not a check on time.
    console.log(`revocation refused after ${refusedAfter.join(' ms (primary API), ')} ms (standby API)`);
    const listed = JSON.parse((await keys(primary.url, 'list', '--json')).out) as Array<{ id: string; revokedAt: string | null }>;
    expect(listed).toEqual([expect.objectContaining({ id, revokedAt: expect.any(String) as unknown })]);
    expect((await keys(primary.url, 'revoke', id)).out).toMatch(/was already revoked/);
    expect(await keys(primary.url, 'revoke', 'key_000000000000')).toMatchObject({ code: 1 });
  });

  it('an unreachable database answers 503 KEYS_UNAVAILABLE, and the API recovers by itself', async () => {
    const own = await startPrimary();
    clusters.push(own);
    const key = (await keys(own.url, 'create')).out.trim().split('\n').pop()!;
    const api = await apiMachine(own.url);
    await waitFor('the key to be accepted', async () => (await lookup(api, key)).status === 200, 30_000);

    await own.kill();
    await waitFor('KEYS_UNAVAILABLE', async () => (await lookup(api, key)).code === 'KEYS_UNAVAILABLE', 30_000);
    const down = await lookup(api, key);
    expect(down.status).toBe(503);
    const ready = await fetch(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('the keys database cannot be read');

    await own.restart();
    await waitFor('the key to be accepted again', async () => (await lookup(api, key)).status === 200, 30_000);
    expect(api.child.exitCode).toBeNull();
    // The log line and the first answer after it race on the child's stdout: wait for the line.
    await waitFor('the keys to be logged recovered', async () => /"why":"recovered"/.test(api.output()), 30_000);
    expect(api.output()).not.toContain(own.url.replace('postgres://', ''));
  });

  it('a keys schema another release wrote is refused with what to do, by the CLI and the API', async () => {
    const own = await startPrimary();
    clusters.push(own);
    const key = (await keys(own.url, 'create')).out.trim().split('\n').pop()!;
    await own.sql('UPDATE addrsum_keys.state SET schema_version = 99');
    const listed = await keys(own.url, 'list');
    expect(listed.code).toBe(1);
    expect(listed.err).toMatch(/addrsum_keys has schema version 99, this addrsum reads version 1: .* \(SCHEMA_TOO_NEW\)/);
    const api = await apiMachine(own.url);
    // Before its first read an API trusts no key either: wait for the read that found the version.
    await waitFor('the version said in the log', () => api.output().includes('addrsum_keys has schema version 99'), 30_000);
    expect((await lookup(api, key)).code).toBe('KEYS_UNAVAILABLE');
  });

  it('the keys CLI says which database it could not use, without a password', async () => {
    const res = await keys('postgres://addrsum:hunter2@127.0.0.1:9/postgres', 'create');
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^error: cannot use PostgreSQL postgres:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:9\/postgres: .*ECONNREFUSED/);
    expect(res.err).not.toContain('hunter2');
  });
});
