/**
 * Block headers from the node, for the header backfill (header-backfill.ts): REST
 * `/rest/headers/<count>/<hash>.bin` (80 bytes each, up to 2000 per call; the count-in-path form, which
 * Litecoin Core serves and Bitcoin Core still accepts) when the node serves REST, else RPC `getblockhash`
 * and `getblockheader <hash> false` per height. Fewer headers than asked when the node's chain ends.
 */
import { HEADER_SIZE } from '../src/chain/block-header.js';
import { NodeError, type NodeClient } from './node-client.js';

/** Core's MAX_REST_HEADERS_RESULTS: the most one REST call answers. */
export const MAX_REST_HEADERS = 2000;

/** Up to `count` consecutive headers from block `hash` (at `height`) up. */
export async function fetchHeaders(client: NodeClient, height: number, hash: string, count: number): Promise<Buffer[]> {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_REST_HEADERS) throw new RangeError(`header count ${count} not in 1..2000`);
  const request = `REST headers ${hash}`;
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new RangeError(`not a block hash: ${hash}`);
  const bin = await client.restGet(`/rest/headers/${count}/${hash}.bin`, request);
  if (bin !== null) {
    if (bin.length % HEADER_SIZE !== 0 || bin.length > count * HEADER_SIZE)
      throw new NodeError('BAD_RESPONSE', `node at ${client.safeUrl}: ${request} sent ${bin.length} bytes`, false, { request });
    return Array.from({ length: bin.length / HEADER_SIZE }, (_, i) => Buffer.from(bin.subarray(i * HEADER_SIZE, (i + 1) * HEADER_SIZE)));
  }
  const hashes = await Promise.all(Array.from({ length: count }, (_, i) => (i === 0 ? hash : client.getBlockHash(height + i))));
  const headers = await Promise.all(
    hashes.map(async (h) => client.hexResult(await client.call<unknown>('getblockheader', [h, false]), 'getblockheader')),
  );
  const bad = headers.find((h) => h.length !== HEADER_SIZE);
  if (bad) throw new NodeError('BAD_RESPONSE', `node at ${client.safeUrl}: getblockheader sent ${bad.length} bytes`, false, { request });
  return headers;
}
