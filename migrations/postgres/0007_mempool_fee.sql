-- Each mempool transaction keeps its fee (transparent inputs minus outputs; NULL when the index cannot
-- give it: an MWEB part) and how many of its inputs spend outputs of other mempool transactions
-- (unconfirmed_inputs; kept current as parents are mined or removed), as the SQLite engine's
-- (migrations/0010_mempool_fee.sql). Invariants: src/store/postgres/mempool-writer.ts.
-- The rows stored before lack both, so the view starts again empty: the indexer's mempool follower
-- refills it from the node's mempool, as after a rollback.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
DELETE FROM mempool_outputs;
DELETE FROM mempool_spends;
DELETE FROM mempool_scripts;
DELETE FROM mempool_history;
DELETE FROM mempool_txs;

ALTER TABLE mempool_txs ADD COLUMN fee bigint, ADD COLUMN unconfirmed_inputs integer NOT NULL;
