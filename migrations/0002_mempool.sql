-- 0002: the node's mempool as per-script deltas, beside the confirmed index so the API reads both in one
-- statement. Layout and invariants are documented at the top of src/store/mempool-store.ts.
-- Maintained by the indexer only; a confirmed block removes its mined and conflicting transactions in
-- the same SQLite transaction that connects it, and a rollback empties these tables (re-read from the node).

-- One row per mempool transaction we hold. effect = its inputs' outpoints and its per-script deltas
-- (mempool-effect.ts format), so removing it subtracts exactly what adding it added.
CREATE TABLE mempool_txs (
  txid    BLOB PRIMARY KEY NOT NULL,
  outputs INTEGER NOT NULL,
  effect  BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- Spendable outputs created by mempool transactions (outpoint key as in utxos): what a child in the
-- mempool spends.
CREATE TABLE mempool_outputs (
  outpoint   BLOB PRIMARY KEY NOT NULL,
  script_key BLOB NOT NULL,
  value      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Which mempool transaction spends an outpoint (confirmed or not): conflicts, replacements, descendants.
CREATE TABLE mempool_spends (
  outpoint BLOB PRIMARY KEY NOT NULL,
  txid     BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- Per-script sum of the effects in mempool_txs: balance and utxo_count deltas (may be negative),
-- tx_count = mempool transactions touching the script. No row when tx_count = 0.
CREATE TABLE mempool_scripts (
  script_key BLOB PRIMARY KEY NOT NULL,
  balance    INTEGER NOT NULL,
  utxo_count INTEGER NOT NULL,
  tx_count   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
