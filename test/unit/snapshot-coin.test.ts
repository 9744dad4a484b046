/**
 * Snapshot decoding, pure parts: Core's VARINT and amount compression (vectors from Core's own
 * serialize and compress tests), script decompression incl. uncompressed P2PK through secp256k1, the
 * Litecoin peg-out flag, both headers and their refusals, and the streaming reader across its window.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ByteReader, ParseError } from '../../src/chain/byte-reader.js';
import {
  compressAmount,
  compressScript,
  decompressAmount,
  readAmount,
  readCoin,
  readCompressedScript,
  readVarInt,
  writeCoin,
  writeVarInt,
} from '../../src/chain/snapshot-coin.js';
import { parseSnapshotHeader, readRecord, SnapshotError } from '../../src/chain/snapshot-format.js';
import { coreGroup, coreHeader, ltcHeader, ltcRecords } from '../../src/chain/snapshot-writer.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import { Rng } from '../support/blocks.js';
import { coinGroups, scriptKinds } from '../support/snapshot-coins.js';

const COIN = 100_000_000;

describe('Core VARINT and amount compression', () => {
  it("matches Core's encodings", () => {
    const vectors: [number, string][] = [
      [0, '00'],
      [0x7f, '7f'],
      [0x80, '8000'],
      [0x1234, 'a334'],
      [0xffff, '82fe7f'],
      [0x123456, 'c7e756'],
      [0x80123456, '86ffc7e756'],
      [0xffffffff, '8efefefe7f'],
    ];
    for (const [n, hex] of vectors) {
      expect(writeVarInt(n).toString('hex'), String(n)).toBe(hex);
      expect(readVarInt(new ByteReader(Buffer.from(hex, 'hex'))), hex).toBe(n);
    }
    const amounts: [number, number][] = [
      [0, 0x0],
      [1, 0x1],
      [COIN / 100, 0x7],
      [COIN, 0x9],
      [50 * COIN, 0x32],
      [21_000_000 * COIN, 0x1406f40],
    ];
    for (const [value, compressed] of amounts) {
      expect(Number(compressAmount(value))).toBe(compressed);
      expect(decompressAmount(compressed)).toBe(value);
    }
  });

  it('round-trips every amount up to MAX_MONEY and every 53-bit VARINT', () => {
    const roundTrip = (v: number): boolean => readAmount(new ByteReader(writeVarInt(compressAmount(v)))) === v;
    fc.assert(fc.property(fc.integer({ min: 0, max: 21_000_000 * COIN }), roundTrip));
    for (const v of [21_000_000 * COIN, 21_000_000 * COIN - 1, 1_377_408_849_781_439, 2 ** 53 - 1])
      expect(roundTrip(v), String(v)).toBe(true);
    fc.assert(
      fc.property(
        fc.maxSafeInteger().filter((n) => n >= 0 && n < 2 ** 52),
        (n) => readVarInt(new ByteReader(writeVarInt(n))) === n,
      ),
    );
  });

  it('refuses a VARINT beyond 2^53 and a truncated one', () => {
    expect(() => readVarInt(new ByteReader(Buffer.from('ffffffffffffffffff7f', 'hex')))).toThrow(ParseError);
    expect(() => readVarInt(new ByteReader(Buffer.from('80', 'hex')))).toThrow(/need 1 byte/);
  });
});

describe('script decompression', () => {
  const rng = new Rng(7);
  it('restores every script kind exactly (P2PK uncompressed through secp256k1)', () => {
    for (const { name, script } of scriptKinds(rng)) {
      const compressed = compressScript(script);
      const special = ['p2pkh', 'p2sh', 'p2pk compressed even', 'p2pk compressed odd', 'p2pk uncompressed even', 'p2pk uncompressed odd'];
      expect(compressed[0]! < 6, name).toBe(special.includes(name));
      expect(readCompressedScript(new ByteReader(compressed)).equals(script), name).toBe(true);
    }
  });

  it('stands an oversized script for OP_RETURN (skipping its bytes) and an off-curve key for an empty script', () => {
    const big = Buffer.concat([writeVarInt(10_001 + 6), Buffer.alloc(10_001, 0x51), Buffer.from([0xee])]);
    const r = new ByteReader(big);
    expect(readCompressedScript(r).toString('hex')).toBe('6a');
    expect(r.remaining).toBe(1);
    // x = 5 is not the x of any secp256k1 point (5³ + 7 = 132 is not a square mod p).
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(31), Buffer.from([5])]);
    expect(readCompressedScript(new ByteReader(offCurve)).length).toBe(0);
  });

  it("masks Litecoin's bit-31 peg-out flag, and only in Litecoin coins", () => {
    const coin = { height: 123_456, coinbase: true, value: 5 * COIN, script: Buffer.from('0014' + '11'.repeat(20), 'hex') };
    const flagged = writeCoin(coin, true);
    expect(readCoin(new ByteReader(flagged), true)).toEqual(coin);
    expect(readCoin(new ByteReader(flagged), false).height).toBe(123_456 + 2 ** 30);
    expect(readCoin(new ByteReader(writeCoin(coin)), true)).toEqual(coin);
  });
});

describe('snapshot headers', () => {
  const base = Buffer.alloc(32, 9);
  it('tells the two formats apart and refuses the wrong ones', () => {
    expect(parseSnapshotHeader(coreHeader('f9beb4d9', base, 7), 'BTC', 'mainnet')).toMatchObject({
      kind: 'core-v2',
      coinCount: 7,
      dataOffset: 51,
    });
    expect(parseSnapshotHeader(coreHeader('1c163f28', base, 7), 'BTC', 'testnet')).toMatchObject({ kind: 'core-v2' });
    expect(parseSnapshotHeader(ltcHeader(base, 7, 99), 'LTC', 'regtest')).toMatchObject({ kind: 'ltc-0.21', coinCount: 7, dataOffset: 44 });
    const refused = (head: Buffer, chain: 'BTC' | 'LTC', network: 'mainnet' | 'regtest'): string => {
      try {
        parseSnapshotHeader(head, chain, network);
      } catch (err) {
        expect(err).toBeInstanceOf(SnapshotError);
        return (err as SnapshotError).code;
      }
      return 'accepted';
    };
    expect(refused(coreHeader('fabfb5da', base, 7), 'BTC', 'mainnet')).toBe('WRONG_NETWORK');
    expect(refused(coreHeader('f9beb4d9', base, 7), 'LTC', 'mainnet')).toBe('WRONG_NETWORK');
    expect(refused(coreHeader('f9beb4d9', base, 7, 1), 'BTC', 'mainnet')).toBe('BAD_VERSION');
    expect(refused(ltcHeader(base, 7, 99), 'BTC', 'mainnet')).toBe('BAD_MAGIC');
    expect(refused(coreHeader('f9beb4d9', base, 7).subarray(0, 30), 'BTC', 'mainnet')).toBe('TRUNCATED');
    expect(refused(Buffer.alloc(10), 'LTC', 'mainnet')).toBe('TRUNCATED');
  });

  it('refuses a txid group larger than the coins the header has left', () => {
    const group = coreGroup(
      base,
      [0, 1, 2].map((vout) => ({ vout, coin: { height: 1, coinbase: false, value: 1, script: Buffer.from([0x51]) } })),
    );
    expect(() => readRecord(new ByteReader(group), 'core-v2', 2)).toThrow(/coin count mismatch/);
  });
});

describe('streaming reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'addrsum-snapfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a file it cannot open', () => {
    expect(() => SnapshotFile.open(join(dir, 'missing.dat'), 'BTC', 'regtest')).toThrow(
      expect.objectContaining({ code: 'UNREADABLE', message: expect.stringMatching(/^cannot read snapshot .*missing\.dat: ENOENT/) }),
    );
  });

  it('yields the same rows whatever its window, skipping unspendables, in both formats', () => {
    const rng = new Rng(99);
    const groups = coinGroups(rng, 300);
    const expected: string[] = [];
    for (const g of groups) {
      for (const o of g.outputs) {
        if (o.coin.script[0] === 0x6a) continue;
        expected.push(
          [outpointKey(g.txid, o.vout).toString('hex'), scriptKey(o.coin.script).toString('hex'), o.coin.value, o.coin.height].join(' '),
        );
      }
    }
    const total = groups.reduce((n, g) => n + g.outputs.length, 0);
    const core = join(dir, 'core.dat');
    writeFileSync(
      core,
      Buffer.concat([coreHeader('fabfb5da', Buffer.alloc(32, 1), total), ...groups.map((g) => coreGroup(g.txid, g.outputs))]),
    );
    const ltc = join(dir, 'ltc.dat');
    writeFileSync(
      ltc,
      Buffer.concat([
        ltcHeader(Buffer.alloc(32, 1), total, 5),
        ...groups.map((g) =>
          ltcRecords(
            g.txid,
            g.outputs.map((o, i) => ({ ...o, pegout: i % 2 === 1 })),
          ),
        ),
      ]),
    );
    for (const [file, chain] of [
      [core, 'BTC'],
      [ltc, 'LTC'],
    ] as const) {
      for (const window of [64, 1000, 1 << 20]) {
        const snap = SnapshotFile.open(file, chain, 'regtest');
        const rows = [...snap.rows(window)].map((r) => [r[0].toString('hex'), r[1].toString('hex'), r[2], r[3]].join(' '));
        expect(rows, `${chain} window ${window}`).toEqual(expected);
        expect(snap.stats.coins).toBe(total);
        expect(snap.stats.skipped).toBe(total - expected.length);
      }
    }
  });
});
