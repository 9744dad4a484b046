/**
 * A snapshot load in progress on the status page, in a real browser (Debian's chromium through
 * playwright-core) against the real API process: the index file is what a load leaves on disk halfway
 * (the database and its WAL copied in the middle of ChainStore.loadSnapshot, as a kill would leave
 * them, or as the API sees them while the indexer loads), and the page says a snapshot is being
 * loaded, with the share of coins read; /ready says the same in its row.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { launchBrowser, type Browser } from '../../harness/browser.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { chainDbPath } from '../../src/store/paths.js';
import { scriptKey } from '../../src/store/script-key.js';

const CHAIN = 'LTC';
const COINS = 2_000;
const CHUNK = 100;
const COPY_AT = 1_234;
const DEADLINE = { timeout: 30_000, interval: 100 };

describe('status page during a snapshot load', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-status-bootstrap-'));
  const dataDir = path.join(dir, 'data');
  let api: ApiProcess;
  let browser: Browser;

  beforeAll(async () => {
    const loading = path.join(dir, 'loading.sqlite');
    const store = ChainStore.open(loading, { chain: CHAIN, network: 'regtest' });
    const target = chainDbPath(dataDir, CHAIN);
    function* coins(): Generator<unknown[]> {
      for (let i = 0; i < COINS; i++) {
        if (i === COPY_AT) {
          ChainStore.open(target, { chain: CHAIN, network: 'regtest' }).close();
          for (const ext of ['', '-wal']) if (existsSync(loading + ext)) copyFileSync(loading + ext, target + ext);
        }
        const txid = Buffer.alloc(32);
        txid.writeUInt32BE(i + 1, 28);
        yield [outpointKey(txid, 0), scriptKey(Buffer.from([0x51, i % 200])), 1000 + i, 100 + (i % 300)];
      }
    }
    try {
      store.loadSnapshot(
        () => coins(),
        { height: 500, hash: Buffer.alloc(32, 0xbb), prevHash: Buffer.alloc(32, 0xba) },
        {
          chunkCoins: CHUNK,
          totalCoins: COINS,
        },
      );
    } finally {
      store.close();
    }
    api = await startApi({
      ADDRSUM_DATA_DIR: dataDir,
      [`ADDRSUM_${CHAIN}_NETWORK`]: 'regtest',
      [`ADDRSUM_${CHAIN}_RPC_URL`]: 'http://user:pass@127.0.0.1:9',
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says in /ready that a snapshot is being loaded, with the coins read', async () => {
    const res = await fetch(`${api.url}/ready`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { data: { chains: { chain: string; bootstrap?: unknown; reason?: string }[] } };
    const row = body.data.chains.find((c) => c.chain === CHAIN)!;
    // Before coin 1,234 the chunks up to coin 1,200 had committed (a chunk commits when the next txid comes).
    expect(row.bootstrap).toEqual({ phase: 'reading coins in txid order', coins: 1_200, total: COINS });
    expect(row.reason).toBe('a UTXO snapshot is being loaded: reading coins in txid order (60.0 % of 2000 coins read)');
  });

  it('shows the load and its progress on the page', async () => {
    const { page, errors } = await browser.page();
    const response = await page.goto(`${api.url}/`);
    expect(response?.status()).toBe(200);
    const field = (name: string) => page.textContent(`#chain-${CHAIN} [data-field="${name}"]`);
    await expect.poll(() => field('state'), DEADLINE).toBe('loading a UTXO snapshot: reading coins in txid order');
    expect(await field('progress')).toContain('60.00 %');
    expect(await page.getAttribute(`#chain-${CHAIN} progress`, 'aria-label')).toBe(`${CHAIN} snapshot load progress`);
    await page.close();
    expect(errors).toEqual([]);
  }, 60_000);
});
