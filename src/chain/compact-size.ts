/**
 * Bitcoin's CompactSize, the count before each vector of its serialisation, from the encoder bitcoinjs-lib
 * serialises its own transactions with (varuint-bitcoin, which its bufferutils re-exports). Pure.
 */
import { varuint } from 'bitcoinjs-lib/src/bufferutils';

export function compactSize(n: number): Buffer {
  return Buffer.from(varuint.encode(n).buffer);
}
