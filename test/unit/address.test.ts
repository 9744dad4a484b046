import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { address as bjsAddress } from 'bitcoinjs-lib';
import { bech32, bech32m } from 'bech32';
import bs58check from 'bs58check';
import {
  AddressError,
  addressToScript,
  MAX_ADDRESS_LENGTH,
  scriptToAddress,
  type AddressErrorCode,
  type AddressResult,
} from '../../src/chain/address.js';
import { CHAIN_CODES, chainParams, NETWORK_NAMES, type ChainParams } from '../../src/chain/params.js';

const btcMain = chainParams('BTC', 'mainnet');
const btcTest = chainParams('BTC', 'testnet');
const btcReg = chainParams('BTC', 'regtest');
const ltcMain = chainParams('LTC', 'mainnet');
const ltcTest = chainParams('LTC', 'testnet');
const ltcReg = chainParams('LTC', 'regtest');
const ALL: ChainParams[] = CHAIN_CODES.flatMap((c) => NETWORK_NAMES.map((n) => chainParams(c, n)));

// Builders: addresses made with bitcoinjs's encoders from known payloads.
const HASH20 = Buffer.from('6d328a5b2a20d943a641c8d29b6cc3c2d2df85d3', 'hex');
const HASH32 = Buffer.from('e95a4b7e4b467a4bece4419548614a0bdc2471a1cd6ee2b48ce89e4cc654b378', 'hex');
const b58 = (version: number, hash: Uint8Array = HASH20) => bjsAddress.toBase58Check(hash, version);
const seg = (hrp: string, version: number, program: Uint8Array) => bjsAddress.toBech32(program, version, hrp);
/** A raw bech32/bech32m string with any version word and payload (bypasses bitcoinjs's checks). */
function rawBech(enc: typeof bech32, hrp: string, versionWord: number, payload: Uint8Array, limit = 90): string {
  return enc.encode(hrp, [versionWord, ...enc.toWords(payload)], limit);
}
/** An MWEB stealth address: bech32, version word 0, scan + spend pubkeys (66 bytes), ~120 chars. */
function mweb(hrp: string, payload: Uint8Array = Buffer.alloc(66, 0x02)): string {
  return rawBech(bech32, hrp, 0, payload, 1000);
}
const P2SH = (hash: Uint8Array) => `a914${Buffer.from(hash).toString('hex')}87`;
const P2PKH = (hash: Uint8Array) => `76a914${Buffer.from(hash).toString('hex')}88ac`;

function codeOf(result: AddressResult): AddressErrorCode | 'ok' {
  return result.ok ? 'ok' : result.error.code;
}

function scriptHex(params: ChainParams, address: string): string {
  const result = addressToScript(params, address);
  if (!result.ok) throw result.error;
  return result.script.toString('hex');
}

describe('chain params', () => {
  it('carries Litecoin Core and Bitcoin Core chainparams values', () => {
    expect([ltcMain.pubKeyHashVersion, ...ltcMain.scriptHashVersions]).toEqual([48, 50, 5]);
    expect([ltcTest.pubKeyHashVersion, ...ltcTest.scriptHashVersions]).toEqual([111, 58, 196]);
    expect(ltcReg.scriptHashVersions).toEqual(ltcTest.scriptHashVersions);
    expect([ltcMain.bech32Hrp, ltcTest.bech32Hrp, ltcReg.bech32Hrp]).toEqual(['ltc', 'tltc', 'rltc']);
    expect([ltcMain.mwebHrp, ltcTest.mwebHrp, ltcReg.mwebHrp]).toEqual(['ltcmweb', 'tmweb', 'tmweb']);
    expect([btcMain.bech32Hrp, btcTest.bech32Hrp, btcReg.bech32Hrp]).toEqual(['bc', 'tb', 'bcrt']);
    expect(btcMain.mwebHrp).toBeNull();
    expect(ltcMain.label).toBe('Litecoin mainnet');
    expect(btcTest.label).toBe('Bitcoin testnet');
  });

  it('keeps the bitcoinjs Network consistent with its own fields', () => {
    for (const p of ALL) {
      expect(p.bitcoinjs.pubKeyHash).toBe(p.pubKeyHashVersion);
      expect(p.bitcoinjs.scriptHash).toBe(p.scriptHashVersions[0]);
      expect(p.bitcoinjs.bech32).toBe(p.bech32Hrp);
      expect(p.genesisHash).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.isFrozen(p)).toBe(true);
    }
  });

  it('names the genesis blocks the nodes report (getblockhash 0)', () => {
    expect(btcMain.genesisHash).toBe('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    // Checked against litecoind 0.21.2.1 on all three networks.
    expect(ltcMain.genesisHash).toBe('12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2');
    expect(ltcTest.genesisHash).toBe('4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0');
    expect(ltcReg.genesisHash).toBe('530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9');
  });

  it('rejects unknown chains and networks', () => {
    expect(() => chainParams('DOGE' as never, 'mainnet')).toThrow(RangeError);
    expect(() => chainParams('LTC', 'signet')).toThrow(RangeError);
    expect(() => chainParams('BTC', 'toString' as never)).toThrow(RangeError);
  });
});

