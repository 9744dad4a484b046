/**
 * Bitcoin Core's and Litecoin Core's key_io vectors (test/fixtures/key_io/README.md), checked the way
 * their key_io_tests.cpp does, plus addresses and validateaddress answers from a real Litecoin Core node.
 */
import { describe, expect, it } from 'vitest';
import { addressToScript, scriptToAddress } from '../../src/chain/address.js';
import { chainParams, NETWORK_NAMES, type ChainCode, type NetworkName } from '../../src/chain/params.js';
import { readJsonFixture } from '../support/fixtures.js';

type ValidMeta = { chain: string; isPrivkey: boolean; tryCaseFlip?: boolean };
type ValidVector = [string, string, ValidMeta];

function load<T>(name: string): T {
  return readJsonFixture<T>(`key_io/${name}`);
}

/** Core chain names → our networks; testnet4 and signet share testnet3's versions and HRP `tb`. */
const NETWORK_OF: Record<string, NetworkName> = {
  main: 'mainnet',
  test: 'testnet',
  testnet4: 'testnet',
  signet: 'testnet',
  regtest: 'regtest',
};

/** key_io_tests.cpp flips the case of every letter, not just upper-cases. */
function flipCase(s: string): string {
  return [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

function publicVectors(file: string): ValidVector[] {
  return load<ValidVector[]>(file).filter(([, , meta]) => !meta.isPrivkey);
}

for (const [chain, prefix] of [
  ['BTC', 'btc'],
  ['LTC', 'ltc'],
] as [ChainCode, string][]) {
  describe(`${chain} key_io vectors`, () => {
    const valid = publicVectors(`${prefix}-key_io_valid.json`);
    const invalid = load<[string][]>(`${prefix}-key_io_invalid.json`).map(([s]) => s);

    it('has the expected number of public-key vectors', () => {
      // Guards against a fixture silently losing entries (or the filter eating them all).
      expect(valid.length).toBe(chain === 'BTC' ? 54 : 42);
      expect(invalid.length).toBe(chain === 'BTC' ? 79 : 70);
    });

    it.each(valid)('%s decodes to %s and encodes back', (address, hex, meta) => {
      const network = NETWORK_OF[meta.chain];
      expect(network, `unknown chain name ${meta.chain}`).toBeDefined();
      const params = chainParams(chain, network as NetworkName);
      const result = addressToScript(params, address);
      if (!result.ok) throw result.error;
      expect(result.script.toString('hex')).toBe(hex);
      expect(scriptToAddress(params, Buffer.from(hex, 'hex'))).toBe(address);

      const flipped = addressToScript(params, flipCase(address));
      expect(flipped.ok).toBe(meta.tryCaseFlip === true);
      if (flipped.ok) expect(flipped.script.toString('hex')).toBe(hex);
    });

    it.each(invalid.map((s) => [s]))('rejects %j on every %s network', (s) => {
      for (const network of NETWORK_NAMES) {
        const result = addressToScript(chainParams(chain, network), s);
        expect(result.ok, `${network}: ${s}`).toBe(false);
      }
    });
  });
}

describe('addresses from a Litecoin Core 0.21.2.1 node', () => {
  type NodeEntry = {
    network: NetworkName;
    address: string;
    isvalid: boolean;
    scriptPubKey: string;
    ismweb: boolean;
  };
  const entries = load<{ addresses: NodeEntry[] }>('ltc-node-addresses.json').addresses;

  it('covers MWEB addresses on every network', () => {
    for (const network of NETWORK_NAMES) {
      expect(entries.some((e) => e.ismweb && e.network === network)).toBe(true);
    }
  });

  it.each(entries.map((e) => [e.address, e.network, e] as const))('%s on %s', (address, network, e) => {
    expect(e.isvalid).toBe(true);
    const params = chainParams('LTC', network);
    const result = addressToScript(params, address);
    if (e.ismweb) {
      // The node knows the address but gives it no scriptPubKey: no balance can be answered.
      expect(result.ok ? 'ok' : result.error.code).toBe('UNSUPPORTED_ADDRESS');
      expect(addressToScript(params, address.toUpperCase()).ok).toBe(false);
      return;
    }
    const script = Buffer.from(e.scriptPubKey, 'hex');
    const isMwebProgram = script.length === 34 && (script[0] === 0x58 || script[0] === 0x59);
    if (isMwebProgram) {
      // Litecoin Core accepts witness v8/v9 strings as WitnessUnknown; we refuse on purpose: those
      // programs are the HogAddr and peg-ins, which hold MWEB funds and no user's balance.
      expect(result.ok ? 'ok' : result.error.code).toBe('UNSUPPORTED_ADDRESS');
      expect(scriptToAddress(params, script)).toBeNull();
      return;
    }
    if (!result.ok) throw result.error;
    expect(result.script.toString('hex')).toBe(e.scriptPubKey);
    const encoded = scriptToAddress(params, script);
    // Litecoin encodes P2SH as M…/Q…; a hand-made 2…/3… alias maps to the same script, not back to itself.
    expect(encoded === address || /^[23]/.test(address)).toBe(true);
    if (encoded !== null) {
      const again = addressToScript(params, encoded);
      expect(again.ok && again.script.equals(script)).toBe(true);
    }
  });
});
