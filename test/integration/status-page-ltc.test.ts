/**
 * The status page at `/` in a real browser (Debian's chromium through playwright-core) against the real
 * indexer and API over a real `litecoind -regtest`: it shows the indexed height and follows the next
 * block without a reload; a lookup shows the balance in 8 decimals equal to `scantxoutset`, and follows
 * a block that pays the address. With history kept (synced from genesis with it), a lookup's totals and
 * latest transactions, page by page, equal an independent walk of the node's blocks; once the indexer
 * drops history the page says it is not kept. No page errors, and nothing of the node's credentials on
 * the page.
 */
import { randomBytes } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { launchBrowser, type Browser } from '../../harness/browser.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { coins, lockOutpoints, spendWalletUtxos, walletUtxos } from '../../harness/regtest-wallet.js';
import { chainParams } from '../../src/chain/params.js';
import { coinsText, walkHistory } from '../support/history-walk.js';

const CHAIN = 'LTC';
const DEADLINE = { timeout: 60_000, interval: 100 };
/** The page's first page of transactions. */
const PAGE = 10;
/** What chromium logs for any answer of 4xx/5xx, here the transactions route's HISTORY_DISABLED. */
const LOGGED_404 = 'console: Failed to load resource: the server responded with a status of 404 (Not Found)';

/** Integer satoshis as 8-decimal text, the oracle's side (the page formats its own). */
const eightDecimals = (sats: number): string => `${Math.floor(sats / 1e8)}.${String(sats % 1e8).padStart(8, '0')}`;

