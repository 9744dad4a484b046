/**
 * Extended public keys: BIP32 test vectors 1–3 (public derivation along each chain, hardened steps
 * refused) and 5 (invalid keys), and the version bytes of every network in the chain modules.
 */
import bs58check from 'bs58check';
import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chain/registry.js';
import { chainParams, type ChainCode, type NetworkName } from '../../src/chain/params.js';
import { canonicalDescriptors, parseDescriptor } from '../../src/wallet/descriptor.js';
import { deriveScripts } from '../../src/wallet/derive.js';
import { WalletError } from '../../src/wallet/errors.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';
import { readJsonFixture } from '../support/fixtures.js';

const BTC = chainParams('BTC', 'mainnet');
const vectors = readJsonFixture<{ chains: [string, string][][]; invalid: { key: string; code: string; why: string }[] }>(
  'descriptors/bip32-vectors.json',
);

/** The compressed public key inside an extended key (its last 33 bytes). */
const keyOf = (xpub: string) => Buffer.from(bs58check.decode(xpub).slice(45)).toString('hex');
/** The same key under other version bytes. */
function withVersion(xpub: string, version: number): string {
  const payload = Buffer.from(bs58check.decode(xpub));
  payload.writeUInt32BE(version, 0);
  return bs58check.encode(payload);
}

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof WalletError) return err.code;
    throw err;
  }
}

describe('BIP32 test vectors', () => {
  const steps = vectors.chains.flatMap((chain) =>
    chain
      .slice(1)
      .map(([path, xpub], i) => ({ path, xpub, parent: (chain[i] as [string, string])[1], step: path.split('/').pop() as string })),
  );

  it.each(steps.filter((s) => !s.step.endsWith('H')))('public derivation to $path', ({ parent, xpub, step }) => {
    // pk(parent/step) is the child's own public key: only public derivation is involved.
    const [item] = deriveScripts(parseDescriptor(BTC, `pk(${parent}/${step})`), { range: 1, maxRange: 1 });
    expect(Buffer.from(item?.script ?? []).toString('hex')).toBe(`21${keyOf(xpub)}ac`);
  });

  it.each(steps.filter((s) => s.step.endsWith('H')))('refuses the hardened step to $path', ({ parent, step }) => {
    expect(codeOf(() => parseDescriptor(BTC, `pk(${parent}/${step.replace('H', 'h')})`))).toBe('HARDENED_BELOW_XPUB');
  });

  it.each(vectors.chains.flat())('%s round-trips through the canonical form', (_path, xpub) => {
    expect(canonicalDescriptors(parseDescriptor(BTC, `pk(${xpub})`))[0]).toMatch(new RegExp(`^pk\\(${xpub}\\)#`));
  });

  it.each(vectors.invalid)('refuses $why: $code', ({ key, code }) => {
    expect(codeOf(() => parseWalletInput(BTC, key))).toBe(code);
    expect(codeOf(() => parseDescriptor(BTC, `wpkh(${key}/0/*)`))).toBe(code);
  });
});

describe('extended key versions of the chain modules', () => {
  const X = vectors.chains[0]?.[0]?.[1] as string;
  const networks = CHAINS.flatMap((c) => c.networkNames.map((n) => chainParams(c.code as ChainCode, n as NetworkName)));
  const TEMPLATE = { pkh: 'pkh', 'sh-wpkh': 'sh(wpkh', wpkh: 'wpkh' } as const;

  it.each(networks.flatMap((p) => p.extendedKeys.map((k) => ({ p, k, label: `${p.label} ${k.prefix}` }))))(
    '$label: a bare key is its kind over both branches, printed in the node’s own version',
    ({ p, k }) => {
      const key = withVersion(X, k.version);
      expect(key.startsWith(k.prefix)).toBe(true);
      const desc = parseWalletInput(p, key);
      const own = withVersion(X, p.bitcoinjs.bip32.public);
      const open = TEMPLATE[k.kind];
      const close = ')'.repeat(open.split('(').length);
      expect(canonicalDescriptors(desc).map((d) => d.replace(/#.*/, ''))).toEqual([
        `${open}(${own}/0/*${close}`,
        `${open}(${own}/1/*${close}`,
      ]);
      expect(deriveScripts(desc, { range: 5, maxRange: 5 }).map((d) => d.path)).toEqual(
        [0, 1].flatMap((b) => [0, 1, 2, 3, 4].map((i) => `${b}/${i}`)),
      );
    },
  );

  it('Core’s own version comes first on every network (xpub on mainnets, tpub elsewhere, Litecoin Core too)', () => {
    for (const p of networks) {
      expect(p.extendedKeys[0]?.prefix).toBe(p.network === 'mainnet' ? 'xpub' : 'tpub');
    }
  });

  it('gives WRONG_NETWORK for a key of another network, never for one of this network', () => {
    const cases: [ChainCode, NetworkName, number, string | null][] = [
      ['BTC', 'mainnet', 0x043587cf, 'WRONG_NETWORK'], // tpub on mainnet
      ['BTC', 'mainnet', 0x019da462, 'WRONG_NETWORK'], // Ltub on Bitcoin
      ['BTC', 'testnet', 0x04b24746, 'WRONG_NETWORK'], // zpub on testnet
      ['LTC', 'mainnet', 0x049d7cb2, 'WRONG_NETWORK'], // ypub on Litecoin
      ['LTC', 'regtest', 0x043587cf, null], // the tpub Litecoin Core takes on regtest
      ['LTC', 'mainnet', 0x01b26ef6, null], // Mtub
      ['LTC', 'testnet', 0x0436f6e1, null], // ttub
      ['BTC', 'mainnet', 0x12345678, 'MALFORMED_DESCRIPTOR'], // no network's version
    ];
    for (const [chain, network, version, code] of cases) {
      expect(codeOf(() => parseWalletInput(chainParams(chain, network), withVersion(X, version)))).toBe(code);
    }
  });
});
