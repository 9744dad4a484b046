/**
 * Descriptor parsing and expansion against Bitcoin Core's descriptor_tests.cpp vectors and the BIP380,
 * BIP389 and BIP86 test vectors (test/fixtures/descriptors, origins in test/fixtures/README.md).
 */
import { describe, expect, it } from 'vitest';
import { chainParams } from '../../src/chain/params.js';
import { canonicalDescriptors, parseDescriptor } from '../../src/wallet/descriptor.js';
import { deriveScripts } from '../../src/wallet/derive.js';
import { WalletError } from '../../src/wallet/errors.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';
import { readJsonFixture } from '../support/fixtures.js';

const BTC = chainParams('BTC', 'mainnet');
const LIMITS = { range: 3, maxRange: 1000 };

interface Valid {
  desc: string;
  norm?: string;
  ranged?: boolean;
  scripts: string[][];
}
interface Invalid {
  desc: string;
  code: string;
  why?: string;
}
interface Multipath {
  desc: string;
  expanded: string[];
  ranged?: boolean;
  scripts?: string[][][];
}

const core = readJsonFixture<{ valid: Valid[]; multipath: Multipath[]; invalid: Invalid[]; private: string[] }>(
  'descriptors/core-descriptor-tests.json',
);
const bip380 = readJsonFixture<{ checksum: { desc: string; code: string | null }[]; keys: { key: string; code: string | null }[] }>(
  'descriptors/bip380-checksum-keys.json',
);
const bip389 = readJsonFixture<{ valid: Multipath[]; invalid: Invalid[] }>('descriptors/bip389-multipath.json');
const bip86 = readJsonFixture<{ accountXpub: string; addresses: { branch: number; index: number; script: string; address: string }[] }>(
  'descriptors/bip86-taproot.json',
);

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const withoutChecksum = (d: string) => d.replace(/#[a-z0-9]{8}$/, '');

/** The error code parsing `text` gives, or null when it parses. */
function codeOf(text: string): string | null {
  try {
    parseDescriptor(BTC, text);
    return null;
  } catch (err) {
    if (err instanceof WalletError) return err.code;
    throw err;
  }
}

describe('Bitcoin Core descriptor vectors', () => {
  it.each(core.valid)('$desc', (v) => {
    const desc = parseDescriptor(BTC, v.desc);
    expect(desc.ranged).toBe(v.ranged ?? false);
    const derived = deriveScripts(desc, LIMITS);
    // A ranged vector lists its scripts for indices 0, 1, 2; an unranged one has one script at every index.
    expect(derived.map((d) => [hex(d.script)])).toEqual(v.ranged ? v.scripts : [v.scripts[0]]);
    const [canonical] = canonicalDescriptors(desc);
    expect(withoutChecksum(canonical as string)).toBe(withoutChecksum(v.norm ?? v.desc));
  });

  it.each(core.multipath)('multipath $desc', (v) => {
    const desc = parseDescriptor(BTC, v.desc);
    expect(canonicalDescriptors(desc).map(withoutChecksum)).toEqual(v.expanded);
    const derived = deriveScripts(desc, LIMITS);
    const byBranch = v.expanded.map((_, b) => derived.filter((d) => d.branch === b).map((d) => [hex(d.script)]));
    expect(byBranch).toEqual(v.ranged ? v.scripts : v.scripts?.map((s) => [s[0]]));
  });

  it.each(core.invalid)('refuses $why: $code', (v) => {
    expect(codeOf(v.desc)).toBe(v.code);
  });

  it.each(core.private)('refuses a private key and never quotes it: %#', (text) => {
    let caught: unknown;
    try {
      parseDescriptor(BTC, text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WalletError);
    const err = caught as WalletError;
    expect(err.code).toBe('PRIVATE_KEY_REFUSED');
    const secrets = text.match(/[1-9A-HJ-NP-Za-km-z]{50,}/g) ?? [];
    for (const s of secrets) expect(err.message).not.toContain(s.slice(4, 20));
  });

  it('every canonical descriptor carries the checksum Core gives it, and parses back to itself', () => {
    for (const v of core.valid) {
      const [canonical] = canonicalDescriptors(parseDescriptor(BTC, v.desc));
      expect(canonicalDescriptors(parseDescriptor(BTC, canonical as string))).toEqual([canonical]);
    }
    const multisig = core.valid.find((v) => v.desc.includes('#'));
    expect(canonicalDescriptors(parseDescriptor(BTC, withoutChecksum(multisig?.desc ?? '')))[0]).toMatch(/#/);
  });
});

describe('BIP380 checksum and key expression vectors', () => {
  it.each(bip380.checksum)('$desc → $code', (v) => {
    expect(codeOf(v.desc)).toBe(v.code);
  });

  it.each(bip380.keys)('pk($key) → $code', (v) => {
    expect(codeOf(`pk(${v.key})`)).toBe(v.code);
  });
});

describe('BIP389 multipath vectors', () => {
  it.each(bip389.valid)('$desc', (v) => {
    const desc = parseDescriptor(BTC, v.desc);
    expect(desc.branches).toBe(v.expanded.length);
    expect(canonicalDescriptors(desc).map(withoutChecksum)).toEqual(v.expanded);
    // Each branch derives what its expanded descriptor derives on its own.
    const derived = deriveScripts(desc, LIMITS);
    v.expanded.forEach((single, b) => {
      const alone = deriveScripts(parseDescriptor(BTC, single), LIMITS).map((d) => hex(d.script));
      expect(derived.filter((d) => d.branch === b).map((d) => hex(d.script))).toEqual(alone);
    });
  });

  it.each(bip389.invalid)('refuses $why: $code', (v) => {
    expect(codeOf(v.desc)).toBe(v.code);
  });
});

describe('BIP86 taproot key path', () => {
  it('derives the test mnemonic account’s receiving and change outputs from tr(xpub/<0;1>/*)', () => {
    const desc = parseDescriptor(BTC, `tr(${bip86.accountXpub}/<0;1>/*)`);
    const derived = deriveScripts(desc, { range: 2, maxRange: 10 });
    for (const a of bip86.addresses) {
      const found = derived.find((d) => d.branch === a.branch && d.index === a.index);
      expect(found && hex(found.script)).toBe(a.script);
      expect(found?.path).toBe(`${a.branch}/${a.index}`);
    }
  });

  it('reads addr() of those addresses as the same scripts', () => {
    for (const a of bip86.addresses) {
      const [item] = deriveScripts(parseWalletInput(BTC, `addr(${a.address})`), LIMITS);
      expect(item && hex(item.script)).toBe(a.script);
    }
  });
});
