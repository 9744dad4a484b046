/**
 * What a regtest chain built by regtest-chain.ts contains: every address any block paid (with its kind),
 * the outputs that have no address, and the blocks worth looking at. Tests compare the indexer with
 * the node for every address listed here.
 */

/**
 * How the address's script is made. Planned addresses carry their exact kind; addresses discovered in
 * blocks (wallet change, ...) get the kind their script shows (`p2sh` when the redeem script is unknown).
 */
export type AddressKind = 'p2pkh' | 'p2sh-p2wpkh' | 'p2sh-multisig' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness-unknown';

export interface ManifestAddress {
  address: string;
  kind: AddressKind;
  /** scriptPubKey hex as the node reports it (validateaddress / getblock). */
  script: string;
  /** Who can spend it: the node's wallet, the test's own taproot keys, or nobody we know. */
  owner: 'wallet' | 'taproot-key' | 'none';
}

export type SpecialKind = 'p2pk' | 'bare-multisig' | 'op-return' | 'oversized' | 'max-size-script';

/** Outputs without an address (P2PK, bare multisig, OP_RETURN, over-long scripts). */
export interface SpecialOutput {
  kind: SpecialKind;
  txid: string;
  vout: number;
  script: string;
  sats: number;
  /** Whether Bitcoin Core keeps it in the UTXO set (IsUnspendable is false). */
  spendable: boolean;
}

export interface NotableBlocks {
  /** A pre-MWEB block with legacy, segwit and taproot spends. */
  preMweb: string;
  /** Height 432: MWEB activation, carries the first peg-in and HogEx. */
  activation: string;
  /** A block whose HogEx pays peg-outs to transparent addresses of several kinds. */
  pegOut: string;
  /** A post-activation block whose extension block has no inputs, outputs or kernels. */
  emptyExtension?: string;
  /** The block with P2PK / bare multisig / OP_RETURN / oversized-script outputs. */
  nonstandard: string;
  /** A block with an MWEB-to-MWEB transaction (no transparent effect). */
  mwebToMweb?: string;
}

export interface ChainManifest {
  seed: number;
  /** Every address an output of the chain paid, in first-seen order, each once. */
  addresses: ManifestAddress[];
  /** MWEB stealth addresses used (balances unobservable: the API answers UNSUPPORTED_ADDRESS). */
  mwebAddresses: string[];
  special: SpecialOutput[];
  blocks: NotableBlocks;
  /** Private keys (hex) of the test's taproot addresses, by address. */
  taprootKeys: Map<string, string>;
}

/** Adds an address unless already listed; returns whether it was new. */
export function addAddress(manifest: ChainManifest, entry: ManifestAddress): boolean {
  if (manifest.addresses.some((a) => a.address === entry.address)) return false;
  manifest.addresses.push(entry);
  return true;
}

export function addressesOfKind(manifest: ChainManifest, kind: AddressKind): ManifestAddress[] {
  return manifest.addresses.filter((a) => a.kind === kind);
}
