/**
 * Each process's main(config), wired in-process: the API listens and answers from the data dir it is
 * given and stops cleanly; the indexer follows a node to its tip and returns when its signal aborts;
 * a chain without an RPC URL is a coded setup error; a port held by something else is one line naming
 * the setting and the variables that move it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as runApi } from '../../src/api-process/main.js';
import { main as runIndexer } from '../../indexer/main.js';
import { main as runVerify } from '../../src/store/verify-cli.js';
import { fatalLine } from '../../src/cli/process.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { chainDbPath } from '../../src/store/paths.js';
import { BtcChain } from '../support/btc-chain.js';
import { startFakeNode } from '../support/fake-node.js';
import { freePort } from '../../harness/ports.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'addrsum-bin-'));
  dirs.push(d);
  return d;
}

/** A loopback port held by a plain TCP server of the test's own (not one of ours) until `release`. */
async function occupiedPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(0, '127.0.0.1', resolve);
  });
  return { port: (holder.address() as AddressInfo).port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

describe('api main', () => {
  it('listens on the configured port, answers, and stops', async () => {
    const config = loadConfig({ env: { ADDRSUM_DATA_DIR: dataDir(), ADDRSUM_PORT: '0', ADDRSUM_BTC_RPC_URL: 'http://u:p@127.0.0.1:1' } });
    const api = await runApi(config, silentLogger());
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    const ready = await fetch(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { status: string }).status).toBe('error');
    await api.stop();
    await expect(fetch(`${api.url}/health`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const config = loadConfig({ env: { ADDRSUM_DATA_DIR: dataDir(), ADDRSUM_PORT: '0' } });
    const first = await runApi(config, silentLogger());
    const port = new URL(first.url).port;
    await expect(runApi(loadConfig({ env: { ADDRSUM_DATA_DIR: dataDir(), ADDRSUM_PORT: port } }), silentLogger())).rejects.toThrow(
      /EADDRINUSE/,
    );
    await first.stop();
  });

  it('a port held by another program: one line naming the address, api.port and ADDRSUM_PORT, with a hint', async () => {
    const held = await occupiedPort();
    try {
      const config = loadConfig({ env: { ADDRSUM_DATA_DIR: dataDir(), ADDRSUM_HOST: '127.0.0.1', ADDRSUM_PORT: String(held.port) } });
      const err: unknown = await runApi(config, silentLogger()).then(
        () => new Error('the API listened on a port that was taken'),
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'EADDRINUSE' });
      const line = fatalLine('api', err);
      expect(line).toMatch(/^addrsum api: EADDRINUSE: [^\n]+\n$/);
      expect(line).toContain(`127.0.0.1:${held.port}`);
      expect(line).toContain('api.port (ADDRSUM_PORT)');
      expect(line).toContain('another instance running?');
      expect(line).toContain('0 = any free port');
    } finally {
      await held.release();
    }
  });
});

describe('indexer main', () => {
  it('needs an RPC URL', async () => {
    const config = loadConfig({ env: { ADDRSUM_DATA_DIR: dataDir() } });
    await expect(runIndexer(config, { chain: 'LTC', logger: silentLogger(), signal: new AbortController().signal })).rejects.toMatchObject({
      code: 'NO_RPC_URL',
    });
  });

  it('a metrics port held by another program: one line naming the address, the setting and both variables', async () => {
    const held = await occupiedPort();
    try {
      const config = loadConfig({
        env: {
          ADDRSUM_DATA_DIR: dataDir(),
          ADDRSUM_HOST: '127.0.0.1',
          // The node is never asked: the metrics port comes first.
          ADDRSUM_LTC_RPC_URL: 'http://u:p@127.0.0.1:1',
          ADDRSUM_LTC_METRICS_PORT: String(held.port),
        },
      });
      const err: unknown = await runIndexer(config, { chain: 'LTC', logger: silentLogger(), signal: new AbortController().signal }).then(
        () => new Error('the indexer returned with its metrics port taken'),
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'EADDRINUSE' });
      const line = fatalLine('indexer', err);
      expect(line).toMatch(/^addrsum indexer: EADDRINUSE: [^\n]+\n$/);
      expect(line).toContain(`127.0.0.1:${held.port}`);
      expect(line).toContain('chains.LTC.metricsPort (ADDRSUM_LTC_METRICS_PORT or ADDRSUM_METRICS_PORT)');
      expect(line).toContain('another instance running?');
      expect(line).toContain('0 = any free port');
    } finally {
      await held.release();
    }
  });

  it('follows the node to its tip, then stops when aborted; verify agrees', async () => {
    const chain = new BtcChain('bin-wiring');
    chain.mine(20, { txsPerBlock: 3 });
    const node = await startFakeNode(chain);
    const dir = dataDir();
    const config = loadConfig({
      env: {
        ADDRSUM_DATA_DIR: dir,
        ADDRSUM_BTC_NETWORK: 'regtest',
        ADDRSUM_BTC_RPC_URL: node.url,
        ADDRSUM_BTC_METRICS_PORT: String(await freePort()),
      },
    });
    const controller = new AbortController();
    const running = runIndexer(config, { chain: 'BTC', logger: silentLogger(), signal: controller.signal });
    const file = chainDbPath(dir, 'BTC');
    const height = (): number => {
      try {
        const reader = ChainReader.open(file);
        try {
          return reader.status()?.tipHeight ?? -1;
        } finally {
          reader.close();
        }
      } catch {
        return -1; // not created yet
      }
    };
    await expect.poll(height, { timeout: 30_000, interval: 50 }).toBe(chain.tipHeight);
    controller.abort();
    await running;
    await node.close();
    let out = '';
    const code = await runVerify(['--chain', 'BTC', '--db', file], () => config, {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
    });
    expect(out).toContain('0 aggregate differences, 0 chain problems');
    expect(code).toBe(0);
  });
});
