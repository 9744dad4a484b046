/**
 * Chain parameters for BTC and LTC × mainnet / testnet / regtest: everything address encoding and
 * block validation need to know about a network. Values are those of Bitcoin Core's and Litecoin Core's
 * chainparams.cpp (CMainParams / CTestNetParams / CRegTestParams: base58Prefixes, bech32_hrp,
 * mweb_hrp, the genesis block hash).
 *
 * | chain network | P2PKH | P2SH (first = what we encode) | bech32 HRP | MWEB HRP |
 * |---------------|-------|-------------------------------|------------|----------|
 * | BTC mainnet   | 0     | 5                             | bc         | –        |
 * | BTC testnet   | 111   | 196                           | tb         | –        |
 * | BTC regtest   | 111   | 196                           | bcrt       | –        |
 * | LTC mainnet   | 48    | 50 (`M…`), 5 (`3…`)           | ltc        | ltcmweb  |
 * | LTC testnet   | 111   | 58 (`Q…`), 196 (`2…`)         | tltc       | tmweb    |
 * | LTC regtest   | 111   | 58 (`Q…`), 196 (`2…`)         | rltc       | tmweb    |
 *
 * Litecoin Core decodes both of its P2SH versions (SCRIPT_ADDRESS and SCRIPT_ADDRESS2) to the same
 * script and encodes SCRIPT_ADDRESS2 (`M…`/`Q…`), so the first entry of scriptHashVersions is the one
 * bitcoinjs's Network carries. Testnet and regtest share every base58 version and differ only in HRP.
 *
 * "testnet" for BTC is testnet3 (bitcoind `-testnet`); testnet4 and signet use the same versions and HRP,
 * only the genesis hash differs.
 */
import { networks, type Network } from 'bitcoinjs-lib';

export type ChainCode = 'BTC' | 'LTC';
export type NetworkName = 'mainnet' | 'testnet' | 'regtest';

export const CHAIN_CODES: readonly ChainCode[] = Object.freeze(['BTC', 'LTC'] as const);
export const NETWORK_NAMES: readonly NetworkName[] = Object.freeze(['mainnet', 'testnet', 'regtest'] as const);

export interface ChainParams {
  readonly chain: ChainCode;
  readonly network: NetworkName;
  /** Human name for messages, e.g. 'Litecoin testnet'. */
  readonly label: string;
  /** bitcoinjs-lib Network; its scriptHash is the primary (encoded) P2SH version. */
  readonly bitcoinjs: Network;
  readonly pubKeyHashVersion: number;
  /** Every base58 version that decodes to P2SH on this network; the first is the one we encode. */
  readonly scriptHashVersions: readonly number[];
  readonly bech32Hrp: string;
  /** HRP of Litecoin MWEB stealth addresses; null where MWEB does not exist. */
  readonly mwebHrp: string | null;
  /** Genesis block hash in display (byte-reversed) hex. */
  readonly genesisHash: string;
}

const CHAIN_NAMES: Record<ChainCode, string> = { BTC: 'Bitcoin', LTC: 'Litecoin' };

/** Litecoin Core's chainparams: xpub/tpub BIP32 prefixes are Bitcoin's, WIF differs (176 / 239). */
const LTC_MAINNET: Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'ltc',
  bip32: { public: 0x0488b21e, private: 0x0488ade4 },
  pubKeyHash: 48,
  scriptHash: 50,
  wif: 176,
};
const LTC_TESTNET: Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'tltc',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 111,
  scriptHash: 58,
  wif: 239,
};
const LTC_REGTEST: Network = { ...LTC_TESTNET, bech32: 'rltc' };

type ParamsInput = Omit<ChainParams, 'chain' | 'network' | 'label' | 'pubKeyHashVersion' | 'bech32Hrp'>;

function make(chain: ChainCode, network: NetworkName, p: ParamsInput): ChainParams {
  // The bitcoinjs Network and our own fields must never disagree: derive the shared ones from it.
  const params: ChainParams = {
    chain,
    network,
    label: `${CHAIN_NAMES[chain]} ${network}`,
    bitcoinjs: Object.freeze({ ...p.bitcoinjs, bip32: Object.freeze({ ...p.bitcoinjs.bip32 }) }),
    pubKeyHashVersion: p.bitcoinjs.pubKeyHash,
    scriptHashVersions: Object.freeze([...p.scriptHashVersions]),
    bech32Hrp: p.bitcoinjs.bech32,
    mwebHrp: p.mwebHrp,
    genesisHash: p.genesisHash,
  };
  if (params.scriptHashVersions[0] !== params.bitcoinjs.scriptHash) {
    throw new Error(`${params.label}: primary P2SH version must equal the bitcoinjs Network's scriptHash`);
  }
  return Object.freeze(params);
}

const TABLE: Record<ChainCode, Record<NetworkName, ChainParams>> = {
  BTC: {
    mainnet: make('BTC', 'mainnet', {
      bitcoinjs: networks.bitcoin,
      scriptHashVersions: [5],
      mwebHrp: null,
      genesisHash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
    }),
    testnet: make('BTC', 'testnet', {
      bitcoinjs: networks.testnet,
      scriptHashVersions: [196],
      mwebHrp: null,
      genesisHash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
    }),
    regtest: make('BTC', 'regtest', {
      bitcoinjs: networks.regtest,
      scriptHashVersions: [196],
      mwebHrp: null,
      genesisHash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
    }),
  },
  LTC: {
    mainnet: make('LTC', 'mainnet', {
      bitcoinjs: LTC_MAINNET,
      scriptHashVersions: [50, 5],
      mwebHrp: 'ltcmweb',
      genesisHash: '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2',
    }),
    testnet: make('LTC', 'testnet', {
      bitcoinjs: LTC_TESTNET,
      scriptHashVersions: [58, 196],
      mwebHrp: 'tmweb',
      genesisHash: '4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0',
    }),
    regtest: make('LTC', 'regtest', {
      bitcoinjs: LTC_REGTEST,
      scriptHashVersions: [58, 196],
      mwebHrp: 'tmweb',
      genesisHash: '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9',
    }),
  },
};

export function chainParams(chain: ChainCode, network: NetworkName): ChainParams {
  const byNetwork = TABLE[chain] as Record<NetworkName, ChainParams> | undefined;
  const params = byNetwork?.[network];
  if (!params) throw new RangeError(`unknown chain/network: ${String(chain)}/${String(network)}`);
  return params;
}
