-- Which block holds a transaction, by txid (src/store/tx-block.ts): Electrum's blockchain.transaction.get
-- asks the node for a confirmed transaction with its block hash, since the node keeps no -txindex.
-- history_txs already holds every numbered transaction's txid, height and position; a hash index finds
-- one by its txid for a few bytes a row (a hash code and a row pointer), where a b-tree would copy the
-- 32-byte txid. Empty while history is off, as history_txs.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
CREATE INDEX history_txs_by_txid ON history_txs USING hash (txid);
