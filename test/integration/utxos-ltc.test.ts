/**
 * The UTXO listing against a real `litecoind -regtest`: for every address of a varied chain, paging
 * …/address/{address}/utxos with limit=2 yields exactly the node's `scantxoutset` unspents (txid, vout,
 * amount), their sum is the address summary, and every page states the one tip. It holds after a
 * catch-up SIGKILLed at random moments with the listing on, and after a reorg. Enabling the listing on
 * an existing index, SIGKILLed as it builds and restarted, ends equal to a fresh build.
 */
import Database, { type SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.js';
import { copyFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { runVerifyCli, waitFor } from '../../harness/indexer-process.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { utxoListIndexExists, utxoListRecorded } from '../../src/store/sqlite/utxo-list.js';
import { listedEntries, rebuildShards } from '../support/utxo-listing.js';
import { listingMismatches } from '../support/ltc-oracle.js';

const LIST_ON = { ADDRSUM_UTXO_LIST: 'true' };
const FAST = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

describe('UTXO listing against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let apiKey: string;
  let api: ApiProcess;

  beforeAll(async () => {
    const chain = await cachedVariedChain({ seed: 23, perKind: 24 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({ litecoind: { from: chain.template } });
    node = lw.node;
    apiKey = lw.world.createKey('utxos');
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  /** Every address paged with limit=2 equals scantxoutset; sums equal the summaries; one tip on every page. */
  async function expectListingEqualsNode(phase: string): Promise<void> {
    const get = (path: string) => fetch(`${api.url}${path}`, { headers: { 'x-api-key': apiKey } });
    const { wrong, listed } = await listingMismatches(
      get,
      node,
      manifest.addresses.map((a) => a.address),
    );
    expect(wrong, phase).toEqual([]);
    expect(listed, phase).toBeGreaterThan(manifest.addresses.length);
  }

  it('catches up with the listing on while SIGKILLed at random moments, then pages every address exactly as scantxoutset', async () => {
    expect(await lw.world.killDuringCatchUp(4, () => undefined, LIST_ON)).toBeGreaterThanOrEqual(4);
    await lw.world.startIndexer({ env: LIST_ON });
    await lw.world.waitForTip('catch-up with the listing', 120_000);
    api = await lw.world.startApi(FAST);
    await expectListingEqualsNode('catch-up');
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
  }, 400_000);

  it('follows a reorg onto a competing branch and still pages exactly as scantxoutset', async () => {
    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 3));
    await mineWithActivity(node, 6, manifest);
    await lw.world.waitForTip('reorg', 60_000);
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectListingEqualsNode('reorg');
  }, 300_000);

  it('off removes the listing (404 UTXO_LIST_DISABLED); on again, SIGKILLed as it builds and restarted, equals a fresh build', async () => {
    await lw.world.startIndexer();
    await waitFor('the listing to be removed', () => readFlags().index === false, 60_000, lw.world.indexer);
    const off = await fetch(`${api.url}/api/v1/LTC/address/${manifest.addresses[0]!.address}/utxos`, { headers: { 'x-api-key': apiKey } });
    expect([off.status, ((await off.json()) as { data: { code?: string } }).data.code]).toEqual([404, 'UTXO_LIST_DISABLED']);
    await lw.world.stopIndexer();
    const indexer = await lw.world.startIndexer({ env: LIST_ON });
    await waitFor(
      'the build to start',
      () => /building the UTXO listing index/.test(indexer.output()) || readFlags().index,
      60_000,
      indexer,
    );
    await lw.world.stopIndexer('SIGKILL');
    // Killed during or just after the build: either way the flag and the index agree.
    const killed = readFlags();
    expect(killed.index).toBe(killed.flag);
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
    await lw.world.startIndexer({ env: LIST_ON });
    await waitFor('the listing to be built', () => readFlags().index, 60_000, lw.world.indexer);
    await lw.world.waitForTip('after the rebuild', 60_000);
    // A fresh build of the same UTXO set, on a copy: the same entries, in the same order.
    const copy = `${lw.world.dbPath}.fresh`;
    await lw.world.stopIndexer();
    copyFileSync(lw.world.dbPath, copy);
    const fresh = new Database(copy);
    rebuildShards(fresh);
    const entries = (db: SqliteDatabase) => [...listedEntries(db)];
    const rebuilt = new Database(lw.world.dbPath, { readonly: true });
    try {
      expect(entries(rebuilt)).toEqual(entries(fresh));
      expect(rebuilt.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      rebuilt.close();
      fresh.close();
    }
    await lw.world.startIndexer({ env: LIST_ON });
    await lw.world.waitForTip('restart', 60_000);
    await expectListingEqualsNode('rebuilt');
  }, 300_000);

  function readFlags(): { index: boolean; flag: boolean } {
    const db = new Database(lw.world.dbPath, { readonly: true });
    try {
      return { index: utxoListIndexExists(db as never), flag: utxoListRecorded(db as never) };
    } finally {
      db.close();
    }
  }
});
