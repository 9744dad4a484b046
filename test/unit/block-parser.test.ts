import { describe, expect, it } from 'vitest';
import { Block, Transaction } from 'bitcoinjs-lib';
import {
  merkleRoot,
  parseBlock,
  parseTransaction,
  ParseError,
  type ParsedBlock,
  type ParseErrorCode,
} from '../../src/chain/block-parser.js';
import { sha256d, toDisplayHex } from '../../src/chain/hash.js';
import { listFixtures, readFixture, readHexFixture, readJsonFixture } from '../support/fixtures.js';

interface BtcBlock {
  height: number;
  hash: string;
  hex: string;
  note: string;
}
interface ExpectedBlock {
  height: number;
  hash: string;
  merkleroot: string;
  txids: string[];
  outputs: { value_sat: number; script: string; type: string }[][];
}

const btcBlocks = readJsonFixture<BtcBlock[]>('blocks/btc-testnet3-blocks.json');
const ltcBlock = readFixture('blocks/ltc-mainnet-878439.raw');
const regtestExpected = readJsonFixture<Record<string, ExpectedBlock>>('blocks/ltc-regtest/expected.json');

function expectParseError(fn: () => unknown, code: ParseErrorCode): ParseError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ParseError);
    expect((e as ParseError).code).toBe(code);
    return e as ParseError;
  }
  throw new Error(`expected a ParseError ${code}, nothing was thrown`);
}

/** Every txid and output against bitcoinjs-lib's own parse of the same transactions (non-MWEB only). */
function crossCheckWithBitcoinjs(parsed: ParsedBlock, raw: Buffer): void {
  const oracle = Block.fromBuffer(raw);
  const oracleTxs = oracle.transactions ?? [];
  expect(parsed.txs).toHaveLength(oracleTxs.length);
  parsed.txs.forEach((tx, i) => {
    const o = oracleTxs[i]!;
    expect(toDisplayHex(tx.txid)).toBe(o.getId());
    expect(tx.coinbase).toBe(o.isCoinbase());
    expect(tx.hogEx).toBe(false);
    expect(tx.mweb).toBe(false);
    expect(tx.inputs.map((x) => [Buffer.from(x.prevTxid).toString('hex'), x.vout])).toEqual(
      o.ins.map((x) => [Buffer.from(x.hash).toString('hex'), x.index]),
    );
    expect(tx.outputs.map((x) => [BigInt(x.value), x.script.toString('hex')])).toEqual(
      o.outs.map((x) => [x.value, Buffer.from(x.script).toString('hex')]),
    );
  });
}

describe('parseBlock: Bitcoin testnet3 blocks (Bitcoin Core blockfilters.json)', () => {
  it('has the ten blocks', () => expect(btcBlocks).toHaveLength(10));

  for (const b of btcBlocks) {
    it(`block ${b.height} ${b.note ? `(${b.note})` : ''}`, () => {
      const raw = Buffer.from(b.hex, 'hex');
      const parsed = parseBlock(raw);
      expect(toDisplayHex(parsed.header.hash)).toBe(b.hash);
      expect(parsed.header.hash).toEqual(sha256d(raw.subarray(0, 80)));
      expect(merkleRoot(parsed.txs.map((t) => t.txid))).toEqual(parsed.header.merkleRoot);
      expect(parsed.size).toBe(raw.length);
      expect(parsed.txs[0]!.coinbase).toBe(true);
      expect(parsed.txs.slice(1).every((t) => !t.coinbase)).toBe(true);
      crossCheckWithBitcoinjs(parsed, raw);
    });
  }

  it('reads the header fields', () => {
    const raw = Buffer.from(btcBlocks[0]!.hex, 'hex'); // testnet3 genesis
    const h = parseBlock(raw).header;
    expect(h.version).toBe(1);
    expect(h.prevHash).toEqual(Buffer.alloc(32));
    expect(h.time).toBe(1296688602);
    expect(h.bits).toBe(0x1d00ffff);
    expect(h.nonce).toBe(414098458);
    expect(toDisplayHex(h.merkleRoot)).toBe('4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b');
  });

  it('returns views into the input, not copies', () => {
    const raw = Buffer.from(btcBlocks[4]!.hex, 'hex');
    const tx = parseBlock(raw).txs[1]!;
    expect(tx.outputs[0]!.script.buffer).toBe(raw.buffer);
    expect(tx.inputs[0]!.prevTxid.buffer).toBe(raw.buffer);
  });
});

