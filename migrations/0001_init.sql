-- 0001: the chain index. Layout and invariants are documented at the top of src/store/chain-store.ts.
-- Applied by src/store/migrate.ts inside one transaction (no BEGIN/COMMIT here); only the indexer migrates.
-- Every table is STRICT so a float can never slip into a satoshi column.

-- Key/value facts about this file: chain, network, schema_version, tip_height, tip_hash, node_height,
-- node_seen_at, running totals (utxo_count, utxo_amount, script_count), writer_pid.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value ANY
) STRICT, WITHOUT ROWID;

-- One row per unspent, spendable output. outpoint = txid (32 bytes, internal order) ‖ vout as 1–4
-- big-endian bytes, minimal length. script_key = first 16 bytes of SHA-256(scriptPubKey).
CREATE TABLE utxos (
  outpoint   BLOB PRIMARY KEY NOT NULL,
  script_key BLOB NOT NULL,
  value      INTEGER NOT NULL,
  height     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Per-script aggregate of utxos: balance = SUM(value), utxo_count = COUNT(*). No row when the count is 0.
CREATE TABLE scripts (
  script_key BLOB PRIMARY KEY NOT NULL,
  balance    INTEGER NOT NULL,
  utxo_count INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Every indexed block, 0..tip (height is the rowid: no separate index).
CREATE TABLE blocks (
  height    INTEGER PRIMARY KEY,
  hash      BLOB NOT NULL,
  prev_hash BLOB NOT NULL
) STRICT;

-- Undo data (src/store/undo.ts format) for the last undoDepth blocks only.
CREATE TABLE undo (
  height INTEGER PRIMARY KEY,
  data   BLOB NOT NULL
) STRICT;
