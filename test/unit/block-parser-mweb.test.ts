import { describe, expect, it } from 'vitest';
import { parseTransaction, ParseError, type ParseErrorCode } from '../../src/chain/block-parser.js';
import { blake3 } from '@noble/hashes/blake3';
import { sha256d, toDisplayHex } from '../../src/chain/hash.js';
import { readJsonFixture } from '../support/fixtures.js';

const fixture = (path: string) => readJsonFixture<unknown>(path);

interface MempoolTx {
  name: string;
  txid: string;
  hex: string;
  inputs: { txid: string; vout: number }[];
  outputs: { value_sat: number; script: string }[];
}
const mempool = (fixture('ltc-mempool/mweb-txs.json') as { txs: MempoolTx[] }).txs;

function expectParseError(fn: () => unknown, code?: ParseErrorCode): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(ParseError);
  if (code) expect((thrown as ParseError).code).toBe(code);
}

describe('parseTransaction: real mempool MWEB transactions from litecoind 0.21.2.1', () => {
  it('has the peg-in, MWEB-to-MWEB and peg-out samples', () => {
    expect(mempool.map((t) => t.name)).toEqual(['pegin', 'mweb2mweb', 'pegout']);
  });

  for (const t of mempool) {
    it(`${t.name}: skips the MWEB body; txid, inputs and outputs equal the node's`, () => {
      const raw = Buffer.from(t.hex, 'hex');
      const tx = parseTransaction(raw);
      expect(toDisplayHex(tx.txid)).toBe(t.txid);
      expect(tx.inputs.map((i) => ({ txid: toDisplayHex(i.prevTxid), vout: i.vout }))).toEqual(t.inputs);
      expect(tx.outputs.map((o) => ({ value_sat: Number(o.value), script: o.script.toString('hex') }))).toEqual(t.outputs);
      expect(tx.hogEx).toBe(false);
      expect(tx.mweb).toBe(true);
      expect(tx.coinbase).toBe(false);
    });

    it(`${t.name}: every truncation is a ParseError`, () => {
      const raw = Buffer.from(t.hex, 'hex');
      for (let len = 0; len < raw.length; len++) expectParseError(() => parseTransaction(raw.subarray(0, len)));
    });
  }
});

// ---- A builder following libmw's serialization, for the feature bits the samples do not use ---------

/** Bitcoin Core's WriteVarInt (MSB base-128, one subtracted from all but the last digit). */
function varInt(n: bigint): Buffer {
  const out: number[] = [];
  let len = 0;
  for (;;) {
    out.unshift(Number(n & 0x7fn) | (len ? 0x80 : 0));
    if (n <= 0x7fn) break;
    n = (n >> 7n) - 1n;
    len++;
  }
  return Buffer.from(out);
}
const compact = (n: number) => {
  if (n < 253) return Buffer.from([n]);
  const b = Buffer.alloc(3);
  b[0] = 253;
  b.writeUInt16LE(n, 1);
  return b;
};
const vec = (data: Buffer) => Buffer.concat([compact(data.length), data]);
const fill = (n: number, byte: number) => Buffer.alloc(n, byte);
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

function mwInput(features: number): Buffer {
  return Buffer.concat([
    Buffer.from([features]),
    fill(32, 1), // output id
    fill(33, 2), // commitment
    fill(33, 3), // output pubkey
    features & 1 ? fill(33, 4) : Buffer.alloc(0), // input pubkey
    features & 2 ? vec(fill(300, 5)) : Buffer.alloc(0), // extra data (3-byte CompactSize)
    fill(64, 6), // signature
  ]);
}

function mwOutput(features: number): Buffer {
  return Buffer.concat([
    fill(33, 7), // commitment
    fill(33, 8), // sender pubkey
    fill(33, 9), // receiver pubkey
    Buffer.from([features]),
    features & 1 ? fill(33 + 1 + 8 + 16, 10) : Buffer.alloc(0), // standard fields
    features & 2 ? vec(fill(5, 11)) : Buffer.alloc(0),
    fill(675, 12), // range proof
    fill(64, 13), // signature
  ]);
}

function mwKernel(features: number): Buffer {
  const pegouts = [
    Buffer.concat([varInt(200_000_000n), vec(Buffer.from('0014' + '22'.repeat(20), 'hex'))]),
    Buffer.concat([varInt(2_099_999_997_690_000n), vec(Buffer.from('51', 'hex'))]),
  ];
  return Buffer.concat([
    Buffer.from([features]),
    features & 0x01 ? varInt(3900n) : Buffer.alloc(0),
    features & 0x02 ? varInt(1_249_996_740n) : Buffer.alloc(0),
    features & 0x04 ? Buffer.concat([compact(pegouts.length), ...pegouts]) : Buffer.alloc(0),
    features & 0x08 ? varInt(2_147_483_647n) : Buffer.alloc(0),
    features & 0x10 ? fill(33, 14) : Buffer.alloc(0),
    features & 0x20 ? vec(fill(40, 15)) : Buffer.alloc(0),
    fill(33, 16), // excess
    fill(64, 17), // signature
  ]);
}

function mwBody(inputs: Buffer[], outputs: Buffer[], kernels: Buffer[]): Buffer {
  return Buffer.concat([
    fill(32, 18), // kernel offset
    fill(32, 19), // stealth offset
    compact(inputs.length),
    ...inputs,
    compact(outputs.length),
    ...outputs,
    compact(kernels.length),
    ...kernels,
  ]);
}

