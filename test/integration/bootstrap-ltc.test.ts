/**
 * A real `litecoind -regtest` (the harness's varied chain: every address kind, P2PK, bare multisig,
 * OP_RETURN, coinbases, MWEB peg-ins and peg-outs): its hidden `dumptxoutset` file → `--bootstrap` →
 * every address equals `scantxoutset` and the totals equal `gettxoutsetinfo`; then 10 more blocks and a
 * 3-block reorg are followed and `npm run verify` passes.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { ByteReader } from '../../src/chain/byte-reader.js';
import { chainParams } from '../../src/chain/params.js';
import { readCoin, readVarInt } from '../../src/chain/snapshot-coin.js';
import { LTC_HEADER_BYTES } from '../../src/chain/snapshot-format.js';
import { chainDbPath } from '../../src/store/paths.js';
import { checkIndex, indexedTip, type Expected } from '../../harness/index-check.js';
import { runVerifyCli, makeDataDir, startIndexer, waitFor, type IndexerProcess } from '../../harness/indexer-process.js';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { buildVariedChain, mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { scanAddresses, scanScripts, utxoSetTotals } from '../../harness/regtest-scan.js';

const params = chainParams('LTC', 'regtest');

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
  let node: Litecoind;
  let manifest: ChainManifest;
  let dataDir: string;
  let dbPath: string;
  let indexer: IndexerProcess | undefined;

  beforeAll(async () => {
    node = await startLitecoind();
    manifest = await buildVariedChain(node, { seed: 12 });
    dataDir = await makeDataDir('addrsum-boot-ltc-');
    dbPath = chainDbPath(dataDir, 'LTC');
  });

  afterAll(async () => {
    indexer?.kill('SIGKILL');
    await node?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const nodeTip = () => node.cli<string>('getbestblockhash');
  const atNodeTip = async () => indexedTip(dbPath)?.hash === (await nodeTip());

  async function expectIndexEqualsNode(phase: string): Promise<void> {
    const tip = await nodeTip();
    const scan = await scanAddresses(
      node,
      manifest.addresses.map((a) => a.address),
    );
    const expected: Expected[] = [];
    for (const a of manifest.addresses) {
      const decoded = addressToScript(params, a.address);
      if (!decoded.ok) throw new Error(`node address ${a.address} does not decode`);
      const f = scan.get(a.address)!;
      expected.push({ label: `${a.kind} ${a.address}`, script: decoded.script, sats: f.sats, utxos: f.utxos });
    }
    const scripts = manifest.special.filter((s) => s.spendable).map((s) => s.script);
    for (const [hex, f] of await scanScripts(node, scripts)) {
      expected.push({ label: `script ${hex.slice(0, 40)}`, script: Buffer.from(hex, 'hex'), sats: f.sats, utxos: f.utxos });
    }
    const report = checkIndex(dbPath, expected);
    expect(report.tipHash, phase).toBe(tip);
    expect(report.mismatches, phase).toEqual([]);
    const totals = await utxoSetTotals(node);
    expect(totals.bestBlock, phase).toBe(tip);
    expect(report.totals, phase).toEqual({ sats: totals.totalSats, utxos: totals.txouts });
    expect(report.aggregateDifferences, phase).toBe(0);
    expect(report.chainProblems, phase).toEqual([]);
    expect(runVerifyCli('LTC', dataDir), phase).toMatchObject({ status: 0 });
  }

  it("bootstraps from the node's own snapshot, then follows 10 blocks and a 3-block reorg", async () => {
    const file = join(dataDir, 'utxo-ltc.dat');
    const dump = await node.cli<{ coins_written: number; base_hash: string }>('dumptxoutset', file);
    // Litecoin 0.21's layout: base hash, uint64 coin count, uint32 nChainTx, no magic.
    const head = readFileSync(file).subarray(0, 44);
    expect(toDisplayHex(head.subarray(0, 32))).toBe(dump.base_hash);
    expect(Number(head.readBigUInt64LE(32))).toBe(dump.coins_written);
    // The chain's peg-outs leave coins whose code carries Litecoin's bit-31 flag: the mask is exercised.
    expect(manifest.blocks.pegOut).toMatch(/^[0-9a-f]{64}$/);
    expect(pegoutFlagged(readFileSync(file), dump.coins_written)).toBeGreaterThan(0);

    indexer = await startIndexer({ chain: 'LTC', dataDir, rpcUrl: node.rpcUrl, args: ['--bootstrap', file] });
    // The tip is committed a moment before the line is written: wait for both.
    await waitFor('the bootstrap', async () => /bootstrap done/.test(indexer!.output()) && (await atNodeTip()), 120_000, indexer);
    expect(indexer.output()).toMatch(/bootstrap done: \d+ coins/);
    // litecoind writes the coins in chainstate (txid) order: the load appends them without a sort.
    expect(indexer.output()).toMatch(/bootstrap: reading coins in txid order/);
    expect(indexer.output()).not.toMatch(/not in txid order/);
    const base = indexedTip(dbPath)!;
    expect(base.hash).toBe(dump.base_hash);
    await expectIndexEqualsNode('after the bootstrap');

    await mineWithActivity(node, 10, manifest);
    await waitFor('10 more blocks', atNodeTip, 60_000, indexer);
    await expectIndexEqualsNode('10 blocks after the base');

    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 2));
    await mineWithActivity(node, 4, manifest);
    await waitFor('a 3-block reorg', atNodeTip, 60_000, indexer);
    expect(indexer.output()).toMatch(/rolled back/);
    await expectIndexEqualsNode('after a 3-block reorg');
  }, 600_000);
});
