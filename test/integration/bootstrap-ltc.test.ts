/**
 * A real `litecoind -regtest` (the harness's varied chain: every address kind, P2PK, bare multisig,
 * OP_RETURN, coinbases, MWEB peg-ins and peg-outs): its hidden `dumptxoutset` file → `--bootstrap` →
 * every address equals `scantxoutset` and the totals equal `gettxoutsetinfo`; then 10 more blocks and a
 * 3-block reorg are followed and `npm run verify` passes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDisplayHex } from '../../src/chain/hash.js';
import { ByteReader } from '../../src/chain/byte-reader.js';
import { readCoin, readVarInt } from '../../src/chain/snapshot-coin.js';
import { LTC_HEADER_BYTES } from '../../src/chain/snapshot-format.js';
import { indexedTip } from '../../harness/index-check.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { waitFor } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { buildVariedChain, mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { expectIndexEqualsNode as equalsNode } from '../support/ltc-oracle.js';

/** Coins of a Litecoin 0.21 snapshot whose code has bit 31 (the peg-out flag) set. */
function pegoutFlagged(file: Buffer, coins: number): number {
  const r = new ByteReader(file, LTC_HEADER_BYTES);
  let flagged = 0;
  for (let i = 0; i < coins; i++) {
    r.skip(36);
    const at = r.pos;
    if (readVarInt(r) >= 0x80000000) flagged++;
    r.pos = at;
    readCoin(r, true);
  }
  expect(r.remaining).toBe(0);
  return flagged;
}

describe('LTC bootstrap from litecoind dumptxoutset', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    manifest = await buildVariedChain(node, { seed: 12 });
  });

  afterAll(async () => {
    await lw?.close();
  });

  const expectIndexEqualsNode = (phase: string) => equalsNode(node, manifest, lw.world.dataDir, lw.world.dbPath, phase);

  it("bootstraps from the node's own snapshot, then follows 10 blocks and a 3-block reorg", async () => {
    const file = join(lw.world.dataDir, 'utxo-ltc.dat');
    const dump = await node.cli<{ coins_written: number; base_hash: string }>('dumptxoutset', file);
    // Litecoin 0.21's layout: base hash, uint64 coin count, uint32 nChainTx, no magic.
    const head = readFileSync(file).subarray(0, 44);
    expect(toDisplayHex(head.subarray(0, 32))).toBe(dump.base_hash);
    expect(Number(head.readBigUInt64LE(32))).toBe(dump.coins_written);
    // The chain's peg-outs leave coins whose code carries Litecoin's bit-31 flag: the mask is exercised.
    expect(manifest.blocks.pegOut).toMatch(/^[0-9a-f]{64}$/);
    expect(pegoutFlagged(readFileSync(file), dump.coins_written)).toBeGreaterThan(0);

    const indexer = await lw.world.startIndexer({ args: ['--bootstrap', file] });
    // The tip is committed a moment before the line is written: wait for both.
    await waitFor('the bootstrap', async () => /bootstrap done/.test(indexer.output()) && (await lw.world.atTip()), 120_000, indexer);
    expect(indexer.output()).toMatch(/bootstrap done: \d+ coins/);
    // litecoind writes the coins in chainstate (txid) order: the load appends them without a sort.
    expect(indexer.output()).toMatch(/bootstrap: reading coins in txid order/);
    expect(indexer.output()).not.toMatch(/not in txid order/);
    const base = indexedTip(lw.world.dbPath)!;
    expect(base.hash).toBe(dump.base_hash);
    await expectIndexEqualsNode('after the bootstrap');

    await mineWithActivity(node, 10, manifest);
    await lw.world.waitForTip('10 more blocks', 60_000);
    await expectIndexEqualsNode('10 blocks after the base');

    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 2));
    await mineWithActivity(node, 4, manifest);
    await lw.world.waitForTip('a 3-block reorg', 60_000);
    expect(indexer.output()).toMatch(/rolled back/);
    await expectIndexEqualsNode('after a 3-block reorg');
  }, 600_000);
});
