/** Finding and spending the UTXOs of the test's own taproot keys (see regtest-taproot.ts). */
import type { ChainManifest } from './regtest-manifest.js';
import { spendableUtxos, type AddressUtxo } from './regtest-scan.js';
import { signTaprootSpend } from './regtest-taproot.js';
import { feeFor, type RegtestNode } from './regtest-wallet.js';

export interface OwnedTaprootUtxo extends AddressUtxo {
  privateKey: string;
}

/** Spendable-now UTXOs (see spendableUtxos) of those of these addresses whose keys the manifest holds. */
export async function taprootUtxos(node: RegtestNode, manifest: ChainManifest, addresses: readonly string[]): Promise<OwnedTaprootUtxo[]> {
  const owned = addresses.filter((a) => manifest.taprootKeys.has(a));
  return (await spendableUtxos(node, owned)).map((u) => ({ ...u, privateKey: manifest.taprootKeys.get(u.address) as string }));
}

/**
 * Spends the given taproot UTXOs (key path) to outputs that share the total minus the fee in the
 * given proportions; returns the txid.
 */
export async function spendTaproot(
  node: RegtestNode,
  utxos: readonly OwnedTaprootUtxo[],
  outputs: readonly { script: string; share: number }[],
): Promise<string> {
  const total = utxos.reduce((s, u) => s + u.sats, 0);
  const available = total - feeFor(utxos.length, outputs.length);
  const shares = outputs.reduce((s, o) => s + o.share, 0);
  const values = outputs.map((o) => Math.floor((available * o.share) / shares));
  if (utxos.length === 0 || values.some((v) => v < 10_000)) throw new RangeError(`taproot inputs worth ${total} sat are too small`);
  const hex = signTaprootSpend(
    utxos.map((u) => ({ txid: u.txid, vout: u.vout, sats: u.sats, script: u.script, privateKey: u.privateKey })),
    outputs.map((o, i) => ({ script: o.script, sats: values[i] as number })),
  );
  return node.cli<string>('sendrawtransaction', hex, 0);
}
