/**
 * Issue 2 acceptance: blocks and mempool transactions produced by a real litecoind (regtest, MWEB
 * active from 432) parse with our parser to exactly what the node reports — block hash, merkle root
 * (re-derived by parseBlock itself), every txid, every output's value and script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCoins } from '../../src/chain/amount.js';
import { parseBlock, parseTransaction, type ParsedBlock } from '../../src/chain/block-parser.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { mapLimit } from '../../harness/map-limit.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { MWEB_ACTIVATION_HEIGHT, sendMwebToMweb, type ChainManifest } from '../../harness/regtest-chain.js';
import { coins, mwebBalance, pegOut } from '../../harness/regtest-wallet.js';

interface NodeBlock {
  hash: string;
  height: number;
  merkleroot: string;
  tx: { txid: string; vin: unknown[]; vout: { value: string; n: number; scriptPubKey: { hex: string; type: string } }[] }[];
  mweb?: { inputs: unknown[]; outputs: unknown[]; kernels: unknown[] };
}

let node: Litecoind;
let manifest: ChainManifest;

beforeAll(async () => {
  const chain = await cachedVariedChain({ seed: 11 });
  manifest = chain.value;
  node = await startLitecoind({ from: chain.template });
});

afterAll(async () => {
  await node?.stop();
});

/** The node's view (amounts as exact text) and our parse of the same raw bytes. */
async function both(hash: string): Promise<{ ours: ParsedBlock; theirs: NodeBlock; raw: Buffer }> {
  const raw = await node.client.getBlock(hash);
  const theirs = await node.cliExact<NodeBlock>('getblock', hash, 2);
  return { ours: parseBlock(raw), theirs, raw };
}

function expectSame(ours: ParsedBlock, theirs: NodeBlock): void {
  expect(toDisplayHex(ours.header.hash)).toBe(theirs.hash);
  expect(toDisplayHex(ours.header.merkleRoot)).toBe(theirs.merkleroot);
  expect(ours.txs.map((t) => toDisplayHex(t.txid))).toEqual(theirs.tx.map((t) => t.txid));
  ours.txs.forEach((tx, i) => {
    const node = theirs.tx[i];
    expect(tx.inputs.length).toBe(node?.vin.length);
    expect(tx.outputs.map((o) => [o.value, o.script.toString('hex')])).toEqual(
      node?.vout.map((o) => [parseCoins(o.value), o.scriptPubKey.hex]),
    );
  });
}

