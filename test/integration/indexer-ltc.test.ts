/**
 * The real indexer and API against a real `litecoind -regtest`: every address kind, P2PK / bare
 * multisig / OP_RETURN / oversized outputs, coinbases, MWEB peg-ins and peg-outs. After each phase the
 * node's own `scantxoutset` and `gettxoutsetinfo` are the ground truth for every address and for the
 * totals; `npm run verify` must find nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { apiMismatches, expectIndexEqualsNode as equalsNode } from '../support/ltc-oracle.js';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { expectHeadersEqualNode, storedHeaders } from '../support/header-oracle.js';

describe('LTC indexer and API against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let apiKey: string;

  beforeAll(async () => {
    const chain = await cachedVariedChain({ seed: 11 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({ litecoind: { from: chain.template } });
    node = lw.node;
    apiKey = lw.world.createKey('integration');
  });

  afterAll(async () => {
    await lw?.close();
  });

  const expectIndexEqualsNode = (phase: string) => equalsNode(node, manifest, lw.world.dataDir, lw.world.dbPath, phase);

  it('builds a chain with every kind the suite promises', () => {
    const kinds = new Map<string, number>();
    for (const a of manifest.addresses) kinds.set(a.kind, (kinds.get(a.kind) ?? 0) + 1);
    for (const kind of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr', 'p2sh-multisig']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(40);
    }
    const special = new Set(manifest.special.map((s) => s.kind));
    for (const kind of ['p2pk', 'bare-multisig', 'op-return']) expect(special.has(kind as never), kind).toBe(true);
    expect(manifest.blocks.activation).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.blocks.pegOut).toMatch(/^[0-9a-f]{64}$/);
  });

  it('catches up while being SIGKILLed at random moments and then equals the node', async () => {
    expect(await lw.world.killDuringCatchUp(5)).toBeGreaterThanOrEqual(5);
    await lw.world.startIndexer();
    await lw.world.waitForTip('initial catch-up', 120_000);
    await expectIndexEqualsNode('initial catch-up');
  }, 240_000);

  it('follows the tip', async () => {
    await mineWithActivity(node, 4, manifest);
    await lw.world.waitForTip('tip following', 30_000);
    await expectIndexEqualsNode('tip following');
  }, 120_000);

  it('rolls back a reorg and applies a competing branch with different transactions', async () => {
    const height = await node.cli<number>('getblockcount');
    const forkAt = await node.cli<string>('getblockhash', height - 4);
    await node.cli('invalidateblock', forkAt);
    await mineWithActivity(node, 7, manifest);
    await lw.world.waitForTip('reorg', 30_000);
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectIndexEqualsNode('reorg');
  }, 120_000);

  it("keeps every block header equal to the node's, and backfills those an older index lacks", async () => {
    // Kept through the kills of the catch-up and the reorg.
    await expectHeadersEqualNode(node, lw.world.dbPath, lw.world.indexer);

    // An index made before headers were kept (or a snapshot's) lacks those below some height.
    await lw.world.stopIndexer();
    const height = await node.cli<number>('getblockcount');
    const db = new Database(lw.world.dbPath);
    db.prepare('DELETE FROM headers WHERE height < ?').run(height - 3);
    db.close();
    expect((await storedHeaders(lw.world.dbPath)).headersFrom).toBe(height - 3);
    await lw.world.startIndexer();
    await expectHeadersEqualNode(node, lw.world.dbPath, lw.world.indexer);
    expect(lw.world.indexer!.output()).toMatch(/every block header from genesis is stored/);
    // `npm run verify` checks every stored header against its block and its neighbours.
    await expectIndexEqualsNode('header backfill');
  }, 120_000);

  it('answers every address through the API exactly as scantxoutset says', async () => {
    // Limits are tested elsewhere; here every address is asked once, as fast as the API answers.
    const api = await lw.world.startApi('[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
    const wrong = await apiMismatches(
      api.url,
      apiKey,
      node,
      manifest.addresses.map((a) => a.address),
    );
    expect(wrong).toEqual([]);
    for (const mweb of manifest.mwebAddresses.slice(0, 3)) {
      const res = await fetch(`${api.url}/api/v1/LTC/address/${mweb}`, { headers: { 'x-api-key': apiKey } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { data: { code: string } }).data.code).toBe('UNSUPPORTED_ADDRESS');
    }
  }, 120_000);
});
