/**
 * The txids of the block at a height, for get_merkle and id_from_pos: the block is the index's (its
 * stored header names it), its transactions the node's (`getblock <hash> 1`; Litecoin lists the
 * transparent ones, the HogEx last, which are what the header's merkle root covers). The list is checked
 * against that root, so an answer always matches the header a wallet holds. Recent blocks are kept a
 * minute: a wallet's first sync asks for many transactions of the same blocks.
 */
import { fromDisplayHex, sha256d, toDisplayHex } from '../../chain/hash.js';
import { computeMerkle } from '../../chain/merkle.js';
import { RpcError } from '../wire.js';
import type { IndexAccess } from '../index/access.js';
import type { NodeLink } from './node-link.js';
import { TtlCache } from './ttl-cache.js';

/** A block's txids in order, internal byte order, with its height. */
export interface BlockTxids {
  readonly height: number;
  readonly txids: readonly Buffer[];
}

const KEEP_MS = 60_000;

export function blockTxids(index: IndexAccess, node: NodeLink): (height: number) => Promise<BlockTxids> {
  const cache = new TtlCache<string, readonly Buffer[]>(KEEP_MS, Date.now, 16);
  return async (height) => {
    const range = await index().headers(height, 1);
    const header = range?.headers[0];
    if (!header) throw new RpcError('BAD_REQUEST', `no block at height ${height} in the index`);
    const hash = toDisplayHex(sha256d(header));
    const txids = await cache.get(hash, async () => {
      const block = await node.call<{ tx?: unknown }>('getblock', [hash, 1]);
      if (!Array.isArray(block.tx) || !block.tx.every((t) => typeof t === 'string' && /^[0-9a-f]{64}$/.test(t)))
        throw new RpcError('DAEMON_ERROR', `daemon error: getblock ${hash} gave no transaction list`);
      const leaves = block.tx.map((t: string) => fromDisplayHex(t));
      if (!computeMerkle(leaves).root.equals(header.subarray(36, 68)))
        throw new RpcError('DAEMON_ERROR', `daemon error: the node's block ${hash} does not match its header's merkle root`);
      return leaves;
    });
    return { height, txids };
  };
}