describe('Litecoin P2SH aliases', () => {
  const hash = fc.uint8Array({ minLength: 20, maxLength: 20 });

  it('3… and M… forms of one hash give the same script on mainnet', () => {
    fc.assert(
      fc.property(hash, (h) => {
        const legacy = b58(5, h);
        const modern = b58(50, h);
        expect(legacy[0]).toBe('3');
        expect(modern[0]).toBe('M');
        expect(scriptHex(ltcMain, legacy)).toBe(P2SH(h));
        expect(scriptHex(ltcMain, modern)).toBe(P2SH(h));
        // Encoding picks Litecoin Core's SCRIPT_ADDRESS2.
        expect(scriptToAddress(ltcMain, Buffer.from(P2SH(h), 'hex'))).toBe(modern);
      }),
      { numRuns: 50 },
    );
  });

  it('2… and Q… forms of one hash give the same script on testnet and regtest', () => {
    fc.assert(
      fc.property(hash, (h) => {
        const legacy = b58(196, h);
        const modern = b58(58, h);
        expect(legacy[0]).toBe('2');
        expect(modern[0]).toBe('Q');
        for (const p of [ltcTest, ltcReg]) {
          expect(scriptHex(p, legacy)).toBe(P2SH(h));
          expect(scriptHex(p, modern)).toBe(P2SH(h));
          expect(scriptToAddress(p, Buffer.from(P2SH(h), 'hex'))).toBe(modern);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('a vector pair: M… from Litecoin Core and its 3… twin', () => {
    // MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2 is in Litecoin Core's key_io_valid.json.
    expect(b58(50)).toBe('MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2');
    expect(scriptHex(ltcMain, '3BeQ84kkQFL2xPmkhLJbsWkw5ZdHV1u25v')).toBe(P2SH(HASH20));
    expect(scriptHex(ltcMain, 'MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2')).toBe(P2SH(HASH20));
  });

  it('Bitcoin testnet base58 (111/196) is also Litecoin testnet/regtest base58', () => {
    for (const p of [ltcTest, ltcReg]) {
      expect(scriptHex(p, b58(111))).toBe(P2PKH(HASH20));
      expect(scriptHex(p, b58(196))).toBe(P2SH(HASH20));
    }
    // …and testnet base58 is valid on regtest (only the HRPs differ).
    expect(scriptHex(btcReg, b58(111))).toBe(P2PKH(HASH20));
  });
});

describe('witness addresses (BIP173 / BIP350)', () => {
  it('builds the script of every witness kind', () => {
    expect(scriptHex(btcMain, seg('bc', 0, HASH20))).toBe(`0014${HASH20.toString('hex')}`);
    expect(scriptHex(btcMain, seg('bc', 0, HASH32))).toBe(`0020${HASH32.toString('hex')}`);
    expect(scriptHex(btcMain, seg('bc', 1, HASH32))).toBe(`5120${HASH32.toString('hex')}`);
    expect(scriptHex(ltcMain, seg('ltc', 1, HASH32))).toBe(`5120${HASH32.toString('hex')}`);
    // Future versions: OP_n <push>, sizes 2..40, also v1 with a non-taproot size.
    expect(scriptHex(btcMain, seg('bc', 1, HASH20))).toBe(`5114${HASH20.toString('hex')}`);
    expect(scriptHex(btcMain, seg('bc', 16, Buffer.from('abcd', 'hex')))).toBe('6002abcd');
    expect(scriptHex(ltcMain, seg('ltc', 5, Buffer.alloc(40, 1)))).toBe(`5528${'01'.repeat(40)}`);
  });

  it('accepts a taproot key that is not on the curve, as Bitcoin Core does', () => {
    // x = 0 has no point on secp256k1; DecodeDestination does not check, nor may we.
    const zero = Buffer.alloc(32);
    expect(scriptHex(btcMain, seg('bc', 1, zero))).toBe(`5120${zero.toString('hex')}`);
    expect(scriptToAddress(btcMain, Buffer.from(`5120${zero.toString('hex')}`, 'hex'))).toBe(seg('bc', 1, zero));
  });

  it('round-trips random witness programs of every version and size', () => {
    const program = fc.integer({ min: 0, max: 16 }).chain((version) =>
      fc.record({
        version: fc.constant(version),
        data:
          version === 0
            ? fc.oneof(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.uint8Array({ minLength: 32, maxLength: 32 }))
            : fc.uint8Array({ minLength: 2, maxLength: 40 }),
        params: fc.constantFrom(...ALL),
      }),
    );
    fc.assert(
      fc.property(program, ({ version, data, params }) => {
        const script = Buffer.from([version === 0 ? 0 : 0x50 + version, data.length, ...data]);
        const mwebProgram = params.chain === 'LTC' && (version === 8 || version === 9) && data.length === 32;
        const address = scriptToAddress(params, script);
        if (mwebProgram) {
          expect(address).toBeNull();
          return;
        }
        expect(address).toBe(seg(params.bech32Hrp, version, data));
        const back = addressToScript(params, address as string);
        expect(back.ok && back.script.equals(script)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with bitcoinjs toOutputScript on base58 and standard segwit (oracle)', () => {
    const h20 = fc.uint8Array({ minLength: 20, maxLength: 20 });
    fc.assert(
      fc.property(h20, fc.constantFrom(...ALL), (h, p) => {
        for (const addr of [b58(p.pubKeyHashVersion, h), b58(p.scriptHashVersions[0] as number, h), seg(p.bech32Hrp, 0, h)]) {
          const ours = addressToScript(p, addr);
          expect(ours.ok && Buffer.from(bjsAddress.toOutputScript(addr, p.bitcoinjs)).equals(ours.script)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('typed errors', () => {
  const mainMweb = mweb('ltcmweb');
  const testMweb = mweb('tmweb');

  it('MWEB test strings are as long as real ones (past BIP173’s 90)', () => {
    expect(mainMweb.length).toBeGreaterThan(90);
    expect(mainMweb.length).toBeGreaterThanOrEqual(115);
    expect(testMweb.startsWith('tmweb1qq')).toBe(true);
  });

  const table: [string, ChainParams, string, AddressErrorCode | 'ok', RegExp?][] = [
    // WRONG_NETWORK: a valid address of the same chain's other network.
    [
      'LTC testnet bech32 on LTC mainnet',
      ltcMain,
      seg('tltc', 0, HASH20),
      'WRONG_NETWORK',
      /Litecoin testnet address; this service runs Litecoin mainnet/,
    ],
    ['LTC regtest bech32 on LTC mainnet', ltcMain, seg('rltc', 1, HASH32), 'WRONG_NETWORK', /Litecoin regtest/],
    ['LTC testnet base58 on LTC mainnet', ltcMain, b58(58), 'WRONG_NETWORK', /Litecoin testnet or Litecoin regtest address/],
    ['LTC mainnet M… on LTC testnet', ltcTest, b58(50), 'WRONG_NETWORK', /Litecoin mainnet address; this service runs Litecoin testnet/],
    ['LTC mainnet L… on LTC regtest', ltcReg, b58(48), 'WRONG_NETWORK'],
    ['LTC testnet bech32 on LTC regtest', ltcReg, seg('tltc', 0, HASH32), 'WRONG_NETWORK'],
    [
      'BTC testnet tb1 on BTC mainnet',
      btcMain,
      seg('tb', 0, HASH20),
      'WRONG_NETWORK',
      /Bitcoin testnet address; this service runs Bitcoin mainnet/,
    ],
    ['BTC regtest bcrt1 on BTC testnet', btcTest, seg('bcrt', 1, HASH32), 'WRONG_NETWORK'],
    ['BTC mainnet 1… on BTC regtest', btcReg, b58(0), 'WRONG_NETWORK'],
    ['BTC testnet m… on BTC mainnet', btcMain, b58(111), 'WRONG_NETWORK'],
    ['testnet MWEB on LTC mainnet', ltcMain, testMweb, 'WRONG_NETWORK', /Litecoin testnet or Litecoin regtest/],
    ['mainnet MWEB on LTC regtest', ltcReg, mainMweb, 'WRONG_NETWORK', /Litecoin mainnet/],
    // WRONG_CHAIN: valid only for the other chain.
    ['ltc1 on BTC mainnet', btcMain, seg('ltc', 0, HASH20), 'WRONG_CHAIN', /Litecoin mainnet address; this service runs Bitcoin mainnet/],
    ['L… on BTC mainnet', btcMain, b58(48), 'WRONG_CHAIN'],
    ['M… on BTC mainnet', btcMain, b58(50), 'WRONG_CHAIN'],
    [
      'Q… on BTC testnet',
      btcTest,
      b58(58),
      'WRONG_CHAIN',
      /Litecoin testnet or Litecoin regtest address; this service runs Bitcoin testnet/,
    ],
    ['tltc1 on BTC regtest', btcReg, seg('tltc', 1, HASH32), 'WRONG_CHAIN'],
    ['MWEB on BTC mainnet', btcMain, mainMweb, 'WRONG_CHAIN'],
    ['bc1 on LTC mainnet', ltcMain, seg('bc', 0, HASH32), 'WRONG_CHAIN', /Bitcoin mainnet address; this service runs Litecoin mainnet/],
    ['1… on LTC mainnet', ltcMain, b58(0), 'WRONG_CHAIN'],
    ['tb1 on LTC testnet', ltcTest, seg('tb', 0, HASH20), 'WRONG_CHAIN'],
    ['tb1 on LTC mainnet', ltcMain, seg('tb', 0, HASH20), 'WRONG_CHAIN', /Bitcoin testnet address/],
    ['bcrt1 on LTC regtest', ltcReg, seg('bcrt', 0, HASH20), 'WRONG_CHAIN'],
    // Shared versions are not another chain: they are this chain's own addresses.
    ['BTC 3… on LTC mainnet', ltcMain, b58(5), 'ok'],
    ['BTC 2… on LTC testnet', ltcTest, b58(196), 'ok'],
    ['BTC m… on LTC regtest', ltcReg, b58(111), 'ok'],
    // UNSUPPORTED_ADDRESS: valid here, but no observable balance.
    ['MWEB on LTC mainnet', ltcMain, mainMweb, 'UNSUPPORTED_ADDRESS', /MWEB stealth address/],
    ['upper-case MWEB on LTC mainnet', ltcMain, mainMweb.toUpperCase(), 'UNSUPPORTED_ADDRESS'],
    ['MWEB on LTC testnet', ltcTest, testMweb, 'UNSUPPORTED_ADDRESS'],
    ['MWEB on LTC regtest', ltcReg, testMweb, 'UNSUPPORTED_ADDRESS'],
    ['witness v8/32 (HogAddr) on LTC', ltcMain, seg('ltc', 8, HASH32), 'UNSUPPORTED_ADDRESS', /witness version 8 or 9/],
    ['witness v9/32 (peg-in) on LTC', ltcReg, seg('rltc', 9, HASH32), 'UNSUPPORTED_ADDRESS'],
    ['witness v8/20 on LTC is a plain future version', ltcMain, seg('ltc', 8, HASH20), 'ok'],
    ['witness v8/32 on BTC is a plain future version', btcMain, seg('bc', 8, HASH32), 'ok'],
    // INVALID_ADDRESS
    ['empty', ltcMain, '', 'INVALID_ADDRESS', /empty/],
    ['garbage', btcMain, 'hello world!', 'INVALID_ADDRESS'],
    ['garbage without spaces', btcMain, 'not-an-address', 'INVALID_ADDRESS', /not a Bitcoin mainnet address/],
    ['base58 with a bad checksum', ltcMain, b58(50).slice(0, -1) + (b58(50).endsWith('2') ? '3' : '2'), 'INVALID_ADDRESS'],
    ['base58 with an unknown version', ltcMain, b58(30), 'INVALID_ADDRESS'],
    ['base58 with a 19-byte hash', ltcMain, bs58check.encode(Buffer.from([50, ...HASH20.subarray(1)])), 'INVALID_ADDRESS'],
    ['base58 with a 21-byte hash', ltcMain, bs58check.encode(Buffer.from([50, ...HASH20, 0])), 'INVALID_ADDRESS'],
    ['base58 with a bare version byte', btcMain, bs58check.encode(Buffer.from([0])), 'INVALID_ADDRESS'],
    ['bech32 with a bad checksum', btcMain, seg('bc', 0, HASH20).slice(0, -1) + 'q', 'INVALID_ADDRESS'],
    ['mixed-case bech32', ltcMain, 'LTC1' + seg('ltc', 0, HASH20).slice(4), 'INVALID_ADDRESS'],
    ['v0 with bech32m', btcMain, rawBech(bech32m, 'bc', 0, HASH20), 'INVALID_ADDRESS'],
    ['v1 with bech32', btcMain, rawBech(bech32, 'bc', 1, HASH32), 'INVALID_ADDRESS'],
    ['v0 with 21 bytes', btcMain, rawBech(bech32, 'bc', 0, Buffer.alloc(21, 3)), 'INVALID_ADDRESS'],
    ['v2 with 41 bytes', btcMain, rawBech(bech32m, 'bc', 2, Buffer.alloc(41, 3)), 'INVALID_ADDRESS'],
    ['v2 with 1 byte', btcMain, rawBech(bech32m, 'bc', 2, Buffer.alloc(1, 3)), 'INVALID_ADDRESS'],
    ['version word 17', btcMain, rawBech(bech32m, 'bc', 17, HASH32), 'INVALID_ADDRESS'],
    ['MWEB of 65 bytes', ltcMain, mweb('ltcmweb', Buffer.alloc(65, 2)), 'INVALID_ADDRESS'],
    ['MWEB with a bech32m checksum', ltcMain, rawBech(bech32m, 'ltcmweb', 0, Buffer.alloc(66, 2), 1000), 'INVALID_ADDRESS'],
    ['mixed-case MWEB', ltcMain, 'LTCMWEB' + mainMweb.slice(7), 'INVALID_ADDRESS'],
    ['leading space', ltcMain, ' ' + b58(50), 'INVALID_ADDRESS', /spaces/],
    ['trailing newline', ltcMain, b58(50) + '\n', 'INVALID_ADDRESS'],
    ['non-ASCII look-alike', ltcMain, b58(50).replace('M', 'Ｍ'), 'INVALID_ADDRESS'],
    ['over-long', btcMain, 'bc1' + 'q'.repeat(MAX_ADDRESS_LENGTH), 'INVALID_ADDRESS', /longer than 200/],
  ];

  it.each(table)('%s', (_name, params, address, code, message) => {
    const result = addressToScript(params, address);
    expect(codeOf(result)).toBe(code);
    if (!result.ok) {
      expect(result.error).toBeInstanceOf(AddressError);
      expect(result.error).toBeInstanceOf(Error);
      if (message) expect(result.error.message).toMatch(message);
    }
  });

  it('does not echo the input in error messages', () => {
    const input = '<script>alert(1)</script>';
    const result = addressToScript(btcMain, input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).not.toContain('script>');
  });
});

describe('scriptToAddress', () => {
  const cases: [string, string][] = [
    ['P2PK (compressed)', `21${'02'.padEnd(66, '1')}ac`],
    ['P2PK (uncompressed)', `41${'04'.padEnd(130, '2')}ac`],
    ['bare 1-of-1 multisig', `5121${'03'.padEnd(66, '3')}51ae`],
    ['OP_RETURN', '6a0568656c6c6f'],
    ['empty', ''],
    ['nonstandard', '51'],
    ['P2PKH with a wrong length push', `76a91500${HASH20.toString('hex')}88ac`],
    ['witness v0 with 21 bytes', `0015${'00'.repeat(21)}`],
    ['witness with a 41-byte program', `5129${'00'.repeat(41)}`],
    ['witness length byte disagreeing with the size', `0014${'00'.repeat(21)}`],
  ];
  it.each(cases)('%s has no address', (_name, hex) => {
    for (const p of ALL) expect(scriptToAddress(p, Buffer.from(hex, 'hex'))).toBeNull();
  });

  it('gives no address for Litecoin MWEB programs, but does on Bitcoin', () => {
    for (const op of ['58', '59']) {
      const script = Buffer.from(`${op}20${HASH32.toString('hex')}`, 'hex');
      for (const p of [ltcMain, ltcTest, ltcReg]) expect(scriptToAddress(p, script)).toBeNull();
      expect(scriptToAddress(btcMain, script)).toMatch(/^bc1/);
    }
  });

  it('encodes P2PKH and P2SH with the network’s primary versions', () => {
    expect(scriptToAddress(ltcMain, Buffer.from(P2PKH(HASH20), 'hex'))).toBe(b58(48));
    expect(scriptToAddress(btcMain, Buffer.from(P2SH(HASH20), 'hex'))).toBe(b58(5));
    expect(scriptToAddress(btcTest, Buffer.from(P2PKH(HASH20), 'hex'))).toBe(b58(111));
    expect(scriptToAddress(ltcReg, Buffer.from(P2SH(HASH20), 'hex'))).toBe(b58(58));
  });

  it('accepts any Uint8Array view, not only Buffers', () => {
    const backing = new Uint8Array(30);
    backing.set(Buffer.from(P2PKH(HASH20), 'hex'), 3);
    expect(scriptToAddress(btcMain, backing.subarray(3, 28))).toBe(b58(0));
  });
});

describe('addressToScript never throws', () => {
  const valid = [b58(50), b58(5), seg('ltc', 0, HASH20), seg('bc', 1, HASH32), mweb('ltcmweb'), seg('tltc', 3, HASH20)];

  it('for arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme-ascii', maxLength: 150 })),
        fc.constantFrom(...ALL),
        (s, p) => {
          const result = addressToScript(p, s);
          expect(typeof result.ok).toBe('boolean');
          if (!result.ok) expect(result.error).toBeInstanceOf(AddressError);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('for strings one edit away from valid addresses', () => {
    const chars = fc.constantFrom(...'qpzry9x8gf2tvdw0s3jn54khce6mua7l1QPZRY23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdef ');
    fc.assert(
      fc.property(
        fc.constantFrom(...valid),
        fc.nat(),
        chars,
        fc.constantFrom('replace', 'insert', 'delete'),
        fc.constantFrom(...ALL),
        (a, i, c, op, p) => {
          const at = i % a.length;
          const s =
            op === 'replace'
              ? a.slice(0, at) + c + a.slice(at + 1)
              : op === 'insert'
                ? a.slice(0, at) + c + a.slice(at)
                : a.slice(0, at) + a.slice(at + 1);
          const result = addressToScript(p, s);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('for non-string input from untyped callers', () => {
    for (const bad of [undefined, null, 42, {}, ['bc1']]) {
      expect(codeOf(addressToScript(btcMain, bad as unknown as string))).toBe('INVALID_ADDRESS');
    }
  });
});
