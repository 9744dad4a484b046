-- The mempool view (src/store/postgres/mempool-writer.ts documents the invariants), as the SQLite
-- engine's (migrations/0002_mempool.sql) without history: keys are bytea, amounts bigint.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.

-- The node's mempool transactions whose inputs could be resolved; effect: src/store/mempool-effect.ts.
-- seq: the order they were added (state.mempool_seq, never reused).
CREATE TABLE mempool_txs (
  txid    bytea PRIMARY KEY,
  seq     bigint NOT NULL,
  outputs integer NOT NULL,
  effect  bytea NOT NULL
);

-- Spendable outputs of mempool_txs rows.
CREATE TABLE mempool_outputs (
  outpoint   bytea PRIMARY KEY,
  script_key bytea NOT NULL,
  value      bigint NOT NULL
);

-- Each input of each mempool_txs row: one spender per outpoint.
CREATE TABLE mempool_spends (
  outpoint bytea PRIMARY KEY,
  txid     bytea NOT NULL
);

-- = SUM of the effects in mempool_txs per script; no row when tx_count = 0.
CREATE TABLE mempool_scripts (
  script_key bytea PRIMARY KEY,
  received   bigint NOT NULL,
  sent       bigint NOT NULL,
  utxo_count bigint NOT NULL,
  tx_count   bigint NOT NULL
);

-- The last seq given to a mempool transaction.
ALTER TABLE state ADD COLUMN mempool_seq bigint NOT NULL DEFAULT 0;
