-- 0011: which block holds a transaction, by txid (src/store/tx-block.ts): Electrum's
-- blockchain.transaction.get asks the node for a confirmed transaction with its block hash, since the node
-- keeps no -txindex. history_txids holds every numbered txid in number order; this table finds a number
-- by the txid's first 6 bytes (TXID_PREFIX_BYTES), the candidates checked against history_txids, so it
-- stays ~17 bytes a transaction (measured: test/unit/store-migrate.test.ts) instead of a whole txid's 32. Kept by src/store/sqlite/history-store.ts
-- with history_txids (each block's rows in its commit, a rollback's removed in it); empty while history
-- is off.
CREATE TABLE history_txid_index (
  prefix BLOB NOT NULL,
  tx_num INTEGER NOT NULL,
  PRIMARY KEY (prefix, tx_num)
) STRICT, WITHOUT ROWID;

-- An index keeping history already: every numbered txid, 126 to a history_txids row (TXIDS_PER_ROW).
WITH RECURSIVE slot(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM slot WHERE i < 125)
INSERT INTO history_txid_index (prefix, tx_num)
SELECT substr(t.txids, slot.i * 32 + 1, 6), t.grp * 126 + slot.i
FROM history_txids AS t JOIN slot ON slot.i * 32 < length(t.txids)
ORDER BY 1, 2;
