-- Bootstrapping from a UTXO snapshot (src/store/postgres/snapshot-load.ts documents the load: its coins go
-- straight into utxos, in chunks, while that table has no key).
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.

-- The txid of the coinbase of each height at or below the base with a coinbase coin in the snapshot
-- (null: its coins disagree); complete up to state.snapshot_coinbase_height. Written by the load only.
CREATE TABLE snapshot_coinbase (
  height integer PRIMARY KEY,
  txid   bytea
);

-- base_height: the snapshot's base block (blocks rows run from it up; nothing at or below it rolls back).
-- bootstrap_*: an unfinished load (null: none): the base hash its committed chunks come from, how many
-- of the file's coins they hold, the outpoint of the last of them, and the progress readers show (JSON
-- {phase, coins, total}).
ALTER TABLE state
  ADD COLUMN base_height integer,
  ADD COLUMN snapshot_coinbase_height integer,
  ADD COLUMN bootstrap_base bytea,
  ADD COLUMN bootstrap_coins bigint,
  ADD COLUMN bootstrap_last bytea,
  ADD COLUMN bootstrap_progress text;