describe('litecoind regtest blocks', () => {
  it('every block of the chain parses to the node’s hash, merkle root, txids and outputs', async () => {
    const tip = await node.cli<number>('getblockcount');
    expect(tip).toBeGreaterThan(MWEB_ACTIVATION_HEIGHT);
    const heights = Array.from({ length: tip + 1 }, (_, h) => h);
    const counts = await mapLimit(heights, 4, async (h) => {
      const { ours, theirs } = await both(await node.cli<string>('getblockhash', h));
      expectSame(ours, theirs);
      return ours.txs.filter((t) => !t.coinbase && !t.hogEx).length;
    });
    // Not just coinbases and HogExes: the chain's payments and spends were all checked too.
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(30);
  });

  it('pre-MWEB blocks have no HogEx; the spends block mixes legacy, segwit and taproot inputs', async () => {
    const { ours, theirs } = await both(manifest.blocks.preMweb);
    expect(theirs.height).toBeLessThan(MWEB_ACTIVATION_HEIGHT);
    expect(ours.txs.some((t) => t.hogEx)).toBe(false);
    expect(ours.txs.length).toBeGreaterThan(10);
    expectSame(ours, theirs);
  });

  it('the activation block carries a peg-in and ends with the HogEx and an extension block', async () => {
    const { ours, theirs, raw } = await both(manifest.blocks.activation);
    expect(theirs.height).toBe(MWEB_ACTIVATION_HEIGHT);
    const pegIn = ours.txs.flatMap((t) => t.outputs).filter((o) => o.script.length === 34 && o.script[0] === 0x59);
    expect(pegIn.length).toBeGreaterThan(0);
    const hogEx = ours.txs[ours.txs.length - 1];
    expect(hogEx?.hogEx).toBe(true);
    expect(hogEx?.outputs[0]?.script.subarray(0, 2).toString('hex')).toBe('5820');
    // The HogEx spends this block's peg-in outputs (the activation block has no previous HogAddr).
    const pegInTxids = ours.txs.filter((t) => t.outputs.some((o) => o.script[0] === 0x59)).map((t) => toDisplayHex(t.txid));
    expect(hogEx?.inputs.map((i) => toDisplayHex(i.prevTxid)).sort()).toEqual(pegInTxids.sort());
    expect(ours.size).toBe(raw.length);
    expectSame(ours, theirs);
  });

  it('a block with an empty extension block parses', async () => {
    const hash = manifest.blocks.emptyExtension;
    expect(hash).toBeDefined();
    const { ours, theirs } = await both(hash as string);
    expect(theirs.mweb).toMatchObject({ inputs: [], outputs: [], kernels: [] });
    expect(ours.txs[ours.txs.length - 1]?.hogEx).toBe(true);
    expectSame(ours, theirs);
  });

  it('a block whose HogEx pays peg-outs to every address kind parses', async () => {
    const { ours, theirs } = await both(manifest.blocks.pegOut);
    const hogEx = ours.txs[ours.txs.length - 1];
    expect(hogEx?.hogEx).toBe(true);
    expect(hogEx?.outputs.length).toBeGreaterThanOrEqual(7);
    const kinds = new Set(theirs.tx[theirs.tx.length - 1]?.vout.slice(1).map((o) => o.scriptPubKey.type));
    expect(kinds).toEqual(new Set(['pubkeyhash', 'scripthash', 'witness_v0_keyhash', 'witness_v0_scripthash', 'witness_v1_taproot']));
    expectSame(ours, theirs);
  });

  it('the block with P2PK, bare multisig, OP_RETURN and over-long scripts parses', async () => {
    const { ours, theirs } = await both(manifest.blocks.nonstandard);
    const lengths = ours.txs.flatMap((t) => t.outputs.map((o) => o.script.length));
    expect(lengths).toContain(10_001);
    expect(lengths).toContain(10_000);
    const types = new Set(theirs.tx.flatMap((t) => t.vout.map((o) => o.scriptPubKey.type)));
    for (const t of ['pubkey', 'multisig', 'nulldata', 'nonstandard', 'witness_unknown']) expect(types).toContain(t);
    expectSame(ours, theirs);
  });

  it('mempool transactions carrying an MWEB body parse to the node’s txids', async () => {
    const m2m = await sendMwebToMweb(node);
    const [pegOutTxid] = await pegOut(node, [{ address: manifest.addresses[0]!.address, sats: 2_000_000 }]);
    // More than the wallet's MWEB coins, so transparent coins must come in: a peg-in.
    const pegInTo = await node.cli<string>('getnewaddress', '', 'mweb');
    const pegInTxid = await node.cli<string>('sendtoaddress', pegInTo, coins((await mwebBalance(node)) + 30_000_000));
    const mempool = await node.cli<string[]>('getrawmempool');
    for (const txid of [m2m.txid, pegOutTxid, pegInTxid]) expect(mempool).toContain(txid);

    let mwebOnly = 0;
    for (const txid of mempool) {
      const hex = await node.cli<string>('getrawtransaction', txid);
      const tx = parseTransaction(Buffer.from(hex, 'hex'));
      expect(toDisplayHex(tx.txid)).toBe(txid);
      expect(tx.hogEx).toBe(false);
      if (tx.inputs.length === 0 && tx.outputs.length === 0) mwebOnly++;
    }
    // The MWEB-to-MWEB send and the peg-out have no transparent part at all.
    expect(mwebOnly).toBeGreaterThanOrEqual(2);
    const pegIn = parseTransaction(Buffer.from(await node.cli<string>('getrawtransaction', pegInTxid), 'hex'));
    expect(pegIn.outputs.some((o) => o.script[0] === 0x59 && o.script.length === 34)).toBe(true);

    // Once mined, the same transactions are gone from the transparent list except the peg-in.
    const [hash] = await node.cli<string[]>('generatetoaddress', 1, manifest.addresses[0]!.address);
    const { ours, theirs } = await both(hash as string);
    expectSame(ours, theirs);
    expect(ours.txs.map((t) => toDisplayHex(t.txid))).toContain(pegInTxid);
  });
});
