-- 0005: the coinbase txid of each block at or below a snapshot's base that still has a coinbase output in
-- the snapshot, from the coins' coinbase flags (src/store/bulk-load.ts), so the UTXO listing can say
-- `coinbase` for outputs loaded from a snapshot. `blocks` has no rows below the base (a snapshot carries
-- no block hashes), so these heights get a table of their own; blocks.coinbase_txid (0004) serves the
-- blocks synced on top. Meta snapshot_coinbase_height (the base) says the table is complete up to it: a
-- height without a row there has no unspent coinbase output. Empty for an index synced from genesis,
-- and for one bootstrapped before this migration (no marker: its snapshot heights stay unknown).
-- txid NULL: the snapshot's coinbase coins at that height disagree (no valid chainstate has that): unknown.
CREATE TABLE snapshot_coinbase (
  height INTEGER PRIMARY KEY,
  txid   BLOB
) STRICT;
