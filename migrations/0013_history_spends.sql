-- 0013: the spend index (src/store/spend-key.ts): for every output a numbered transaction spent, the
-- spending transaction's number and input, kept by src/store/sqlite/history-store.ts with the rest of
-- history (each block's rows in its commit; a rollback removes the tip block's). Empty while history is
-- off. About 20 bytes a spent output (BENCHMARKS.md "history").
CREATE TABLE history_spends (
  spend_key BLOB NOT NULL,
  tx_num    INTEGER NOT NULL,
  vin       INTEGER NOT NULL,
  PRIMARY KEY (spend_key, tx_num, vin)
) STRICT, WITHOUT ROWID;

-- An index keeping history already has no rows for the inputs it numbered before this version: the spends
-- of transactions numbered from history_spends_from on are indexed, the earlier ones are not (readers say
-- "spent, by a transaction the index does not name"). Turning history off and on builds them all.
INSERT INTO meta (key, value) SELECT 'history_spends_from', value FROM meta WHERE key = 'history_next_tx';
