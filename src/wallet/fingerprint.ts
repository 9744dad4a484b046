/**
 * A short, stable name for a wallet that reveals nothing of it: what logs carry instead of the key or
 * the descriptor, and what a derivation cache can be keyed by. Two inputs that name the same scripts
 * in the same form (a ypub and its sh(wpkh(xpub/<0;1>/*)), `'` or `h`, with or without a checksum)
 * get the same fingerprint, because it is taken over the canonical descriptors.
 */
import { createHash } from 'node:crypto';
import { canonicalDescriptors, type Descriptor } from './descriptor.js';

/** Hex characters kept: enough to tell wallets apart in logs, far too few to search for a key. */
const FINGERPRINT_HEX = 16;

export function walletFingerprint(desc: Descriptor): string {
  const digest = createHash('sha256');
  digest.update(`${desc.params.chain}/${desc.params.network}\n`);
  for (const d of canonicalDescriptors(desc)) digest.update(`${d}\n`);
  return digest.digest('hex').slice(0, FINGERPRINT_HEX);
}
