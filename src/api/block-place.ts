/**
 * The index reads the HTTP dialects share (Esplora, Blockbook): a block's place (hash and time) at a
 * height, from the index's stored headers, so a status names the block the index holds there; and a
 * request's memo of them, so a page of many transactions of one block reads its header once.
 */
import { readHeader } from '../chain/block-header.js';
import { toDisplayHex } from '../chain/hash.js';
import type { ViewIndex } from './node-read.js';

/** Where a confirmed transaction is. */
export interface BlockPlace {
  readonly height: number;
  /** Display hex. */
  readonly blockHash: string;
  readonly blockTime: number | null;
}

/**
 * The block at `height` as the index holds it now; its time null when the header there is another
 * block's than `expected` (the index moved past a reorg since the caller's lookup).
 */
export async function placeAt(index: ViewIndex, height: number, expected?: Buffer): Promise<BlockPlace | null> {
  const range = await index.headers(height, 1);
  const raw = range?.headers[0];
  if (raw === undefined) return null;
  const header = readHeader(raw);
  if (expected !== undefined && !header.hash.equals(expected)) return { height, blockHash: toDisplayHex(expected), blockTime: null };
  return { height, blockHash: toDisplayHex(header.hash), blockTime: header.time };
}

/** placeAt for one request, each height (and expected hash) read once. */
export function placesOf(index: ViewIndex): (height: number, expected?: Buffer) => Promise<BlockPlace | null> {
  const read = new Map<string, Promise<BlockPlace | null>>();
  return (height, expected) => {
    const id = `${height}:${expected?.toString('hex') ?? ''}`;
    let place = read.get(id);
    if (place === undefined) read.set(id, (place = placeAt(index, height, expected)));
    return place;
  };
}