const transparentIn = Buffer.concat([fill(32, 0xaa), u32le(1), vec(Buffer.alloc(0)), u32le(0xfffffffe)]);
const transparentOut = Buffer.concat([Buffer.from('c46f814a00000000', 'hex'), vec(Buffer.from('5920' + '55'.repeat(32), 'hex'))]);
const witness = Buffer.concat([compact(2), vec(fill(71, 0x30)), vec(fill(33, 0x02))]);
const LOCKTIME = u32le(431);

/** flags 0x09 transaction: one transparent input and output, a witness, and `body` as the MWEB part. */
function pegInTx(body: Buffer): { raw: Buffer; legacy: Buffer } {
  const raw = Buffer.concat([
    u32le(2),
    Buffer.from([0, 9, 1]),
    transparentIn,
    compact(1),
    transparentOut,
    witness,
    Buffer.from([1]),
    body,
    LOCKTIME,
  ]);
  const legacy = Buffer.concat([u32le(2), compact(1), transparentIn, compact(1), transparentOut, LOCKTIME]);
  return { raw, legacy };
}

/** flags 0x08, no transparent inputs or outputs: an MWEB-only transaction. */
const mwebOnlyTx = (body: Buffer) => Buffer.concat([u32le(2), Buffer.from([0, 8, 0, 0, 1]), body, LOCKTIME]);

describe('parseTransaction: MWEB bodies built from the libmw layout', () => {
  const everyFeature = mwBody([mwInput(0), mwInput(1), mwInput(3)], [mwOutput(0), mwOutput(1), mwOutput(3)], [mwKernel(0), mwKernel(0x3f)]);

  it('walks every optional field and hashes only the legacy serialization', () => {
    const { raw, legacy } = pegInTx(everyFeature);
    const tx = parseTransaction(raw);
    expect(tx.txid).toEqual(sha256d(legacy));
    expect(tx.outputs).toHaveLength(1);
    expect(Number(tx.outputs[0]!.value)).toBe(1249996740);
    expect(tx.inputs[0]!.vout).toBe(1);
    expect(tx.hogEx).toBe(false);
  });

  it('each kernel feature bit on its own', () => {
    for (let bit = 0; bit < 6; bit++) {
      const { raw, legacy } = pegInTx(mwBody([], [], [mwKernel(1 << bit)]));
      expect(parseTransaction(raw).txid).toEqual(sha256d(legacy));
    }
  });

  it('an MWEB-only transaction takes its first kernel hash (BLAKE3) as txid', () => {
    const first = mwKernel(0x11);
    const tx = parseTransaction(mwebOnlyTx(mwBody([mwInput(1)], [mwOutput(1)], [first, mwKernel(0x01)])));
    expect(tx.txid).toEqual(Buffer.from(blake3(first)));
    expect(tx.inputs).toEqual([]);
    expect(tx.outputs).toEqual([]);
    expect(tx.mweb).toBe(true);
  });

  it('an MWEB-only transaction without kernels falls back to the legacy txid', () => {
    const tx = parseTransaction(mwebOnlyTx(mwBody([], [], [])));
    expect(tx.txid).toEqual(sha256d(Buffer.concat([u32le(2), Buffer.from([0, 0]), LOCKTIME])));
  });

  it('a body that ends early or runs on is an error, never a wrong answer', () => {
    const { raw } = pegInTx(everyFeature);
    for (let cut = 1; cut < 40; cut++) expectParseError(() => parseTransaction(raw.subarray(0, raw.length - cut)));
    expectParseError(() => parseTransaction(Buffer.concat([raw, Buffer.from([0])])), 'MALFORMED');
  });

  it('an empty peg-out script is MALFORMED (PegOutCoin: "must not be empty")', () => {
    const kernel = Buffer.concat([Buffer.from([0x04]), compact(1), varInt(1n), compact(0), fill(33, 1), fill(64, 1)]);
    expectParseError(() => parseTransaction(pegInTx(mwBody([], [], [kernel])).raw), 'MALFORMED');
  });

  it('VarInts follow ReadVarInt: an int64 overflow is MALFORMED, int64 max is accepted', () => {
    const kernelWithFee = (fee: Buffer) => Buffer.concat([Buffer.from([0x01]), fee, fill(33, 1), fill(64, 1)]);
    const max = varInt(2n ** 63n - 1n);
    expect(() => parseTransaction(pegInTx(mwBody([], [], [kernelWithFee(max)])).raw)).not.toThrow();
    expectParseError(() => parseTransaction(pegInTx(mwBody([], [], [kernelWithFee(fill(10, 0xff))])).raw), 'MALFORMED');
    // Lock heights are int32: 2^31 does not fit.
    const lock = Buffer.concat([Buffer.from([0x08]), varInt(2n ** 31n), fill(33, 1), fill(64, 1)]);
    expectParseError(() => parseTransaction(pegInTx(mwBody([], [], [lock])).raw), 'MALFORMED');
  });

  it('a count of MWEB outputs that cannot fit is refused before any loop', () => {
    const body = Buffer.concat([fill(64, 0), compact(0), Buffer.from([0xfe, 0x00, 0x00, 0x00, 0x01]), fill(100, 0)]);
    expectParseError(() => parseTransaction(pegInTx(body).raw), 'TRUNCATED');
  });
});
