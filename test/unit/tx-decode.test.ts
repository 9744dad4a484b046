/**
 * The transaction view's decoder (src/chain/tx-decode.ts) and script types (src/chain/script-type.ts):
 * every transaction of real Litecoin regtest blocks (P2PK, bare multisig, OP_RETURN, an oversized
 * script, MWEB activation, peg-ins, a HogEx paying peg-outs) decodes to the txids and outputs that node
 * reported; the MWEB mempool forms (a peg-in with its body, MWEB-only transactions) keep their txids; and
 * script types follow Core's Solver on hand-made scripts, edge cases included.
 */
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/chain/byte-reader.js';
import { HEADER_SIZE } from '../../src/chain/block-header.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { scriptType } from '../../src/chain/script-type.js';
import { decodeTransaction } from '../../src/chain/tx-decode.js';
import { readTransaction } from '../../src/chain/tx-parser.js';
import { readHexFixture, readJsonFixture } from '../support/fixtures.js';

interface ExpectedBlock {
  txids: string[];
  outputs: { value_sat: number; script: string }[][];
}

/** The raw bytes of each transaction of a block (the extension block after a HogEx left out). */
function rawTxs(block: Buffer): Buffer[] {
  const r = new ByteReader(block, HEADER_SIZE);
  const count = r.compactSize(10);
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    readTransaction(r);
    out.push(block.subarray(start, r.pos));
  }
  return out;
}

describe('decodeTransaction', () => {
  const expected = readJsonFixture<Record<string, ExpectedBlock>>('blocks/ltc-regtest/expected.json');

  it.each(Object.keys(expected))('block %s: txids and outputs as the node reported them', (name) => {
    const want = expected[name]!;
    const txs = rawTxs(readHexFixture(`blocks/ltc-regtest/${name}.hex`)).map(decodeTransaction);
    expect(txs.map((t) => toDisplayHex(t.txid))).toEqual(want.txids);
    expect(txs.map((t) => t.outputs.map((o) => ({ value_sat: Number(o.value), script: o.script.toString('hex') })))).toEqual(
      want.outputs.map((list) => list.map(({ value_sat, script }) => ({ value_sat, script }))),
    );
    expect(txs[0]!.coinbase).toBe(true);
    expect(txs[0]!.inputs[0]!.prevTxid).toBeNull();
  });

  it('the HogEx: flagged, read without its MWEB byte, weighed without it, sized with it', () => {
    const txs = rawTxs(readHexFixture('blocks/ltc-regtest/443-pegout.hex'));
    const hogEx = decodeTransaction(txs.at(-1)!);
    expect(hogEx.hogEx).toBe(true);
    expect(hogEx.size).toBe(txs.at(-1)!.length);
    expect(hogEx.outputs.length).toBeGreaterThan(1);
    expect(scriptType(hogEx.outputs[0]!.script, true)).toBe('witness_mweb_hogaddr');
  });

  it('mempool MWEB forms keep their txids; an MWEB-only transaction has no transparent side', () => {
    const { txs } = readJsonFixture<{ txs: { name: string; txid: string; hex: string; inputs: unknown[]; outputs: unknown[] }[] }>(
      'ltc-mempool/mweb-txs.json',
    );
    for (const t of txs) {
      const d = decodeTransaction(Buffer.from(t.hex, 'hex'));
      expect(toDisplayHex(d.txid), t.name).toBe(t.txid);
      expect(d.mweb, t.name).toBe(true);
      expect([d.inputs.length, d.outputs.length], t.name).toEqual([t.inputs.length, t.outputs.length]);
      expect(d.size, t.name).toBe(t.hex.length / 2);
    }
    const pegin = txs.find((t) => t.name === 'pegin')!;
    const d = decodeTransaction(Buffer.from(pegin.hex, 'hex'));
    expect(d.outputs.some((o) => scriptType(o.script, true) === 'witness_mweb_pegin')).toBe(true);
    // The weight leaves the MWEB body out: far below four times the raw size.
    expect(d.weight).toBeLessThan(d.size * 2);
  });
});

describe('scriptType (Core Solver names)', () => {
  const key33 = '02' + '11'.repeat(32);
  const key65 = '04' + '22'.repeat(64);
  const cases: [string, string, boolean, string][] = [
    ['p2pkh', '76a914' + 'ab'.repeat(20) + '88ac', false, 'pubkeyhash'],
    ['p2sh', 'a914' + 'ab'.repeat(20) + '87', false, 'scripthash'],
    ['p2wpkh', '0014' + 'ab'.repeat(20), false, 'witness_v0_keyhash'],
    ['p2wsh', '0020' + 'ab'.repeat(32), false, 'witness_v0_scripthash'],
    ['p2tr', '5120' + 'ab'.repeat(32), false, 'witness_v1_taproot'],
    ['witness v2', '5220' + 'ab'.repeat(32), false, 'witness_unknown'],
    ['witness v1 of 20 bytes', '5114' + 'ab'.repeat(20), false, 'witness_unknown'],
    ['witness v0 of 21 bytes', '0015' + 'ab'.repeat(21), false, 'nonstandard'],
    ['HogAddr on Litecoin', '5820' + 'ab'.repeat(32), true, 'witness_mweb_hogaddr'],
    ['HogAddr on Bitcoin', '5820' + 'ab'.repeat(32), false, 'witness_unknown'],
    ['peg-in on Litecoin', '5920' + 'ab'.repeat(32), true, 'witness_mweb_pegin'],
    ['OP_RETURN with data', '6a0568656c6c6f', false, 'nulldata'],
    ['bare OP_RETURN', '6a', false, 'nulldata'],
    ['OP_RETURN then a small integer', '6a51', false, 'nulldata'],
    ['OP_RETURN then OP_CHECKSIG', '6aac', false, 'nonstandard'],
    ['OP_RETURN with a push cut short', '6a05aabb', false, 'nonstandard'],
    ['P2PK compressed', '21' + key33 + 'ac', false, 'pubkey'],
    ['P2PK uncompressed', '41' + key65 + 'ac', false, 'pubkey'],
    ['P2PK by OP_PUSHDATA1', '4c21' + key33 + 'ac', false, 'nonstandard'],
    ['P2PK with a bad key prefix', '21' + '05' + '11'.repeat(32) + 'ac', false, 'nonstandard'],
    ['1-of-2 multisig', '51' + '21' + key33 + '41' + key65 + '52ae', false, 'multisig'],
    ['2-of-1 multisig', '52' + '21' + key33 + '51ae', false, 'nonstandard'],
    ['multisig with a count that lies', '51' + '21' + key33 + '52ae', false, 'nonstandard'],
    ['empty', '', false, 'nonstandard'],
    ['OP_TRUE', '51', false, 'nonstandard'],
  ];
  it.each(cases)('%s', (_name, hex, mweb, type) => {
    expect(scriptType(Buffer.from(hex, 'hex'), mweb)).toBe(type);
  });
});
