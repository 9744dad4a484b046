/**
 * Bitcoin: its networks and their parameters, as Bitcoin Core's kernel/chainparams.cpp sets them
 * (base58Prefixes, bech32_hrp, pchMessageStart, the genesis block hash). Bitcoin has no address
 * quirks and no block extension, and its node writes the Core `dumptxoutset` format.
 *
 * | network  | node `chain` | P2PKH | P2SH | HRP  | snapshot magic            |
 * |----------|--------------|-------|------|------|---------------------------|
 * | mainnet  | main         | 0     | 5    | bc   | f9beb4d9                  |
 * | testnet  | test         | 111   | 196  | tb   | 0b110907 (also 1c163f28)  |
 * | regtest  | regtest      | 111   | 196  | bcrt | fabfb5da                  |
 * | signet   | signet       | 111   | 196  | tb   | 0a03cf40 (default signet) |
 * | testnet4 | testnet4     | 111   | 196  | tb   | 1c163f28                  |
 *
 * "testnet" is testnet3 (bitcoind `-testnet`); it also accepts testnet4-magic snapshots, as it did
 * before testnet4 was a network of its own. Signet and testnet4 (BIP94) share testnet3's versions and
 * HRP, so only the genesis hash tells them apart. Every signet shares one genesis block; a custom
 * `-signetchallenge` network indexes like the default one, but its snapshots carry another magic.
 *
 * Extended public keys: Core's EXT_PUBLIC_KEY (xpub 0488b21e, tpub 043587cf on every test network),
 * then SLIP-0132's ypub 049d7cb2 / zpub 04b24746 and upub 044a5262 / vpub 045f1cf6.
 */
import { networks } from 'bitcoinjs-lib';
import { defineChain, type ExtendedKeyVersion } from '../chain-module.js';

const MAINNET_KEYS: readonly ExtendedKeyVersion[] = [
  { prefix: 'xpub', version: 0x0488b21e, kind: 'pkh' },
  { prefix: 'ypub', version: 0x049d7cb2, kind: 'sh-wpkh' },
  { prefix: 'zpub', version: 0x04b24746, kind: 'wpkh' },
];
const TEST_KEYS: readonly ExtendedKeyVersion[] = [
  { prefix: 'tpub', version: 0x043587cf, kind: 'pkh' },
  { prefix: 'upub', version: 0x044a5262, kind: 'sh-wpkh' },
  { prefix: 'vpub', version: 0x045f1cf6, kind: 'wpkh' },
];

const TESTNET_ADDRESSES = {
  bitcoinjs: networks.testnet,
  scriptHashVersions: [196],
  mwebHrp: null,
  extendedKeys: TEST_KEYS,
} as const;

export const btc = defineChain({
  code: 'BTC',
  name: 'Bitcoin',
  daemon: 'bitcoin',
  networks: {
    mainnet: {
      bitcoinjs: networks.bitcoin,
      scriptHashVersions: [5],
      mwebHrp: null,
      genesisHash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
      nodeChain: 'main',
      snapshotMagics: ['f9beb4d9'],
      extendedKeys: MAINNET_KEYS,
      // An hour without a block happens on Bitcoin; two is far out of the ordinary.
      defaultMaxTipAgeSeconds: 7200,
    },
    testnet: {
      ...TESTNET_ADDRESSES,
      genesisHash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
      nodeChain: 'test',
      snapshotMagics: ['0b110907', '1c163f28'],
    },
    regtest: {
      bitcoinjs: networks.regtest,
      scriptHashVersions: [196],
      mwebHrp: null,
      genesisHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
      nodeChain: 'regtest',
      snapshotMagics: ['fabfb5da'],
      extendedKeys: TEST_KEYS,
    },
    signet: {
      ...TESTNET_ADDRESSES,
      genesisHash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
      nodeChain: 'signet',
      snapshotMagics: ['0a03cf40'],
    },
    testnet4: {
      ...TESTNET_ADDRESSES,
      genesisHash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
      nodeChain: 'testnet4',
      snapshotMagics: ['1c163f28'],
    },
  },
  // Bitcoin Core's MAX_MONEY (consensus/amount.h).
  maxMoneySats: 21_000_000 * 100_000_000,
  snapshotKind: 'core-v2',
  snapshotMagicNames: {
    f9beb4d9: 'Bitcoin mainnet',
    '0b110907': 'Bitcoin testnet3',
    '1c163f28': 'Bitcoin testnet4',
    '0a03cf40': 'Bitcoin signet',
    fabfb5da: 'Bitcoin regtest',
  },
});
