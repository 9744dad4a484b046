/**
 * Outpoint key of the `utxos` table: txid (32 bytes, internal order) ‖ vout as big-endian bytes of
 * minimal length (1 byte for vout < 256, the usual case; at most 3 bytes since a block cannot hold
 * 2^24 outputs, 4 allowed). The txid has a fixed length, so the total length says how many vout bytes
 * follow and the encoding is one-to-one. Three bytes per row saved against a fixed u32.
 */
import { toDisplayHex } from '../chain/hash.js';

export const TXID_BYTES = 32;

/** Longest key: a 4-byte vout. */
export const MAX_OUTPOINT_KEY_BYTES = TXID_BYTES + 4;

const voutBytes = (vout: number): number => (vout < 0x100 ? 1 : vout < 0x10000 ? 2 : vout < 0x1000000 ? 3 : 4);

export function outpointKey(txid: Uint8Array, vout: number): Buffer {
  const key = Buffer.allocUnsafe(TXID_BYTES + voutBytes(vout));
  writeOutpointKey(key, 0, txid, vout);
  return key;
}

/** Writes the key into `buf` at `at` (room for MAX_OUTPOINT_KEY_BYTES); returns where it ends. */
export function writeOutpointKey(buf: Buffer, at: number, txid: Uint8Array, vout: number): number {
  if (txid.length !== TXID_BYTES) throw new RangeError(`txid of ${txid.length} bytes`);
  if (!Number.isInteger(vout) || vout < 0 || vout > 0xffffffff) throw new RangeError(`vout ${vout} out of range`);
  const n = voutBytes(vout);
  buf.set(txid, at);
  buf.writeUIntBE(vout, at + TXID_BYTES, n);
  return at + TXID_BYTES + n;
}

export function decodeOutpoint(key: Uint8Array): { txid: Buffer; vout: number } {
  const n = key.length - TXID_BYTES;
  if (n < 1 || n > 4) throw new RangeError(`outpoint key of ${key.length} bytes`);
  const buf = Buffer.from(key.buffer, key.byteOffset, key.length);
  return { txid: Buffer.from(buf.subarray(0, TXID_BYTES)), vout: buf.readUIntBE(TXID_BYTES, n) };
}

/** `txid:vout` as Bitcoin Core prints it, for error messages. */
export function formatOutpoint(key: Uint8Array): string {
  const { txid, vout } = decodeOutpoint(key);
  return `${toDisplayHex(txid)}:${vout}`;
}