describe('parseBlock: Litecoin mainnet block 878439', () => {
  it('parses 3,808 transactions, re-derives the merkle root, and every txid and output equals bitcoinjs-lib', () => {
    const parsed = parseBlock(ltcBlock);
    expect(ltcBlock.length).toBe(748_946);
    expect(parsed.txs).toHaveLength(3808);
    expect(parsed.header.hash).toEqual(sha256d(ltcBlock.subarray(0, 80)));
    expect(merkleRoot(parsed.txs.map((t) => t.txid))).toEqual(parsed.header.merkleRoot);
    crossCheckWithBitcoinjs(parsed, ltcBlock);
  });
});

describe('parseBlock: Litecoin regtest blocks (MWEB), against what litecoind reported', () => {
  const files = listFixtures('blocks/ltc-regtest/', '.hex');

  it('has a file for every expected block', () => {
    expect(files.map((f) => f.replace(/\.hex$/, '')).sort()).toEqual(Object.keys(regtestExpected).sort());
  });

  for (const f of files) {
    const name = f.replace(/\.hex$/, '');
    it(name, () => {
      const exp = regtestExpected[name]!;
      const raw = readHexFixture(`blocks/ltc-regtest/${f}`);
      const parsed = parseBlock(raw);
      expect(toDisplayHex(parsed.header.hash)).toBe(exp.hash);
      expect(toDisplayHex(parsed.header.merkleRoot)).toBe(exp.merkleroot);
      expect(toDisplayHex(merkleRoot(parsed.txs.map((t) => t.txid)))).toBe(exp.merkleroot);
      expect(parsed.txs.map((t) => toDisplayHex(t.txid))).toEqual(exp.txids);
      expect(parsed.txs.map((t) => t.outputs.map((o) => ({ value_sat: Number(o.value), script: o.script.toString('hex') })))).toEqual(
        exp.outputs.map((outs) => outs.map((o) => ({ value_sat: o.value_sat, script: o.script }))),
      );
      // Only the last transaction of a post-activation block is a HogEx.
      const mweb = exp.height >= 432;
      expect(parsed.txs.map((t) => t.hogEx)).toEqual(parsed.txs.map((_, i) => mweb && i === parsed.txs.length - 1));
    });
  }
});

describe('parseTransaction', () => {
  const segwitBlock = parseBlock(Buffer.from(btcBlocks[8]!.hex, 'hex')); // "Includes witness data"

  it('parses a witness transaction alone and gives the same txid as in the block', () => {
    const oracle = Block.fromBuffer(Buffer.from(btcBlocks[8]!.hex, 'hex')).transactions!;
    for (let i = 0; i < oracle.length; i++) {
      const raw = Buffer.from(oracle[i]!.toBuffer());
      expect(parseTransaction(raw).txid).toEqual(segwitBlock.txs[i]!.txid);
    }
  });

  it('txids of legacy and witness transactions of every size equal bitcoinjs-lib (small and large hashing paths)', () => {
    for (let outs = 0; outs <= 40; outs++) {
      for (const witness of [false, true]) {
        const tx = new Transaction();
        tx.version = 2;
        tx.locktime = 500_000 + outs;
        tx.addInput(Buffer.alloc(32, outs + 1), outs, 0xfffffffd, Buffer.from('00'.repeat(outs % 3), 'hex'));
        for (let i = 0; i < outs; i++)
          tx.addOutput(Buffer.from('0014' + i.toString(16).padStart(2, '0').repeat(20), 'hex'), BigInt(1000 * i + 1));
        if (witness) tx.setWitness(0, [Buffer.alloc(72, 0x30), Buffer.alloc(33, 0x02)]);
        const raw = Buffer.from(tx.toBuffer());
        const parsed = parseTransaction(raw);
        expect(toDisplayHex(parsed.txid)).toBe(tx.getId());
        expect(parsed.outputs.map((o) => Number(o.value))).toEqual(tx.outs.map((o) => Number(o.value)));
      }
    }
  });

  it('refuses trailing bytes', () => {
    const tx = Buffer.from(Block.fromBuffer(Buffer.from(btcBlocks[8]!.hex, 'hex')).transactions![1]!.toBuffer());
    const e = expectParseError(() => parseTransaction(Buffer.concat([tx, Buffer.from([0])])), 'MALFORMED');
    expect(e.offset).toBe(tx.length);
  });

  it('parses a transaction with no inputs and no outputs (marker byte 0x00 read as flags)', () => {
    const raw = Buffer.from('01000000' + '00' + '00' + '00000000', 'hex');
    const tx = parseTransaction(raw);
    expect(tx.inputs).toEqual([]);
    expect(tx.outputs).toEqual([]);
    expect(tx.txid).toEqual(sha256d(raw));
  });
});

