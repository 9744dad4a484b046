/**
 * A real `litecoind -regtest` (the harness's varied chain: every address kind, P2PK, bare multisig,
 * OP_RETURN, coinbases, MWEB peg-ins and peg-outs): its hidden `dumptxoutset` file → `--bootstrap` →
 * every address equals `scantxoutset` and the totals equal `gettxoutsetinfo`, the UTXO listing (on
 * during the bootstrap, built in shards after the load) says `coinbase` for every loaded output exactly
 * as the node's `gettxout` does; then 10 more blocks and a 3-block reorg are followed, `npm run
 * verify` passes, and the block headers the snapshot lacked are backfilled equal to the node's. Turned on then, history is built from genesis for the bootstrapped index and equals an
 * independent walk of the node's blocks.
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
import { runVerifyCli, waitFor } from '../../harness/indexer-process.js';
import { historyMismatches, type Get } from '../support/history-check.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { expectIndexEqualsNode as equalsNode } from '../support/ltc-oracle.js';
import { expectHeadersEqualNode } from '../support/header-oracle.js';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import { UtxoPager } from '../../src/store/sqlite/utxo-page.js';
import type { UtxoPosition } from '../../src/store/index-model.js';

/** Every output the listing holds, script by script, paged: [display txid, vout, coinbase]. */
function listedCoinbase(dbPath: string): [string, number, boolean | null][] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const pager = new UtxoPager(db as never);
    const out: [string, number, boolean | null][] = [];
    for (const key of db.prepare('SELECT script_key FROM scripts').pluck().all() as Buffer[]) {
      let after: UtxoPosition | null = null;
      do {
        const page = db.transaction(() => pager.read({ keys: [key], after, limit: 50, mempool: false, check: () => undefined }))();
        if (page.kind !== 'page') throw new Error(`listing answered ${page.kind}`);
        for (const r of page.rows) {
          const { txid, vout } = decodeOutpoint(r.outpoint);
          out.push([toDisplayHex(txid), vout, r.coinbase]);
        }
        after = page.next;
      } while (after !== null);
    }
    return out;
  } finally {
    db.close();
  }
}

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
    const chain = await cachedVariedChain({ seed: 11 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({ litecoind: { from: chain.template } });
    node = lw.node;
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

    const indexer = await lw.world.startIndexer({ args: ['--bootstrap', file], env: { ADDRSUM_UTXO_LIST: 'true' } });
    // The tip is committed a moment before the line is written: wait for both.
    await waitFor('the bootstrap', async () => /bootstrap done/.test(indexer.output()) && (await lw.world.atTip()), 120_000, indexer);
    expect(indexer.output()).toMatch(/bootstrap done: \d+ coins/);
    // litecoind writes the coins in chainstate (txid) order: the load appends them without a sort.
    expect(indexer.output()).toMatch(/bootstrap: reading coins in txid order/);
    expect(indexer.output()).not.toMatch(/not in txid order/);
    const base = indexedTip(lw.world.dbPath)!;
    expect(base.hash).toBe(dump.base_hash);
    await expectIndexEqualsNode('after the bootstrap');
    // The listing was built after the load, shard by shard; its coinbase flags come from the snapshot.
    await waitFor('the listing', () => /UTXO listing index built/.test(indexer.output()), 60_000, indexer);
    expect(indexer.output()).toMatch(/UTXO listing index: shard f built \(16\/16\)/);
    const listed = listedCoinbase(lw.world.dbPath);
    const wrong: string[] = [];
    for (const [txid, vout, coinbase] of listed) {
      const out = await node.cli<{ coinbase: boolean } | null>('gettxout', txid, vout, false);
      if (out === null || out.coinbase !== coinbase)
        wrong.push(`${txid}:${vout} listed ${String(coinbase)}, node ${JSON.stringify(out?.coinbase)}`);
    }
    expect(wrong).toEqual([]);
    expect(listed.some(([, , cb]) => cb === true) && listed.some(([, , cb]) => cb === false)).toBe(true);

    await mineWithActivity(node, 10, manifest);
    await lw.world.waitForTip('10 more blocks', 60_000);
    await expectIndexEqualsNode('10 blocks after the base');

    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 2));
    await mineWithActivity(node, 4, manifest);
    await lw.world.waitForTip('a 3-block reorg', 60_000);
    expect(indexer.output()).toMatch(/rolled back/);
    await expectIndexEqualsNode('after a 3-block reorg');
    // The snapshot brought no headers: those up to its base came from the node (the backfill).
    await expectHeadersEqualNode(node, lw.world.dbPath, indexer);
    expect(indexer.output()).toMatch(/every block header from genesis is stored/);
  }, 600_000);

  it('turned on for the bootstrapped index, history is built from genesis and equals a walk of the blocks', async () => {
    // The snapshot holds no history: the indexer builds it from the node's blocks, balances served meanwhile.
    const indexer = await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true' } });
    const api = await lw.world.startApi('[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
    const key = lw.world.createKey('history');
    const get: Get = async (path) => {
      const res = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': key } });
      return { status: res.status, text: await res.text() };
    };
    const probe = `/api/v1/LTC/address/${manifest.addresses[0]!.address}/transactions`;
    await waitFor('history to be built', async () => (await get(probe)).status === 200, 120_000, indexer);
    expect(indexer.output()).toMatch(/building history from block 0 to the tip \d+/);
    const { wrong, scripts } = await historyMismatches(get, node.cliExact);
    expect(wrong).toEqual([]);
    expect(scripts).toBeGreaterThan(20);
    const verify = runVerifyCli('LTC', lw.world.dataDir);
    expect(verify.status, verify.out).toBe(0);
  }, 300_000);
});
