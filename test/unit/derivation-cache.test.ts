/** The xpub routes' derivation cache: repeated wallets derive nothing, and it holds at most its bound of scripts. */
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { DerivationCache } from '../../src/api/derivation-cache.js';
import { DerivationPool } from '../../src/api/derivation-pool.js';
import { chainParams } from '../../src/chain/params.js';
import { derivationWork } from '../../src/wallet/derive.js';
import { walletFingerprint } from '../../src/wallet/fingerprint.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';

const bip32 = BIP32Factory(ecc);
const params = chainParams('BTC', 'mainnet');
const wallet = (seed: number) => {
  const input = bip32.fromSeed(Buffer.alloc(32, seed), networks.bitcoin).neutered().toBase58();
  const desc = parseWalletInput(params, input);
  return { desc, input, fp: walletFingerprint(desc) };
};
const pool = new DerivationPool({ threads: 1, maxWaitSeconds: 10 });
/** The cache's derive(), as the routes call it: `range` indices of every branch of `w`. */
const derive = (cache: DerivationCache, w: ReturnType<typeof wallet>, range: number) =>
  cache.wallet('key:test', w.fp, { desc: w.desc, input: w.input, range, maxRange: 100, work: derivationWork(w.desc, range) });

describe('DerivationCache', () => {
  it('keeps the least recently used wallets out once more than maxScripts scripts are held', async () => {
    const cache = new DerivationCache(pool, 100);
    const [a, b, c] = [wallet(1), wallet(2), wallet(3)];
    const first = await derive(cache, a, 20);
    expect(first.scripts).toHaveLength(40);
    expect(first.keys).toHaveLength(40);
    await derive(cache, b, 20);
    expect(cache.size).toBe(80);
    // a is used again, so b is the least recently used when c arrives.
    expect(await derive(cache, a, 20)).toBe(first);
    await derive(cache, c, 20);
    expect(cache.size).toBe(80);
    expect(cache.derivations).toBe(3);
    await derive(cache, a, 20);
    expect(cache.derivations).toBe(3);
    await derive(cache, b, 20);
    expect(cache.derivations).toBe(4);
    expect(cache.size).toBeLessThanOrEqual(100);
  });

  it('derives a wallet larger than the whole bound for its request without keeping it', async () => {
    const cache = new DerivationCache(pool, 10);
    const a = wallet(1);
    expect((await derive(cache, a, 6)).scripts).toHaveLength(12);
    expect(cache.size).toBe(0);
    await derive(cache, a, 6);
    expect(cache.derivations).toBe(2);
  });
});
