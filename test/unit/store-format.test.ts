import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeOutpoint, formatOutpoint, outpointKey } from '../../src/store/outpoint.js';
import { SCRIPT_KEY_BYTES, scriptKey } from '../../src/store/script-key.js';
import { decodeUndo, encodeUndo, type BlockUndo } from '../../src/store/undo.js';

describe('outpoint key', () => {
  const txid = Buffer.alloc(32, 0xab);

  it('is txid ‖ vout in minimal big-endian bytes', () => {
    expect(outpointKey(txid, 0).toString('hex')).toBe(`${'ab'.repeat(32)}00`);
    expect(outpointKey(txid, 255).subarray(32).toString('hex')).toBe('ff');
    expect(outpointKey(txid, 256).subarray(32).toString('hex')).toBe('0100');
    expect(outpointKey(txid, 0x123456).subarray(32).toString('hex')).toBe('123456');
    expect(outpointKey(txid, 0xffffffff).subarray(32).toString('hex')).toBe('ffffffff');
  });

  it('round-trips and is one-to-one', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), (t, a, b) => {
        const ka = outpointKey(t, a);
        expect(decodeOutpoint(ka)).toEqual({ txid: Buffer.from(t), vout: a });
        expect(ka.equals(outpointKey(t, b))).toBe(a === b);
      }),
    );
  });

  it('refuses malformed input and prints as Core does (display txid:vout)', () => {
    expect(() => outpointKey(Buffer.alloc(31), 0)).toThrow(RangeError);
    expect(() => outpointKey(txid, -1)).toThrow(RangeError);
    expect(() => outpointKey(txid, 2 ** 32)).toThrow(RangeError);
    expect(() => decodeOutpoint(Buffer.alloc(32))).toThrow(RangeError);
    const t = Buffer.from('00'.repeat(31) + '01', 'hex');
    expect(formatOutpoint(outpointKey(t, 7))).toBe(`01${'00'.repeat(31)}:7`);
  });
});

describe('script key', () => {
  it('is the first 16 bytes of SHA-256 of the scriptPubKey', () => {
    const script = Buffer.from('76a914000000000000000000000000000000000000000088ac', 'hex');
    const full = createHash('sha256').update(script).digest();
    expect(SCRIPT_KEY_BYTES).toBe(16);
    expect(scriptKey(script).equals(full.subarray(0, 16))).toBe(true);
    expect(scriptKey(Buffer.alloc(0)).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb924');
  });
});

describe('undo record', () => {
  const coin = fc.record({
    outpoint: fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat({ max: 0xffffffff })).map(([t, v]) => outpointKey(t, v)),
    scriptKey: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b)),
    value: fc
      .oneof(fc.constantFrom(0, 1, 127, 128, 2 ** 32, 21e14, 84e14, Number.MAX_SAFE_INTEGER), fc.nat({ max: Number.MAX_SAFE_INTEGER }))
      .map(BigInt),
    height: fc.nat({ max: 2 ** 31 - 1 }),
  });
  const created = fc.array(
    fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat({ max: 0xffffffff })).map(([t, v]) => outpointKey(t, v)),
  );

  it('round-trips (created outpoints grouped by txid, order within a txid kept)', () => {
    fc.assert(
      fc.property(fc.array(coin), created, (spent, made) => {
        // The record's created list is a set of outpoints: dedupe before comparing.
        const unique = [...new Map(made.map((k) => [k.toString('hex'), k])).values()];
        const undo: BlockUndo = { spent, created: unique };
        const back = decodeUndo(encodeUndo(undo));
        expect(back.spent).toEqual(spent);
        const sortHex = (l: Buffer[]): string[] => l.map((b) => b.toString('hex')).sort();
        expect(sortHex(back.created)).toEqual(sortHex(unique));
      }),
    );
  });

  it('groups created outpoints of one txid (32 bytes once)', () => {
    const t = Buffer.alloc(32, 1);
    const one = encodeUndo({ spent: [], created: [outpointKey(t, 0)] });
    const three = encodeUndo({ spent: [], created: [0, 1, 2].map((v) => outpointKey(t, v)) });
    expect(three.length - one.length).toBe(2);
  });

  it('refuses truncated, trailing or unknown-version data', () => {
    const data = encodeUndo({
      spent: [{ outpoint: outpointKey(Buffer.alloc(32), 1), scriptKey: Buffer.alloc(16), value: 5n, height: 9 }],
      created: [],
    });
    expect(() => decodeUndo(data.subarray(0, data.length - 1))).toThrow(RangeError);
    expect(() => decodeUndo(Buffer.concat([data, Buffer.from([0])]))).toThrow(/trailing/);
    expect(() => decodeUndo(Buffer.concat([Buffer.from([2]), data.subarray(1)]))).toThrow(/format/);
  });
});
