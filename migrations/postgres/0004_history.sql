-- Address history (src/store/postgres/history-writer.ts documents the invariants), with the semantics of
-- the SQLite engine's (migrations/0006_history.sql, 0007_mempool_history.sql) in a layout of its own: one
-- row per (script, transaction) rather than packed chunks. Every table stays empty while history is off.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.

-- history: 0 off, 1 kept for every block, 2 being built (history_built: the last built height, −1 none;
-- history_built_hash: that block's hash). history_secret seals the page cursors (src/api/history-cursor.ts).
ALTER TABLE state ADD COLUMN history smallint NOT NULL DEFAULT 0;
ALTER TABLE state ADD COLUMN history_secret bytea;
ALTER TABLE state ADD COLUMN history_built integer;
ALTER TABLE state ADD COLUMN history_built_hash bytea;

-- Every transaction of the blocks history covers, numbered in chain order from 0 (src/store/history-change.ts).
CREATE TABLE history_txs (
  tx_num   bigint PRIMARY KEY,
  txid     bytea NOT NULL,
  height   integer NOT NULL,
  position integer NOT NULL
);

-- One row per transaction paying to or spending from a script, keyed by the script's history key (its
-- key's first 12 bytes, src/store/history-chunk.ts); script_key names it to the change feed on a rollback.
CREATE TABLE history (
  history_key bytea NOT NULL,
  tx_num      bigint NOT NULL,
  script_key  bytea NOT NULL,
  received    bigint NOT NULL,
  sent        bigint NOT NULL,
  funded      integer NOT NULL,
  spent       integer NOT NULL,
  PRIMARY KEY (history_key, tx_num)
);
-- A rollback removes the tip block's rows: those numbered from its first transaction on.
CREATE INDEX history_by_tx ON history (tx_num);

-- = COUNT(*), SUM(received, sent, funded, spent) of the history rows of a history key; no row when none.
CREATE TABLE history_scripts (
  history_key bytea PRIMARY KEY,
  tx_count    bigint NOT NULL,
  received    bigint NOT NULL,
  sent        bigint NOT NULL,
  funded      bigint NOT NULL,
  spent       bigint NOT NULL
);

-- While history is kept: one row per mempool transaction and script its effect touches.
CREATE TABLE mempool_history (
  script_key bytea NOT NULL,
  seq        bigint NOT NULL,
  txid       bytea NOT NULL,
  received   bigint NOT NULL,
  sent       bigint NOT NULL,
  PRIMARY KEY (script_key, seq)
);

-- Only while history is being built: the UTXO set at history_built, shaped as utxos.
CREATE TABLE history_build_utxos (
  value      bigint NOT NULL,
  height     integer NOT NULL,
  outpoint   bytea PRIMARY KEY,
  script_key bytea NOT NULL
);
