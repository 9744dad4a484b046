-- 0007: the mempool view keeps, per script, what mempool transactions pay to it and spend from it (not
-- only the difference), and with history kept (meta history = 1) each script's mempool transactions in
-- the order the index learned of them. Layout and invariants: src/store/sqlite/mempool-store.ts.
--
-- The effects stored before this version lack those figures, so the view starts again empty: the
-- indexer's mempool follower refills it from the node's mempool (a reconcile adds everything it lacks),
-- as it does after a rollback.

DELETE FROM mempool_outputs;
DELETE FROM mempool_spends;

-- seq: the order the index learned of the transaction (meta mempool_seq holds the last one given; never
-- reused, so a page cursor in the mempool part never meets a transaction that arrived after it).
DROP TABLE mempool_txs;
CREATE TABLE mempool_txs (
  txid    BLOB PRIMARY KEY NOT NULL,
  seq     INTEGER NOT NULL,
  outputs INTEGER NOT NULL,
  effect  BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- Per-script sums of the effects: received and sent (Δ balance = received − sent), Δ UTXO count, and the
-- mempool transactions touching the script. No row when tx_count = 0.
DROP TABLE mempool_scripts;
CREATE TABLE mempool_scripts (
  script_key BLOB PRIMARY KEY NOT NULL,
  received   INTEGER NOT NULL,
  sent       INTEGER NOT NULL,
  utxo_count INTEGER NOT NULL,
  tx_count   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Only while history is kept: one row per mempool transaction and script it touches, newest (highest
-- seq) last, so a script's unconfirmed history reads newest first from one key range.
CREATE TABLE mempool_history (
  script_key BLOB NOT NULL,
  seq        INTEGER NOT NULL,
  txid       BLOB NOT NULL,
  received   INTEGER NOT NULL,
  sent       INTEGER NOT NULL,
  PRIMARY KEY (script_key, seq)
) STRICT, WITHOUT ROWID;
