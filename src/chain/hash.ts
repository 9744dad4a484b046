import { hash } from 'node:crypto';

/**
 * Bitcoin's hash256: SHA-256 applied twice. crypto.hash() is the one-shot form: for the small inputs
 * a parser hashes by the thousand (txids, merkle nodes) it costs about half of createHash(), whose
 * per-object setup dominates below a few hundred bytes.
 */
export function sha256d(data: Uint8Array): Buffer {
  return hash('sha256', hash('sha256', data, 'buffer'), 'buffer');
}

/** Block hashes and txids are shown byte-reversed (Bitcoin Core's uint256::GetHex). */
export function toDisplayHex(internal: Uint8Array): string {
  return Buffer.from(internal).reverse().toString('hex');
}

export function fromDisplayHex(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError(`not a 32-byte hash: ${hex}`);
  return Buffer.from(hex, 'hex').reverse();
}
