/**
 * What a chain module (src/chain/<code>/) provides, and defineChain(), which freezes one and derives
 * the per-network ChainParams from it. Everything chain-specific lives in the module; the shared
 * codecs and the parser core in src/chain read it through these fields, never by the chain's code.
 */
import type { Network } from 'bitcoinjs-lib';

/**
 * The output script an extended public key's version bytes imply when it is given alone (SLIP-0132, as
 * Blockbook and hardware wallets read it): BIP44 pkh, BIP49 sh(wpkh), BIP84 wpkh.
 */
export type ExtendedKeyKind = 'pkh' | 'sh-wpkh' | 'wpkh';

/** One version of extended public key a network accepts: its base58 prefix, version bytes, script kind. */
export interface ExtendedKeyVersion {
  readonly prefix: string;
  readonly version: number;
  readonly kind: ExtendedKeyKind;
}

/** One network of a chain, as its module writes it (values of the node's chainparams.cpp). */
export interface NetworkDef {
  /** bitcoinjs-lib Network; its scriptHash is the primary (encoded) P2SH version. */
  readonly bitcoinjs: Network;
  /** Every base58 version that decodes to P2SH on this network; the first is the one we encode. */
  readonly scriptHashVersions: readonly number[];
  /** HRP of MWEB stealth addresses; null where MWEB does not exist. */
  readonly mwebHrp: string | null;
  /** Genesis block hash in display (byte-reversed) hex. */
  readonly genesisHash: string;
  /** What the node's getblockchaininfo reports as `chain` on this network. */
  readonly nodeChain: string;
  /** pchMessageStart (hex) of the `dumptxoutset` files this network accepts (Core snapshot format only). */
  readonly snapshotMagics: readonly string[];
  /**
   * Extended public keys of this network. The first is the node's own EXT_PUBLIC_KEY (the one its
   * descriptors take, and the one we print); the rest are SLIP-0132 versions wallets export.
   */
  readonly extendedKeys: readonly ExtendedKeyVersion[];
  /**
   * `api.maxTipAgeSeconds` when unset: well above the longest gap between blocks a live network
   * plausibly shows, so only a node that stopped following its network trips it. Absent = off (test
   * networks stall for hours by nature; regtest mines only on request).
   */
  readonly defaultMaxTipAgeSeconds?: number;
}

/** Network parameters as the codecs use them: the NetworkDef plus its names. */
export interface NetworkParams extends NetworkDef {
  readonly chain: string;
  readonly network: string;
  /** Human name for messages, e.g. 'Litecoin testnet'. */
  readonly label: string;
  readonly pubKeyHashVersion: number;
  readonly bech32Hrp: string;
  /** 0 = off. */
  readonly defaultMaxTipAgeSeconds: number;
}

/** The two `dumptxoutset` layouts (snapshot-format.ts decodes both). */
export type SnapshotKind = 'core-v2' | 'ltc-0.21';

export interface ChainModuleDef<C extends string, N extends string> {
  /** Upper-case code: the API path segment, the config key, the env prefix (ADDRSUM_<code>_…). */
  readonly code: C;
  /** Human name: 'Bitcoin'. */
  readonly name: string;
  /** Name of the node daemon (docker images, systemd units): 'bitcoin' for bitcoind. */
  readonly daemon: string;
  /** Networks in the order messages list them; the first is the default. */
  readonly networks: { readonly [K in N]: NetworkDef };
  /** MAX_MONEY in satoshis: no output or balance of this chain can exceed it. */
  readonly maxMoneySats: number;
  /** Which `dumptxoutset` layout the chain's node writes. */
  readonly snapshotKind: SnapshotKind;
  /** Display names of network magics, for a message naming a snapshot of another network. */
  readonly snapshotMagicNames: Readonly<Record<string, string>>;
  /**
   * A script an address decodes to that holds no user balance (Litecoin's MWEB programs): the
   * message refusing the address, else null. Such scripts also encode to no address.
   */
  readonly unsupportedScript?: (script: Uint8Array) => string | null;
}

export interface ChainModule<C extends string = string, N extends string = string> extends ChainModuleDef<C, N> {
  readonly networkNames: readonly N[];
  readonly params: { readonly [K in N]: NetworkParams & { readonly chain: C; readonly network: K } };
}

function makeParams<C extends string, N extends string>(def: ChainModuleDef<C, N>, network: N): NetworkParams {
  const n: NetworkDef = def.networks[network];
  const params: NetworkParams = {
    chain: def.code,
    network,
    label: `${def.name} ${network}`,
    bitcoinjs: Object.freeze({ ...n.bitcoinjs, bip32: Object.freeze({ ...n.bitcoinjs.bip32 }) }),
    pubKeyHashVersion: n.bitcoinjs.pubKeyHash,
    scriptHashVersions: Object.freeze([...n.scriptHashVersions]),
    bech32Hrp: n.bitcoinjs.bech32,
    mwebHrp: n.mwebHrp,
    genesisHash: n.genesisHash,
    nodeChain: n.nodeChain,
    snapshotMagics: Object.freeze([...n.snapshotMagics]),
    extendedKeys: Object.freeze(n.extendedKeys.map((k) => Object.freeze({ ...k }))),
    defaultMaxTipAgeSeconds: n.defaultMaxTipAgeSeconds ?? 0,
  };
  // The bitcoinjs Network and our own fields must never disagree: the shared ones are derived from it.
  if (params.scriptHashVersions[0] !== params.bitcoinjs.scriptHash) {
    throw new Error(`${params.label}: primary P2SH version must equal the bitcoinjs Network's scriptHash`);
  }
  if (params.extendedKeys[0]?.version !== params.bitcoinjs.bip32.public) {
    throw new Error(`${params.label}: the first extended key version must be the bitcoinjs Network's bip32.public`);
  }
  return Object.freeze(params);
}

/** Freezes a chain module and builds its per-network params once. */
export function defineChain<const C extends string, const N extends string>(def: ChainModuleDef<C, N>): ChainModule<C, N> {
  const networkNames = Object.freeze(Object.keys(def.networks) as N[]);
  const params = Object.fromEntries(networkNames.map((n) => [n, makeParams(def, n)])) as ChainModule<C, N>['params'];
  return Object.freeze({ ...def, networkNames, params: Object.freeze(params) });
}