// ---- Builders for hand-made edge cases --------------------------------------------------------------

const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const i64le = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, n));
  return b;
};
const hex = (h: string) => Buffer.from(h, 'hex');
const input = (prev = Buffer.alloc(32, 1), vout = 0) => Buffer.concat([prev, u32le(vout), hex('00'), u32le(0xffffffff)]);
const output = (value: bigint, script = hex('51')) => Buffer.concat([i64le(value), Buffer.from([script.length]), script]);
const legacyTx = (ins: Buffer[], outs: Buffer[]) =>
  Buffer.concat([u32le(2), Buffer.from([ins.length]), ...ins, Buffer.from([outs.length]), ...outs, u32le(0)]);

/** A block whose header carries the right merkle root for `txs` (each a full serialization). */
function buildBlock(txs: Buffer[], trailing = Buffer.alloc(0), count = hex(txs.length.toString(16).padStart(2, '0'))): Buffer {
  const ids = txs.map((t) => parseTransaction(t).txid);
  const header = Buffer.concat([u32le(1), Buffer.alloc(32), merkleRoot(ids), u32le(0), u32le(0), u32le(0)]);
  return Buffer.concat([header, count, ...txs, trailing]);
}

describe('transaction format edge cases (Litecoin Core UnserializeTransaction)', () => {
  const coinbase = legacyTx([input(Buffer.alloc(32), 0xffffffff)], [output(50n)]);

  it('builds a valid block with the helpers', () => {
    const b = parseBlock(buildBlock([coinbase]));
    expect(b.txs[0]!.coinbase).toBe(true);
    expect(Number(b.txs[0]!.outputs[0]!.value)).toBe(50);
  });

  it('coinbase needs exactly one input with the null outpoint', () => {
    expect(parseTransaction(legacyTx([input(Buffer.alloc(32), 0)], [output(1n)])).coinbase).toBe(false);
    expect(parseTransaction(legacyTx([input(Buffer.alloc(32, 1), 0xffffffff)], [output(1n)])).coinbase).toBe(false);
    const two = legacyTx([input(Buffer.alloc(32), 0xffffffff), input(Buffer.alloc(32), 0xffffffff)], [output(1n)]);
    expect(parseTransaction(two).coinbase).toBe(false);
  });

  it('witness flag with every witness stack empty is MALFORMED ("Superfluous witness record")', () => {
    const tx = Buffer.concat([u32le(2), hex('0001'), hex('01'), input(), hex('01'), output(1n), hex('00'), u32le(0)]);
    expectParseError(() => parseTransaction(tx), 'MALFORMED');
  });

  it('unknown flag bits are MALFORMED', () => {
    for (const flag of ['02', '04', '10', '80', '03', '0b']) {
      const tx = Buffer.concat([u32le(2), hex('00' + flag), hex('01'), input(), hex('01'), output(1n), hex('0100'), u32le(0)]);
      expectParseError(() => parseTransaction(tx), 'MALFORMED');
    }
  });

  it('a HogEx (flag 0x08, no MWEB body) without outputs is MALFORMED ("Missing HogEx output")', () => {
    const tx = Buffer.concat([u32le(2), hex('0008'), hex('01'), input(), hex('00'), hex('00'), u32le(0)]);
    expectParseError(() => parseTransaction(tx), 'MALFORMED');
  });

  it('the HogEx txid ignores marker, flag and the present byte; any present byte other than 1 means "no body"', () => {
    const legacy = legacyTx([input()], [output(7n)]);
    for (const present of ['00', '02', 'ff']) {
      const hog = Buffer.concat([u32le(2), hex('0008'), hex('01'), input(), hex('01'), output(7n), hex(present), u32le(0)]);
      const tx = parseTransaction(hog);
      expect(tx.hogEx).toBe(true);
      expect(tx.txid).toEqual(sha256d(legacy));
    }
  });

  it('output values: 2^53-1 is accepted, 2^53 and negative values are MALFORMED', () => {
    expect(Number(parseTransaction(legacyTx([input()], [output(2n ** 53n - 1n)])).outputs[0]!.value)).toBe(Number.MAX_SAFE_INTEGER);
    expectParseError(() => parseTransaction(legacyTx([input()], [output(2n ** 53n)])), 'MALFORMED');
    expectParseError(() => parseTransaction(legacyTx([input()], [output(-1n)])), 'MALFORMED');
  });

  it('non-canonical CompactSize is MALFORMED, as in ReadCompactSize', () => {
    const script = Buffer.alloc(10, 0x51);
    const outWith = (lenPrefix: string) => Buffer.concat([i64le(1n), hex(lenPrefix), script]);
    const txWithPrefix = (p: string) => Buffer.concat([u32le(2), hex('01'), input(), hex('01'), outWith(p), u32le(0)]);
    expect(parseTransaction(txWithPrefix('0a')).outputs[0]!.script).toEqual(script);
    expectParseError(() => parseTransaction(txWithPrefix('fd0a00')), 'MALFORMED');
    expectParseError(() => parseTransaction(txWithPrefix('fe0a000000')), 'MALFORMED');
    expectParseError(() => parseTransaction(txWithPrefix('ff0a00000000000000')), 'MALFORMED');
  });

  it('counts above MAX_SIZE are MALFORMED, counts that cannot fit the rest are TRUNCATED', () => {
    const huge = Buffer.concat([u32le(2), hex('fe00000004'), Buffer.alloc(64)]);
    expectParseError(() => parseTransaction(huge), 'MALFORMED');
    const tooMany = Buffer.concat([u32le(2), hex('fd0010'), Buffer.alloc(64)]);
    expectParseError(() => parseTransaction(tooMany), 'TRUNCATED');
  });

  it('blocks: trailing bytes are MALFORMED unless the last transaction is a HogEx', () => {
    const second = legacyTx([input()], [output(1n)]);
    const e = expectParseError(() => parseBlock(buildBlock([coinbase, second], hex('00'))), 'MALFORMED');
    expect(e.offset).toBe(80 + 1 + coinbase.length + second.length);
    const hog = Buffer.concat([u32le(2), hex('0008'), hex('01'), input(), hex('01'), output(7n), hex('00'), u32le(0)]);
    const withExt = parseBlock(buildBlock([coinbase, hog], hex('01deadbeef')));
    expect(withExt.txs[1]!.hogEx).toBe(true);
    // CBlock reads the extension block only when there are at least two transactions.
    expectParseError(() => parseBlock(buildBlock([hog], hex('01'))), 'MALFORMED');
  });

  it('blocks: a wrong merkle root is MERKLE_MISMATCH', () => {
    const raw = buildBlock([coinbase, legacyTx([input()], [output(1n)])]);
    raw[40] = raw[40]! ^ 1;
    const e = expectParseError(() => parseBlock(raw), 'MERKLE_MISMATCH');
    expect(e.offset).toBe(36);
  });

  it('blocks: a duplicated last transaction is MERKLE_MISMATCH even though the root matches (CVE-2012-2459)', () => {
    const a = legacyTx([input()], [output(1n)]);
    const b = legacyTx([input(Buffer.alloc(32, 2))], [output(2n)]);
    const ok = buildBlock([coinbase, a, b]);
    const mutated = Buffer.concat([ok.subarray(0, 80), hex('04'), coinbase, a, b, b]);
    expect(merkleRoot([coinbase, a, b, b].map((t) => parseTransaction(t).txid))).toEqual(ok.subarray(36, 68));
    expectParseError(() => parseBlock(mutated), 'MERKLE_MISMATCH');
  });

  it('blocks: no transactions, or shorter than a header', () => {
    expectParseError(() => parseBlock(buildBlock([], Buffer.alloc(0), hex('00'))), 'MALFORMED');
    expectParseError(() => parseBlock(Buffer.alloc(79)), 'TRUNCATED');
    expectParseError(() => parseBlock(Buffer.alloc(80)), 'TRUNCATED');
  });
});

describe('merkleRoot (ComputeMerkleRoot)', () => {
  const leaf = (n: number) => sha256d(Buffer.from([n]));
  const parent = (a: Buffer, b: Buffer) => sha256d(Buffer.concat([a, b]));

  it('empty list gives zeros, one leaf is its own root', () => {
    expect(merkleRoot([])).toEqual(Buffer.alloc(32));
    expect(merkleRoot([leaf(1)])).toEqual(leaf(1));
  });

  it('duplicates the last hash of an odd level', () => {
    const [a, b, c] = [leaf(1), leaf(2), leaf(3)];
    expect(merkleRoot([a, b])).toEqual(parent(a, b));
    expect(merkleRoot([a, b, c])).toEqual(parent(parent(a, b), parent(c, c)));
  });

  it('matches bitcoinjs-lib on a real block', () => {
    const txs = Block.fromBuffer(Buffer.from(btcBlocks[6]!.hex, 'hex')).transactions!;
    const ids = txs.map((t: Transaction) => Buffer.from(t.getHash()));
    expect(merkleRoot(ids)).toEqual(Buffer.from(Block.calculateMerkleRoot(txs)));
  });
});
