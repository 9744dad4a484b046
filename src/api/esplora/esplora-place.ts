/**
 * The index reads the Esplora routes share: a block's place (hash and time) at a height, from the
 * index's stored headers, so a status names the block the index holds there.
 */
import { readHeader } from '../../chain/block-header.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { ViewIndex } from '../node-read.js';
import type { EsploraPlace } from './esplora-values.js';

/**
 * The block at `height` as the index holds it now; its time null when the header there is another
 * block's than `expected` (the index moved past a reorg since the caller's lookup).
 */
export async function placeAt(index: ViewIndex, height: number, expected?: Buffer): Promise<EsploraPlace | null> {
  const range = await index.headers(height, 1);
  const raw = range?.headers[0];
  if (raw === undefined) return null;
  const header = readHeader(raw);
  if (expected !== undefined && !header.hash.equals(expected)) return { height, blockHash: toDisplayHex(expected), blockTime: null };
  return { height, blockHash: toDisplayHex(header.hash), blockTime: header.time };
}
