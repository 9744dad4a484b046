import { createHash } from 'node:crypto';

/** Bitcoin's hash256: SHA-256 applied twice. */
export function sha256d(data: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

/** Block hashes and txids are shown byte-reversed (Bitcoin Core's uint256::GetHex). */
export function toDisplayHex(internal: Uint8Array): string {
  return Buffer.from(internal).reverse().toString('hex');
}

export function fromDisplayHex(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError(`not a 32-byte hash: ${hex}`);
  return Buffer.from(hex, 'hex').reverse();
}
