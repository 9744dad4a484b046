/**
 * `npm run api` as a process: real config, real ChainReader and key store, lazy pickup of databases
 * created after start, refusal of an index built for another network, secrets kept out of logs, a
 * clean exit 0 on SIGTERM, and one line on stderr for what stops it at start.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { writeOneCoinIndex } from '../support/one-coin-index.js';
import { OpenApiValidator } from '../support/openapi-validate.js';

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-server-'));
const ADDRESS = 'rltc1qcswcz6dxhm2pgd6amemskh48azmfleqsrgcuyd';
const env = {
  ...process.env,
  ADDRSUM_DATA_DIR: dir,
  ADDRSUM_HOST: '127.0.0.1',
  ADDRSUM_PORT: '0',
  ADDRSUM_LOG_LEVEL: 'info',
  ADDRSUM_LTC_NETWORK: 'regtest',
  ADDRSUM_LTC_RPC_URL: 'http://user:hunter2secret@127.0.0.1:1',
  ADDRSUM_BTC_RPC_URL: 'http://user:hunter2secret@127.0.0.1:2',
};

const validator = new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>);
const problems: string[] = [];
let child: ChildProcessWithoutNullStreams;
let port = 0;
let stdout = '';
let stderr = '';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function get(pathname: string, headers: Record<string, string> = {}, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        problems.push(...validator.check({ method: 'GET', path: pathname, status, headers: res.headers, text }));
        resolve({ status, body: JSON.parse(text) as Record<string, unknown> });
      });
    });
    req.on('error', reject);
  });
}

/** Asks until `ok` holds (the server reloads files on a later request), then returns that answer. */
async function until(fn: () => Promise<Answer>, ok: (v: Answer) => boolean): Promise<Answer> {
  let last: Answer | undefined;
  await vi.waitFor(
    async () => {
      last = await fn();
      expect(ok(last), `last answer: ${JSON.stringify(last)}`).toBe(true);
    },
    { timeout: 10_000, interval: 100 },
  );
  return last!;
}

const code = (b: Record<string, unknown>) => (b.code ?? (b.data as { code?: string } | undefined)?.code) as string | undefined;

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/api-process/addrsum-api.ts'], { env });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stdout} ${stderr}`)), 60_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (c) => reject(new Error(`server exited ${c}: ${stderr}`)));
  });
});

afterAll(() => {
  expect(problems).toEqual([]);
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('the API process', () => {
  it('starts without any database and says why chains do not answer', async () => {
    expect((await get('/health')).status).toBe(200);
    const ready = await get('/ready');
    expect(ready.status).toBe(503);
    expect(code(ready.body)).toBe('NOT_READY');
    expect((await get(`/api/v1/LTC/address/${ADDRESS}`)).status).toBe(401);
  });

  it('picks up keys.sqlite and the chain index once they are created', async () => {
    const store = KeyStore.open(path.join(dir, 'keys.sqlite'));
    const { key } = store.create('private', 'server test');
    store.close();
    const url = `/api/v1/ltc/address/${ADDRESS}`;
    const before = await until(
      () => get(url, { 'x-api-key': key }),
      (r) => r.status !== 401,
    );
    expect(before.status).toBe(503);
    expect(code(before.body)).toBe('CHAIN_UNAVAILABLE');

    const script = addressToScript(chainParams('LTC', 'regtest'), ADDRESS);
    if (!script.ok) throw script.error;
    const tipHash = writeOneCoinIndex(path.join(dir, 'ltc.sqlite'), 'regtest', script.script);

    const after = await until(
      () => get(url, { 'x-api-key': key }),
      (r) => r.status === 200,
    );
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({
      chain: 'LTC',
      address: ADDRESS,
      balanceSatoshi: 123,
      utxoCount: 1,
      blockHeight: 1,
      blockHash: tipHash,
    });
  });

  it('refuses an index built for another network', async () => {
    const wrong = ChainStore.open(path.join(dir, 'btc.sqlite'), { chain: 'BTC', network: 'regtest' });
    wrong.close();
    const store = KeyStore.open(path.join(dir, 'keys.sqlite'));
    const { key } = store.create('private', '');
    store.close();
    const url = '/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';
    // A request makes the server look at the file (at most once a second while opening fails): ask until
    // its refusal is logged. The log line may reach our pipe a moment after the answer does.
    const reason = /indexes BTC regtest, but this service is configured for BTC mainnet/;
    await vi.waitFor(
      async () => {
        await get(url, { 'x-api-key': key });
        expect(stdout).toMatch(reason);
      },
      { timeout: 15_000, interval: 200 },
    );
    const r = await get(url, { 'x-api-key': key });
    expect(r.status).toBe(503);
    expect(code(r.body)).toBe('CHAIN_UNAVAILABLE');
  });

  it('never logs RPC credentials', () => {
    expect(stdout + stderr).not.toContain('hunter2secret');
  });

  it('exits 0 on SIGTERM, also with an idle keep-alive connection open', async () => {
    const agent = new http.Agent({ keepAlive: true });
    expect((await get('/health', {}, agent)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('"msg":"stopped"');
    agent.destroy();
  });

  it('exits 1 with one line naming ADDRSUM_PORT when its port is held by another program', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/api-process/addrsum-api.ts'], {
        env: { ...env, ADDRSUM_PORT: String(taken) },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `addrsum api: EADDRINUSE: 127.0.0.1:${taken} is already in use (EADDRINUSE), so the API cannot listen there; ` +
          'the port is api.port (ADDRSUM_PORT). Is another instance running? Stop it, or choose another port (0 = any free port).',
      ]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('exits 1 with one line for a bad configuration value', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/api-process/addrsum-api.ts'], {
      env: { ...env, ADDRSUM_LTC_NETWORK: 'mainet' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'addrsum: invalid configuration: ADDRSUM_LTC_NETWORK: expected one of mainnet, testnet, regtest (got "mainet")',
    );
  });
});
