/**
 * What the mempool follower asks the node: its tip, its mempool's txids, and raw mempool transactions.
 * getrawtransaction finds mempool transactions without -txindex; one that left the mempool since
 * getrawmempool answers RPC -5, which is not an error here but "gone" (null).
 */
import { NodeError, type NodeClient } from '../src/node/node-client.js';
import { RPC_INVALID_ADDRESS_OR_KEY } from '../src/node/rpc-errors.js';

export interface MempoolSource {
  /** The node's best block hash (display hex). */
  bestBlockHash(): Promise<string>;
  /** Txids in the node's mempool (display hex). */
  mempoolTxids(): Promise<string[]>;
  /** Raw transactions in the order asked; null for one no longer in the mempool. */
  rawTransactions(txids: readonly string[]): Promise<Array<Buffer | null>>;
}

const TXID = /^[0-9a-f]{64}$/;

export function nodeMempoolSource(client: NodeClient, concurrency = 8): MempoolSource {
  const one = async (txid: string): Promise<Buffer | null> => {
    try {
      const hex = await client.call<unknown>('getrawtransaction', [txid, false]);
      if (typeof hex !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(hex)) {
        throw new NodeError('BAD_RESPONSE', `getrawtransaction ${txid} did not return hex`, false, { request: 'getrawtransaction' });
      }
      return Buffer.from(hex, 'hex');
    } catch (err) {
      if (err instanceof NodeError && err.details.rpcCode === RPC_INVALID_ADDRESS_OR_KEY) return null;
      throw err;
    }
  };
  return {
    bestBlockHash: () => client.getBestBlockHash(),
    mempoolTxids: async () => {
      const list = await client.call<unknown>('getrawmempool', [false]);
      if (!Array.isArray(list) || !list.every((t): t is string => typeof t === 'string' && TXID.test(t))) {
        throw new NodeError('BAD_RESPONSE', 'getrawmempool did not return a list of txids', false, { request: 'getrawmempool' });
      }
      return list;
    },
    rawTransactions: async (txids) => {
      const out = new Array<Buffer | null>(txids.length).fill(null);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < txids.length) {
          const i = next++;
          out[i] = await one(txids[i]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, txids.length) }, worker));
      return out;
    },
  };
}
