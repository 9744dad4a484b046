-- 0010: each mempool transaction keeps its fee (transparent inputs minus outputs; NULL when the index
-- cannot give it: an MWEB part) and how many of its inputs spend outputs of other mempool transactions
-- (unconfirmed_inputs; kept current as parents are mined or removed), both listed with the transaction
-- by Electrum's get_history. Layout and invariants: src/store/sqlite/mempool-store.ts.
--
-- The rows stored before this version lack both, so the view starts again empty: the indexer's mempool
-- follower refills it from the node's mempool (a reconcile adds everything it lacks), as after 0007 and
-- after a rollback.

DELETE FROM mempool_outputs;
DELETE FROM mempool_spends;
DELETE FROM mempool_scripts;
DELETE FROM mempool_history;

DROP TABLE mempool_txs;
CREATE TABLE mempool_txs (
  txid               BLOB PRIMARY KEY NOT NULL,
  seq                INTEGER NOT NULL,
  outputs            INTEGER NOT NULL,
  effect             BLOB NOT NULL,
  fee                INTEGER,
  unconfirmed_inputs INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
