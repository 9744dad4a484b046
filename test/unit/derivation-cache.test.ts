/** The xpub routes' derivation cache: repeated wallets derive nothing, and it holds at most its bound of scripts. */
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { DerivationCache } from '../../src/api/derivation-cache.js';
import { chainParams } from '../../src/chain/params.js';
import { walletFingerprint } from '../../src/wallet/fingerprint.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';

const bip32 = BIP32Factory(ecc);
const params = chainParams('BTC', 'mainnet');
const wallet = (seed: number) => {
  const desc = parseWalletInput(params, bip32.fromSeed(Buffer.alloc(32, seed), networks.bitcoin).neutered().toBase58());
  return { desc, fp: walletFingerprint(desc) };
};

describe('DerivationCache', () => {
  it('keeps the least recently used wallets out once more than maxScripts scripts are held', () => {
    const cache = new DerivationCache(100);
    const [a, b, c] = [wallet(1), wallet(2), wallet(3)];
    const limits = { range: 20, maxRange: 100 };
    const first = cache.wallet(a.fp, a.desc, limits);
    expect(first.scripts).toHaveLength(40);
    expect(first.keys).toHaveLength(40);
    cache.wallet(b.fp, b.desc, limits);
    expect(cache.size).toBe(80);
    // a is used again, so b is the least recently used when c arrives.
    expect(cache.wallet(a.fp, a.desc, limits)).toBe(first);
    cache.wallet(c.fp, c.desc, limits);
    expect(cache.size).toBe(80);
    expect(cache.derivations).toBe(3);
    cache.wallet(a.fp, a.desc, limits);
    expect(cache.derivations).toBe(3);
    cache.wallet(b.fp, b.desc, limits);
    expect(cache.derivations).toBe(4);
    expect(cache.size).toBeLessThanOrEqual(100);
  });

  it('derives a wallet larger than the whole bound for its request without keeping it', () => {
    const cache = new DerivationCache(10);
    const a = wallet(1);
    expect(cache.wallet(a.fp, a.desc, { range: 6, maxRange: 100 }).scripts).toHaveLength(12);
    expect(cache.size).toBe(0);
    cache.wallet(a.fp, a.desc, { range: 6, maxRange: 100 });
    expect(cache.derivations).toBe(2);
  });
});
