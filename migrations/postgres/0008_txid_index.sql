-- Which block holds a transaction, by txid (src/store/tx-block.ts): Electrum's blockchain.transaction.get
-- asks the node for a confirmed transaction with its block hash, since the node keeps no -txindex.
-- history_txs already holds every numbered transaction's txid, height and position; a b-tree on the
-- txid's first 4 bytes as an integer finds it, the candidates checked against the whole txid
-- (chain-reader.ts txBlock, which repeats this expression so that the planner uses the index). Measured
-- on a million random txids inserted in number order: 30 bytes a row, against 38 for a hash index on
-- txid and more for a b-tree on the whole txid. Empty while history is off, as history_txs.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
CREATE INDEX history_txs_by_txid ON history_txs ((('x' || encode(substring(txid FROM 1 FOR 4), 'hex'))::bit(32)::integer));
