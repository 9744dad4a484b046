-- 0009: every block's 80-byte header, heights 0..tip, for serving headers without the node (the future
-- Electrum server). Layout and invariants: src/store/header-chain.ts. The rows are always one contiguous
-- run ending at the tip: blocks add theirs in their own transaction, a rollback removes the tip's, and the
-- indexer's backfill adds runs below the lowest, down to genesis. An index of an older version (or one
-- bootstrapped from a snapshot) starts with none: its indexer fills them from the node at start.
-- A table apart from `blocks`, whose rows start at a snapshot's base; height is the rowid (no other index).
CREATE TABLE headers (
  height INTEGER PRIMARY KEY,
  header BLOB NOT NULL
) STRICT;
