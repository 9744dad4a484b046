/**
 * Which block holds a transaction (IndexReader.txBlock): the node answers getrawtransaction for a
 * confirmed transaction without -txindex only when told its block, so Electrum's
 * blockchain.transaction.get looks the block up here. Only transactions numbered by history are known
 * (every transaction of every block history covers): null for any other.
 */
export interface TxBlock {
  readonly height: number;
  /** The block's hash, internal byte order. */
  readonly hash: Buffer;
  /** The transaction's position in its block (0: the coinbase). */
  readonly position: number;
  /** Its number in the whole chain (history-chunk.ts): where a history page after it starts. */
  readonly txNum: number;
}

/**
 * The first bytes of a txid (internal order) the SQLite engine indexes it by (migrations/0011): 6 bytes
 * make a false candidate (checked against the stored txid) one lookup in ~10^5 at a billion transactions.
 */
export const TXID_PREFIX_BYTES = 6;

/** The part of a txid (internal order) the SQLite engine indexes it by. */
export const txidPrefix = (txid: Buffer): Buffer => txid.subarray(0, TXID_PREFIX_BYTES);
