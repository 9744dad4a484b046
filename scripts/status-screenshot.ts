/**
 * Takes docs/status-page.png, the README's picture of the status page: a regtest litecoind, the real
 * indexer and API, and the page in Debian's chromium (harness/browser.ts) with a lookup held open.
 * Run: `npx tsx scripts/status-screenshot.ts` (needs litecoind and chromium: scripts/ensure-deps.sh).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { payments } from 'bitcoinjs-lib';
import { launchBrowser } from '../harness/browser.js';
import { waitFor, REPO_ROOT } from '../harness/indexer-process.js';
import { LitecoindWorld } from '../harness/indexer-world.js';
import { chainParams } from '../src/chain/params.js';

const OUT = path.join(REPO_ROOT, 'docs/status-page.png');

async function main(): Promise<void> {
  const lw = await LitecoindWorld.start();
  const chain = lw.world.chain;
  const browser = await launchBrowser({ width: 900, height: 760 });
  try {
    const node = lw.node;
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await node.cli('generatetoaddress', 120, miner);
    const payee = payments.p2wpkh({ hash: randomBytes(20), network: chainParams(chain, 'regtest').bitcoinjs }).address!;
    await node.cli('sendtoaddress', payee, '12.5');
    await node.cli('generatetoaddress', 1, miner);
    await node.cli('sendtoaddress', payee, '0.04');
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('catch-up', 120_000);
    const api = await lw.world.startApi('[api]\nallowAnonymous = true\n[api.live]\npollMs = 100\n');
    const { page } = await browser.page();
    await page.goto(`${api.url}/?chain=${chain}&address=${payee}`);
    await waitFor('the page filled in', async () => {
      const unconfirmed = (await page.textContent('#result-unconfirmed')) ?? '';
      return unconfirmed.includes('1 transaction') && (await page.textContent('#version')) !== '…';
    });
    await page.screenshot({ path: OUT, fullPage: true });
    process.stdout.write(`wrote ${path.relative(REPO_ROOT, OUT)}\n`);
  } finally {
    await browser.close();
    await lw.close();
  }
}

await main();
