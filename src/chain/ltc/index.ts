/**
 * Litecoin: its networks as Litecoin Core 0.21's chainparams.cpp sets them, and its quirks.
 *
 * | network | node `chain` | P2PKH | P2SH (first = what we encode) | HRP  | MWEB HRP |
 * |---------|--------------|-------|-------------------------------|------|----------|
 * | mainnet | main         | 48    | 50 (`M…`), 5 (`3…`)           | ltc  | ltcmweb  |
 * | testnet | test         | 111   | 58 (`Q…`), 196 (`2…`)         | tltc | tmweb    |
 * | regtest | regtest      | 111   | 58 (`Q…`), 196 (`2…`)         | rltc | tmweb    |
 *
 * Litecoin Core decodes both P2SH versions (SCRIPT_ADDRESS and SCRIPT_ADDRESS2) to the same script and
 * encodes SCRIPT_ADDRESS2, so the first entry is the one bitcoinjs's Network carries. MWEB: stealth
 * addresses (HRP above) and witness v8/v9 programs name no balance; blocks and mempool transactions
 * carry MWEB data the shared parser walks over with ./mweb-skip.ts. Its `dumptxoutset` is the 0.21 layout.
 *
 * Extended public keys: Litecoin Core keeps Bitcoin's EXT_PUBLIC_KEY (xpub 0488b21e on mainnet, tpub
 * 043587cf on testnet and regtest). Wallets export SLIP-0132's Ltub 019da462 and Mtub 01b26ef6 on
 * mainnet and ttub 0436f6e1 on testnet, and Bitcoin's segwit versions as Blockbook and Trezor do for
 * Litecoin: zpub 04b24746 on mainnet, upub 044a5262 / vpub 045f1cf6 on testnet and regtest.
 */
import type { Network } from 'bitcoinjs-lib';
import { defineChain, type ExtendedKeyVersion } from '../chain-module.js';
import { isMwebProgram } from './mweb-program.js';

/** xpub/tpub BIP32 prefixes are Bitcoin's; WIF differs (176 / 239). */
const MAINNET: Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'ltc',
  bip32: { public: 0x0488b21e, private: 0x0488ade4 },
  pubKeyHash: 48,
  scriptHash: 50,
  wif: 176,
};
const TESTNET: Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'tltc',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 111,
  scriptHash: 58,
  wif: 239,
};
const REGTEST: Network = { ...TESTNET, bech32: 'rltc' };

const MAINNET_KEYS: readonly ExtendedKeyVersion[] = [
  { prefix: 'xpub', version: 0x0488b21e, kind: 'pkh' },
  { prefix: 'Ltub', version: 0x019da462, kind: 'pkh' },
  { prefix: 'Mtub', version: 0x01b26ef6, kind: 'sh-wpkh' },
  { prefix: 'zpub', version: 0x04b24746, kind: 'wpkh' },
];
const TEST_KEYS: readonly ExtendedKeyVersion[] = [
  { prefix: 'tpub', version: 0x043587cf, kind: 'pkh' },
  { prefix: 'ttub', version: 0x0436f6e1, kind: 'pkh' },
  { prefix: 'upub', version: 0x044a5262, kind: 'sh-wpkh' },
  { prefix: 'vpub', version: 0x045f1cf6, kind: 'wpkh' },
];

export const ltc = defineChain({
  code: 'LTC',
  name: 'Litecoin',
  daemon: 'litecoin',
  networks: {
    mainnet: {
      bitcoinjs: MAINNET,
      scriptHashVersions: [50, 5],
      mwebHrp: 'ltcmweb',
      genesisHash: '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2',
      nodeChain: 'main',
      snapshotMagics: [],
      extendedKeys: MAINNET_KEYS,
      // A quarter of Bitcoin's block interval: an hour without a block is far out of the ordinary.
      defaultMaxTipAgeSeconds: 3600,
    },
    testnet: {
      bitcoinjs: TESTNET,
      scriptHashVersions: [58, 196],
      mwebHrp: 'tmweb',
      genesisHash: '4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0',
      nodeChain: 'test',
      snapshotMagics: [],
      extendedKeys: TEST_KEYS,
    },
    regtest: {
      bitcoinjs: REGTEST,
      scriptHashVersions: [58, 196],
      mwebHrp: 'tmweb',
      genesisHash: '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9',
      nodeChain: 'regtest',
      snapshotMagics: [],
      extendedKeys: TEST_KEYS,
    },
  },
  // Litecoin Core's MAX_MONEY: the largest of any chain we serve.
  maxMoneySats: 84_000_000 * 100_000_000,
  snapshotKind: 'ltc-0.21',
  snapshotMagicNames: {},
  unsupportedScript: (script) =>
    isMwebProgram(script) ? 'this address names a Litecoin MWEB program (witness version 8 or 9), which holds no user balance' : null,
});
