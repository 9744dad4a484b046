/**
 * Block headers from the node, for the header backfill (header-backfill.ts): REST
 * `/rest/headers/<count>/<hash>.bin` (80 bytes each, up to 2000 per call; the count-in-path form, which
 * Litecoin Core serves and Bitcoin Core still accepts) when the node serves REST, else RPC `getblockhash`
 * and `getblockheader <hash> false` per height. Fewer headers than asked when the node's chain ends.
 */
import { HEADER_SIZE } from '../src/chain/block-header.js';
import { NodeError, type NodeClient } from '../src/node/node-client.js';

/** Core's MAX_REST_HEADERS_RESULTS: the most one REST call answers. */
export const MAX_REST_HEADERS = 2000;

/** Heights asked over RPC at once (the client's sockets, NodeClientOptions.maxSockets, queue the rest). */
const RPC_IN_FLIGHT = 16;

/** Up to `count` consecutive headers from block `hash` (at `height`) up. */
export async function fetchHeaders(client: NodeClient, height: number, hash: string, count: number): Promise<Buffer[]> {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_REST_HEADERS) throw new RangeError(`header count ${count} not in 1..2000`);
  // Also keeps arbitrary text out of the REST path.
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new RangeError(`not a block hash: ${hash}`);
  const request = `REST headers ${hash}`;
  const bin = await client.restGet(`/rest/headers/${count}/${hash}.bin`, request);
  if (bin !== null) {
    if (bin.length % HEADER_SIZE !== 0 || bin.length > count * HEADER_SIZE)
      throw new NodeError('BAD_RESPONSE', `node at ${client.safeUrl}: ${request} sent ${bin.length} bytes`, false, { request });
    return Array.from({ length: bin.length / HEADER_SIZE }, (_, i) => Buffer.from(bin.subarray(i * HEADER_SIZE, (i + 1) * HEADER_SIZE)));
  }
  const headers: Buffer[] = [];
  // A few calls in flight at a time: each one's timeout runs from when it is made, queued or not.
  for (let at = 0; at < count; at += RPC_IN_FLIGHT) {
    const heights = Array.from({ length: Math.min(RPC_IN_FLIGHT, count - at) }, (_, i) => height + at + i);
    const part = await Promise.all(
      heights.map(async (h) => {
        const blockHash = h === height ? hash : await client.getBlockHash(h);
        return client.hexResult(await client.call<unknown>('getblockheader', [blockHash, false]), 'getblockheader');
      }),
    );
    headers.push(...part);
  }
  const bad = headers.find((h) => h.length !== HEADER_SIZE);
  if (bad) throw new NodeError('BAD_RESPONSE', `node at ${client.safeUrl}: getblockheader sent ${bad.length} bytes`, false, { request });
  return headers;
}
