/**
 * Range expansion and its limits, sortedmulti, the refusals that are ours rather than a vector's, and the
 * wallet fingerprint logs carry.
 */
import bs58check from 'bs58check';
import { describe, expect, it } from 'vitest';
import { chainParams } from '../../src/chain/params.js';
import { parseDescriptor } from '../../src/wallet/descriptor.js';
import { deriveScripts } from '../../src/wallet/derive.js';
import { WalletError } from '../../src/wallet/errors.js';
import { walletFingerprint } from '../../src/wallet/fingerprint.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';

const BTC = chainParams('BTC', 'mainnet');
const LTC = chainParams('LTC', 'mainnet');
const A = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';
const B = 'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof WalletError) return err.code;
    throw err;
  }
}

describe('deriveScripts', () => {
  it('covers indices 0 … range-1 of every branch, in order, with paths from the origin when one is given', () => {
    const desc = parseDescriptor(BTC, `wpkh([d34db33f/84h/0h/0h]${A}/<0;1>/*)`);
    const items = deriveScripts(desc, { range: 4, maxRange: 10 });
    expect(items.map((i) => [i.branch, i.index, i.path])).toEqual(
      [0, 1].flatMap((b) => [0, 1, 2, 3].map((i) => [b, i, `m/84h/0h/0h/${b}/${i}`])),
    );
    expect(new Set(items.map((i) => hex(i.script))).size).toBe(8);
  });

  it('a larger range extends a smaller one without changing it', () => {
    const desc = parseWalletInput(BTC, A);
    const small = deriveScripts(desc, { range: 100, maxRange: 1000 }).filter((i) => i.branch === 0);
    const large = deriveScripts(desc, { range: 200, maxRange: 1000 }).filter((i) => i.branch === 0);
    expect(large.slice(0, 100).map((i) => hex(i.script))).toEqual(small.map((i) => hex(i.script)));
    expect(large[150]?.index).toBe(150);
  });

  it('gives one script per branch, whatever the range, for a descriptor without *', () => {
    expect(deriveScripts(parseDescriptor(BTC, `pkh(${A}/<0;1>)`), { range: 50, maxRange: 50 }).map((i) => [i.branch, i.index])).toEqual([
      [0, null],
      [1, null],
    ]);
  });

  it('sortedmulti is multi with its keys in byte order, whatever order they are given in', () => {
    const multi = (d: string) => deriveScripts(parseDescriptor(BTC, d), { range: 3, maxRange: 3 }).map((i) => hex(i.script));
    const sortedAB = multi(`wsh(sortedmulti(1,${A}/0/*,${B}/0/*))`);
    expect(multi(`wsh(sortedmulti(1,${B}/0/*,${A}/0/*))`)).toEqual(sortedAB);
    const ab = multi(`wsh(multi(1,${A}/0/*,${B}/0/*))`);
    const ba = multi(`wsh(multi(1,${B}/0/*,${A}/0/*))`);
    expect(ab).not.toEqual(ba);
    // Each index's sorted script is one of the two orders.
    sortedAB.forEach((s, i) => expect([ab[i], ba[i]]).toContain(s));
  });

  it('refuses ranges outside 1 … the cap, each with its code', () => {
    const desc = parseWalletInput(BTC, A);
    expect(codeOf(() => deriveScripts(desc, { range: 1001, maxRange: 1000 }))).toBe('RANGE_TOO_LARGE');
    expect(codeOf(() => deriveScripts(desc, { range: 0, maxRange: 1000 }))).toBe('BAD_RANGE');
    expect(codeOf(() => deriveScripts(desc, { range: 2.5, maxRange: 1000 }))).toBe('BAD_RANGE');
    expect(codeOf(() => deriveScripts(desc, { range: 1000, maxRange: 1000 }))).toBeNull();
    // Three branches at the cap derive more than a bare key's two.
    const three = parseDescriptor(BTC, `pkh(${A}/<0;1;2>/*)`);
    expect(codeOf(() => deriveScripts(three, { range: 1000, maxRange: 1000 }))).toBe('RANGE_TOO_LARGE');
  });
});

describe('our own refusals', () => {
  it.each([
    ['combo() is not read', `combo(${A})`, 'MALFORMED_DESCRIPTOR'],
    ['a script tree in tr()', `tr(${A}/0/*,pk(${B}/0/*))`, 'MALFORMED_DESCRIPTOR'],
    ['an address of another network', 'addr(tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx)', 'WRONG_NETWORK'],
    ['an address of another chain', 'addr(ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9)', 'WRONG_NETWORK'],
    ['raw() of odd length', 'raw(abc)', 'MALFORMED_DESCRIPTOR'],
    ['a threshold above the key count', `multi(3,${A},${B})`, 'MALFORMED_DESCRIPTOR'],
    ['four keys in a bare multi()', `multi(1,${A}/0,${A}/1,${A}/2,${A}/3)`, 'MALFORMED_DESCRIPTOR'],
    ['17 keys in wsh(multi())', `wsh(multi(1,${Array.from({ length: 17 }, (_, i) => `${A}/${i}`).join(',')}))`, 'MALFORMED_DESCRIPTOR'],
    ['wpkh() inside wsh()', `wsh(wpkh(${A}))`, 'MALFORMED_DESCRIPTOR'],
    ['a repeated multipath value', `wpkh(${A}/<0;0>/*)`, 'MALFORMED_DESCRIPTOR'],
    ['a * before the last step', `wpkh(${A}/*/0)`, 'MALFORMED_DESCRIPTOR'],
    ['an over-long descriptor', `raw(${'00'.repeat(3000)})`, 'MALFORMED_DESCRIPTOR'],
    ['a bare key of no known form', 'not-a-key', 'MALFORMED_DESCRIPTOR'],
  ])('%s', (_why, text, code) => {
    expect(codeOf(() => parseWalletInput(BTC, text))).toBe(code);
  });

  it('reads Litecoin addresses on Litecoin and gives them their canonical encoding', () => {
    const desc = parseWalletInput(LTC, 'addr(LTC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KGMN4N9)');
    expect(deriveScripts(desc, { range: 1, maxRange: 1 }).map((i) => hex(i.script))).toEqual([
      '0014751e76e8199196d454941c45d1b3a323f1433bd6',
    ]);
  });

  it('never quotes the key or the descriptor in a message', () => {
    for (const text of [`wpkh(${A}/0h/*)`, `pkh(${A}/<0;1>/<2;3>)`, `wpkh(${A.slice(0, -1)}x/0/*)`, A.replace('xpub', 'tpub')]) {
      let message = '';
      try {
        parseWalletInput(BTC, text);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain(A.slice(4, 24));
    }
  });
});

describe('walletFingerprint', () => {
  it('is the same for every spelling of one wallet and differs between wallets and networks', () => {
    const zpub = (() => {
      const payload = Buffer.from(bs58check.decode(A));
      payload.writeUInt32BE(0x04b24746, 0);
      return bs58check.encode(payload);
    })();
    const fp = (p: typeof BTC, text: string) => walletFingerprint(parseWalletInput(p, text));
    const same = fp(BTC, zpub);
    expect(same).toMatch(/^[0-9a-f]{16}$/);
    expect(fp(BTC, `wpkh(${A}/<0;1>/*)`)).toBe(same);
    expect(fp(BTC, ` ${zpub} `)).toBe(same);
    expect(fp(BTC, `pkh(${A}/<0;1>/*)`)).not.toBe(same);
    expect(fp(LTC, `wpkh(${A}/<0;1>/*)`)).not.toBe(same);
    expect(same).not.toContain(A.slice(4, 12));
  });
});
