-- 0006: address history (chains.<C>.history; src/store/history-chunk.ts, src/store/sqlite/history-store.ts).
-- Every table stays empty while history is off (meta history absent); with it on, each is written in the
-- transaction of the blocks it describes, as the UTXO set is.

-- A script's history: chunk 0 is its head (totals and newest entries); a sealed chunk is keyed by 1 + the
-- transaction number of its newest entry, so newest-first paging walks the keys downwards.
CREATE TABLE history (
  script_key BLOB NOT NULL,
  chunk      INTEGER NOT NULL,
  data       BLOB NOT NULL,
  PRIMARY KEY (script_key, chunk)
) STRICT, WITHOUT ROWID;

-- Transaction numbers per block: first_tx is the number of the block's first transaction.
CREATE TABLE history_blocks (
  first_tx INTEGER PRIMARY KEY,
  height   INTEGER NOT NULL
) STRICT;

-- txids by transaction number, 64 to a row: row grp holds numbers 64·grp … 64·grp+63, 32 bytes each
-- (internal byte order), so a txid costs 32 bytes and one rowid lookup.
CREATE TABLE history_txids (
  grp   INTEGER PRIMARY KEY,
  txids BLOB NOT NULL
) STRICT;

-- Before-images of the heads a block changed (history-store.ts), for its rollback: only heights in the
-- undo window, like undo.
CREATE TABLE history_undo (
  height INTEGER PRIMARY KEY,
  data   BLOB NOT NULL
) STRICT;