describe('status page in chromium against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let browser: Browser;
  let miner: string;
  const payee = payments.p2wpkh({ hash: randomBytes(20), network: chainParams(CHAIN, 'regtest').bitcoinjs }).address!;
  /** A wallet address with more transactions than the page's first page: payments to it and spends from it. */
  let busy: string;
  const errors: string[] = [];

  /** `expected`: a console error the test provokes on purpose, left out of the suite's list. */
  const open = async (pathAndQuery: string, expected?: string): Promise<Page> => {
    const { page, errors: pageErrors } = await browser.page();
    const response = await page.goto(`${api.url}${pathAndQuery}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    // Collected into the suite's list, checked by the last test.
    page.on('close', () => errors.push(...pageErrors.filter((e) => e !== expected)));
    return page;
  };
  const field = (page: Page, name: string) => page.textContent(`#chain-${CHAIN} [data-field="${name}"]`);
  /** The listed transactions, one `txid height received sent` line each, as shown. */
  const rows = async (page: Page): Promise<string[]> => {
    const cells = await page.locator('#history-list tbody td').allTextContents();
    return Array.from({ length: cells.length / 4 }, (_, i) => cells.slice(4 * i, 4 * i + 4).join(' '));
  };
  const mine = (): Promise<void> => lw.mineBlock(miner);

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await node.cli('generatetoaddress', 101, miner);
    await node.cli('sendtoaddress', payee, '1.00345678');
    busy = await node.cli<string>('getnewaddress', '', 'bech32');
    for (let i = 0; i < PAGE + 2; i++) await node.cli('sendtoaddress', busy, coins(10_000_000 + i));
    await node.cli('generatetoaddress', 1, miner);
    const held = await walletUtxos(node, { addresses: [busy] });
    await spendWalletUtxos(node, held.slice(0, 3), miner);
    // The other tests' payments must not spend the rest: this history stays what the beforeAll made.
    await lockOutpoints(node, held.slice(3));
    await node.cli('generatetoaddress', 1, miner);
    // History is kept from the first block only: this index is synced from genesis with it.
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100', env: { ADDRSUM_HISTORY: 'true' } });
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
    await page.getByLabel('Address, txid, block hash or height', { exact: true }).fill(payee);
    await page.getByLabel(/API key/).fill(key);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.textContent('#result-balance'), DEADLINE).toMatch(/^\d+\.\d{8} /);
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate('sessionStorage.getItem("addrsum.apiKey")')).toBe(key);
    expect(await page.inputValue('#lookup-key')).toBe('');
    await page.close();
  }, 120_000);

  it('sends a kept key to the transactions route in its header, never in the URL', async () => {
    const key = lw.world.createKey('history page');
    const page = await open('/');
    await expect.poll(() => page.locator('#lookup-chain option').count(), DEADLINE).toBeGreaterThan(0);
    await page.getByLabel('Address, txid, block hash or height', { exact: true }).fill(busy);
    await page.getByLabel(/API key/).fill(key);
    const request = page.waitForRequest(/\/transactions\?/);
    await page.getByRole('button', { name: 'Look up' }).click();
    const sent = await request;
    expect(sent.headers()['x-api-key']).toBe(key);
    expect(sent.url()).toBe(`${api.url}/api/v1/${CHAIN}/address/${busy}/transactions?limit=${PAGE}`);
    await page.close();
  }, 120_000);

  it('with history kept: totals and the latest transactions equal a walk of the node; "more" lists the next ones', async () => {
    const walk = await walkHistory(node.cliExact);
    const want = walk.totalsOf(busy);
    const newest = walk.historyOf(busy).map((e) => `${e.txid} ${e.height} ${coinsText(e.receivedSats)} ${coinsText(e.sentSats)}`);
    // The walk, not the page, says there is more than a page, and not more than two.
    expect(newest.length).toBeGreaterThan(PAGE);
    expect(newest.length).toBeLessThanOrEqual(2 * PAGE);
    expect(want.sentSats).toBeGreaterThan(0n);

    const page = await open(`/?chain=${CHAIN}&address=${busy}`);
    await expect.poll(() => page.textContent('#result-txcount'), DEADLINE).toBe(String(want.txCount));
    expect(await page.textContent('#result-received')).toBe(`${coinsText(want.receivedSats)} ${CHAIN}`);
    expect(await page.textContent('#result-sent')).toBe(`${coinsText(want.sentSats)} ${CHAIN}`);
    expect(await page.textContent('#result-balance')).toBe(`${coinsText(want.receivedSats - want.sentSats)} ${CHAIN}`);
    expect(await page.textContent('#result-height')).toBe(String(walk.tipHeight));
    await expect.poll(() => rows(page), DEADLINE).toEqual(newest.slice(0, PAGE));

    const more = page.getByRole('button', { name: 'More transactions' });
    await more.click();
    await expect.poll(() => rows(page), DEADLINE).toEqual(newest);
    expect(await more.isVisible()).toBe(false);
    // The look, not the attribute: a state shown as an error earlier in the lookup leaves class="" behind.
    expect(await page.$eval('#history-state', (e) => e.classList.contains('state-down'))).toBe(false);
    await page.close();
  }, 120_000);

  it('a txid typed in opens its transaction, with links to what it spent and to its block, which lists it', async () => {
    const walk = await walkHistory(node.cliExact);
    // The spend of three of the busy address's coins (the beforeAll's), paying the miner.
    const spend = walk.historyOf(busy).find((e) => e.sentSats > 0n)!;
    expect(spend).toBeDefined();
    const page = await open('/');
    await expect.poll(() => page.locator('#lookup-chain option').count(), DEADLINE).toBeGreaterThan(0);
    await page.getByLabel('Address, txid, block hash or height', { exact: true }).fill(spend.txid);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.textContent('#object-txid'), DEADLINE).toBe(spend.txid);
    expect(page.url()).toBe(`${api.url}/?chain=${CHAIN}&q=${spend.txid}`);
    const inputs = page.locator('#object table').first().locator('tbody tr');
    expect(await inputs.count()).toBe(3);
    // Each input's prevout is the busy address's, as a link opening its lookup.
    const owners = page.locator('#object table').first().locator('a', { hasText: busy });
    expect(await owners.count()).toBe(3);
    expect(await owners.first().getAttribute('href')).toBe(`/?chain=${CHAIN}&address=${busy}`);
    await page.locator('#object-status a').click();
    await expect.poll(() => page.textContent('#object-height'), DEADLINE).toBe(String(spend.height));
    expect(page.url()).toBe(`${api.url}/?chain=${CHAIN}&block=${await node.cli<string>('getblockhash', spend.height)}`);
    expect(await page.locator('#object a', { hasText: spend.txid }).count()).toBe(1);
    await page.close();
  }, 120_000);

  it('with history dropped: the balance as before, and says history is not kept, without an error look', async () => {
    // Started without ADDRSUM_HISTORY, the indexer forgets the history it kept.
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    const plain = async (): Promise<boolean> => {
      const res = await fetch(`${api.url}/api/v1/${CHAIN}/address/${busy}`);
      return res.status === 200 && !(await res.text()).includes('txCount');
    };
    await waitFor('history to be dropped', plain, 60_000, lw.world.indexer);
    const balance = (await scanAddresses(node, [busy])).get(busy)!.sats;

    const page = await open(`/?chain=${CHAIN}&address=${busy}`, LOGGED_404);
    await expect.poll(() => page.textContent('#history-state'), DEADLINE).toBe(`This server keeps no transaction history for ${CHAIN}.`);
    // The look, not the attribute: a state shown as an error earlier in the lookup leaves class="" behind.
    expect(await page.$eval('#history-state', (e) => e.classList.contains('state-down'))).toBe(false);
    expect(await page.textContent('#result-balance')).toBe(`${eightDecimals(balance)} ${CHAIN}`);
    for (const hidden of ['#result-txcount', '#result-received', '#result-sent', '#history-list', '#history-more'])
      expect(await page.isVisible(hidden), hidden).toBe(false);
    expect(await page.textContent('body')).not.toContain('HISTORY_DISABLED');
    await page.close();
  }, 120_000);

  it('raised no page errors', () => {
    expect(errors).toEqual([]);
  });
});
