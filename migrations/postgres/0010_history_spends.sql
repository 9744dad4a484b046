-- The spend index (src/store/spend-key.ts), with the semantics of the SQLite engine's
-- (migrations/0013_history_spends.sql): for every output a numbered transaction spent, the spending
-- transaction's number and input, keyed by the spent output's txid prefix and vout. Written with the
-- rest of history (history-rows.ts); empty while history is off.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
CREATE TABLE history_spends (
  spend_key bytea NOT NULL,
  tx_num    bigint NOT NULL,
  vin       integer NOT NULL,
  PRIMARY KEY (spend_key, tx_num, vin)
);

-- The spend index holds the inputs of the transactions numbered from this on: 0 for history started with
-- it, the next number for an index keeping history before this version; NULL while history is off.
ALTER TABLE state ADD COLUMN history_spends_from bigint;
UPDATE state SET history_spends_from = (SELECT COALESCE(MAX(tx_num) + 1, 0) FROM history_txs) WHERE history <> 0;
