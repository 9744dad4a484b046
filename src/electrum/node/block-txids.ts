/**
 * The txids of the block at a height, for get_merkle and id_from_pos: the serving layer's block source
 * (src/serving/block-source.ts) reads them with the index's header, checked against its merkle root,
 * and keeps recent blocks (a wallet's first sync asks for many transactions of the same blocks). Its
 * failures are said as Electrum says a node's: DAEMON_ERROR.
 */
import type { ChainCode } from '../../chain/params.js';
import type { BlockSource } from '../../serving/block-source.js';
import { ServingError } from '../../serving/errors.js';
import type { IndexAccess } from '../index/access.js';
import { RpcError } from '../wire.js';
import { noNode } from './node-link.js';

/** A block's txids in order, internal byte order, with its height and hash (display hex). */
export interface BlockTxids {
  readonly height: number;
  readonly hash: string;
  readonly txids: readonly Buffer[];
}

export function blockTxids(chain: ChainCode, index: IndexAccess, blocks: BlockSource | null): (height: number) => Promise<BlockTxids> {
  return async (height) => {
    if (blocks === null) throw noNode(chain);
    try {
      const block = await blocks.atHeight(index(), height);
      if (block === null) throw new RpcError('BAD_REQUEST', `no block at height ${height} in the index`);
      return { height, hash: block.hash, txids: (await blocks.body(block)).txids };
    } catch (err) {
      if (err instanceof ServingError) throw new RpcError('DAEMON_ERROR', `daemon error: ${err.message}`);
      throw err;
    }
  };
}
