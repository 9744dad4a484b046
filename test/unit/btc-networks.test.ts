/**
 * Bitcoin signet and testnet4 (BIP94) as networks of the BTC module: their genesis blocks (fixtures
 * built from Bitcoin Core's chainparams) hash to the genesis hashes the module names and parse, the
 * config accepts them, the node check maps them to what bitcoind reports, addresses and snapshot
 * magics are told apart as on testnet3.
 */
import { describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { parseBlock } from '../../src/chain/block-parser.js';
import { sha256d, toDisplayHex } from '../../src/chain/hash.js';
import { chainParams, networkNames } from '../../src/chain/params.js';
import { parseSnapshotHeader } from '../../src/chain/snapshot-format.js';
import { coreHeader } from '../../src/chain/snapshot-writer.js';
import { loadConfig } from '../../src/config.js';
import { checkNode } from '../../indexer/node-check.js';
import { readJsonFixture } from '../support/fixtures.js';

type Genesis = { hash: string; merkleRoot: string; hex: string };
const fixture = readJsonFixture<Record<'signet' | 'testnet4', Genesis>>('blocks/btc-genesis-signet-testnet4.json');
const NETWORKS = ['signet', 'testnet4'] as const;

/** Bitcoin Core's default signet challenge (kernel/chainparams.cpp, SigNetParams): a 1-of-2 multisig. */
const DEFAULT_SIGNET_CHALLENGE =
  '512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae';

const TB1 = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const BC1 = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

describe.each(NETWORKS)('BTC %s', (network) => {
  const params = chainParams('BTC', network);
  const raw = Buffer.from(fixture[network].hex, 'hex');

  it('genesis block: its header hashes to the genesis hash the module names, and it parses', () => {
    expect(toDisplayHex(sha256d(raw.subarray(0, 80)))).toBe(params.genesisHash);
    expect(params.genesisHash).toBe(fixture[network].hash);
    const block = parseBlock(raw);
    expect(toDisplayHex(block.header.hash)).toBe(params.genesisHash);
    expect(toDisplayHex(block.header.merkleRoot)).toBe(fixture[network].merkleRoot);
    expect(block.txs).toHaveLength(1);
    expect(block.txs[0]!.coinbase).toBe(true);
    expect(Number(block.txs[0]!.outputs[0]!.value)).toBe(50 * 100_000_000);
  });

  it("shares testnet3's address versions and HRP", () => {
    const testnet = chainParams('BTC', 'testnet');
    expect(params.bech32Hrp).toBe('tb');
    expect(params.pubKeyHashVersion).toBe(testnet.pubKeyHashVersion);
    expect(params.scriptHashVersions).toEqual(testnet.scriptHashVersions);
    expect(params.genesisHash).not.toBe(testnet.genesisHash);
  });

  it('is a network ADDRSUM_BTC_NETWORK accepts', () => {
    expect(networkNames('BTC')).toContain(network);
    const config = loadConfig({ env: { ADDRSUM_BTC_NETWORK: network } });
    expect(config.chains.BTC.network).toBe(network);
  });

  it('accepts tb1 addresses and names a mainnet one WRONG_NETWORK', () => {
    expect(addressToScript(params, TB1)).toMatchObject({ ok: true });
    const main = addressToScript(params, BC1);
    expect(main.ok ? 'ok' : main.error.code).toBe('WRONG_NETWORK');
    expect(main.ok ? '' : main.error.message).toBe(`this is a Bitcoin mainnet address; this service runs Bitcoin ${network}`);
  });

  it("matches the node's getblockchaininfo chain name and genesis", async () => {
    const source = { getBlockHash: () => Promise.resolve(params.genesisHash) };
    await expect(checkNode('BTC', network, { chain: network }, source)).resolves.toBeUndefined();
    await expect(checkNode('BTC', network, { chain: 'test' }, source)).rejects.toMatchObject({ code: 'NODE_MISMATCH' });
    const testnet3 = { getBlockHash: () => Promise.resolve(chainParams('BTC', 'testnet').genesisHash) };
    await expect(checkNode('BTC', network, { chain: network }, testnet3)).rejects.toMatchObject({ code: 'NODE_MISMATCH' });
  });
});

describe('BTC signet and testnet4 snapshots', () => {
  it('derives the default signet magic from its challenge as Core does (first 4 bytes of sha256d)', () => {
    const challenge = Buffer.from(DEFAULT_SIGNET_CHALLENGE, 'hex');
    const serialized = Buffer.concat([Buffer.from([challenge.length]), challenge]);
    expect(chainParams('BTC', 'signet').snapshotMagics).toEqual([sha256d(serialized).subarray(0, 4).toString('hex')]);
  });

  it("accepts each network's own magic and names the other one", () => {
    const base = Buffer.alloc(32, 7);
    expect(parseSnapshotHeader(coreHeader('0a03cf40', base, 3), 'BTC', 'signet')).toMatchObject({ kind: 'core-v2', coinCount: 3 });
    expect(parseSnapshotHeader(coreHeader('1c163f28', base, 3), 'BTC', 'testnet4')).toMatchObject({ kind: 'core-v2', coinCount: 3 });
    expect(() => parseSnapshotHeader(coreHeader('1c163f28', base, 3), 'BTC', 'signet')).toThrow(
      'snapshot is for Bitcoin testnet4, but this indexer is BTC signet',
    );
    expect(() => parseSnapshotHeader(coreHeader('0a03cf40', base, 3), 'BTC', 'testnet4')).toThrow(
      'snapshot is for Bitcoin signet, but this indexer is BTC testnet4',
    );
  });
});

describe('networks sharing one address format', () => {
  it('a tb1 address on mainnet names only testnet (signet and testnet4 decode the same strings)', () => {
    const r = addressToScript(chainParams('BTC', 'mainnet'), TB1);
    expect(r.ok ? '' : r.error.message).toBe('this is a Bitcoin testnet address; this service runs Bitcoin mainnet');
  });

  it('Litecoin has no signet or testnet4', () => {
    expect(networkNames('LTC')).toEqual(['mainnet', 'testnet', 'regtest']);
    expect(() => loadConfig({ env: { ADDRSUM_LTC_NETWORK: 'signet' } })).toThrow(/ADDRSUM_LTC_NETWORK/);
  });
});
