/**
 * The status page at `/` in a real browser (Debian's chromium through playwright-core) against the real
 * indexer and API over a real `litecoind -regtest`: it shows the indexed height and follows the next
 * block without a reload; a lookup shows the balance in 8 decimals equal to `scantxoutset`, and follows
 * a block that pays the address. No page errors, and nothing of the node's credentials on the page.
 */
import { randomBytes } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { launchBrowser, type Browser } from '../../harness/browser.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { chainParams } from '../../src/chain/params.js';

const CHAIN = 'LTC';
const DEADLINE = { timeout: 60_000, interval: 100 };

/** Integer satoshis as 8-decimal text, the oracle's side (the page formats its own). */
const eightDecimals = (sats: number): string => `${Math.floor(sats / 1e8)}.${String(sats % 1e8).padStart(8, '0')}`;

describe('status page in chromium against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let browser: Browser;
  let miner: string;
  const payee = payments.p2wpkh({ hash: randomBytes(20), network: chainParams(CHAIN, 'regtest').bitcoinjs }).address!;
  const errors: string[] = [];

  const open = async (pathAndQuery: string): Promise<Page> => {
    const { page, errors: pageErrors } = await browser.page();
    const response = await page.goto(`${api.url}${pathAndQuery}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    // Collected into the suite's list, checked by the last test.
    page.on('close', () => errors.push(...pageErrors));
    return page;
  };
  const field = (page: Page, name: string) => page.textContent(`#chain-${CHAIN} [data-field="${name}"]`);
  const mine = (): Promise<void> => lw.mineBlock(miner);

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await node.cli('generatetoaddress', 101, miner);
    await node.cli('sendtoaddress', payee, '1.00345678');
    await node.cli('generatetoaddress', 1, miner);
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 120_000);
    api = await lw.world.startApi('[api]\nallowAnonymous = true\n[api.live]\npollMs = 100\n');
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await lw?.close();
  });

  it('shows the indexed height and hash, and the next block without a reload', async () => {
    const page = await open('/');
    const height = await node.cli<number>('getblockcount');
    await expect.poll(() => field(page, 'indexed-height'), DEADLINE).toBe(String(height));
    expect(await field(page, 'indexed-hash')).toBe(await node.cli<string>('getbestblockhash'));
    expect(await field(page, 'state')).toBe('in sync');

    await mine();
    await expect.poll(() => field(page, 'indexed-height'), DEADLINE).toBe(String(height + 1));
    expect(await field(page, 'indexed-hash')).toBe(await node.cli<string>('getbestblockhash'));
    const text = (await page.textContent('body')) ?? '';
    expect(text).not.toContain(node.rpcPassword ?? 'no password');
    expect(text).not.toContain(String(node.rpcPort));
    await page.close();
  }, 120_000);

  it('opens a lookup from the URL: the balance in 8 decimals equals the node, and follows a paying block', async () => {
    const page = await open(`/?chain=${CHAIN}&address=${payee}`);
    const balance = () => page.textContent('#result-balance');
    const node0 = (await scanAddresses(node, [payee])).get(payee)!.sats;
    await expect.poll(balance, DEADLINE).toBe(`${eightDecimals(node0)} ${CHAIN}`);
    expect(node0).toBe(100_345_678);

    await node.cli('sendtoaddress', payee, '0.5');
    await mine();
    const node1 = (await scanAddresses(node, [payee])).get(payee)!.sats;
    expect(node1).toBe(node0 + 50_000_000);
    await expect.poll(balance, DEADLINE).toBe(`${eightDecimals(node1)} ${CHAIN}`);
    expect(page.url()).toBe(`${api.url}/?chain=${CHAIN}&address=${payee}`);
    await page.close();
  }, 120_000);

  it('keeps a typed key in sessionStorage, never in the URL', async () => {
    const key = lw.world.createKey('page');
    const page = await open('/');
    await expect.poll(() => page.locator('#lookup-chain option').count(), DEADLINE).toBeGreaterThan(0);
    await page.getByLabel('Address', { exact: true }).fill(payee);
    await page.getByLabel(/API key/).fill(key);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.textContent('#result-balance'), DEADLINE).toMatch(/^\d+\.\d{8} /);
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate('sessionStorage.getItem("addrsum.apiKey")')).toBe(key);
    expect(await page.inputValue('#lookup-key')).toBe('');
    await page.close();
  }, 120_000);

  it('raised no page errors', () => {
    expect(errors).toEqual([]);
  });
});
