/**
 * The descriptor parser against generated input: grammar fragments, real keys, and mutations of valid
 * descriptors. Whatever it is given, it answers with a descriptor or a WalletError, never another
 * throw; what it accepts derives and prints a canonical form that parses back to the same scripts.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { chainParams } from '../../src/chain/params.js';
import { canonicalDescriptors, parseDescriptor } from '../../src/wallet/descriptor.js';
import { deriveScripts } from '../../src/wallet/derive.js';
import { WalletError } from '../../src/wallet/errors.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';

const BTC = chainParams('BTC', 'mainnet');
const LIMITS = { range: 2, maxRange: 2 };
const XPUB = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';
const XPRV = 'xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc';
const HEXKEY = '03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd';
const SEEDS = [
  `wpkh([d34db33f/84h/0h/0h]${XPUB}/<0;1>/*)`,
  `sh(wsh(sortedmulti(1,${XPUB}/0/*,${HEXKEY})))`,
  `tr(${XPUB}/0/*)`,
  'raw(deadbeef)#89f8spxm',
  'addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)',
];
const TOKENS = [
  ...['pk(', 'pkh(', 'wpkh(', 'sh(', 'wsh(', 'tr(', 'multi(', 'sortedmulti(', 'addr(', 'raw(', 'combo('],
  ...[')', ',', '/', '*', "'", 'h', '<', '>', ';', '[', ']', '{', '}', '#', '0', '1', '2147483648', 'deadbeef'],
  XPUB,
  XPRV,
  HEXKEY,
  HEXKEY.slice(2),
];

/** Parse and, when that succeeds, derive and re-parse the canonical form; only WalletErrors may escape. */
function exercise(text: string): void {
  try {
    const desc = parseWalletInput(BTC, text);
    const scripts = deriveScripts(desc, LIMITS).map((d) => Buffer.from(d.script).toString('hex'));
    const again = canonicalDescriptors(desc).flatMap((c) =>
      deriveScripts(parseDescriptor(BTC, c), LIMITS).map((d) => Buffer.from(d.script).toString('hex')),
    );
    expect(again).toEqual(scripts);
  } catch (err) {
    if (!(err instanceof WalletError)) throw err;
    // A private key given in any form never comes back in the message.
    expect(err.message).not.toContain(XPRV.slice(4, 24));
  }
}

const fromTokens = fc.array(fc.constantFrom(...TOKENS), { maxLength: 14 }).map((t) => t.join(''));
const mutated = fc
  .tuple(fc.constantFrom(...SEEDS), fc.nat(), fc.nat({ max: 3 }), fc.string({ maxLength: 3 }))
  .map(([seed, at, cut, insert]) => {
    const i = at % (seed.length + 1);
    return seed.slice(0, i) + insert + seed.slice(i + cut);
  });

it('answers any input with a descriptor or a WalletError', () => {
  fc.assert(fc.property(fc.oneof(fromTokens, mutated, fc.string({ maxLength: 60 })), exercise), {
    numRuns: 2000,
    interruptAfterTimeLimit: 4000,
  });
});
