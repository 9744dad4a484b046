-- Every block's 80-byte header, heights 0..tip, for serving headers without the node (the future Electrum
-- server). Invariants: src/store/header-chain.ts: one contiguous run ending at the tip; blocks add theirs
-- in their own transaction, a rollback removes the tip's, the indexer's backfill adds runs below the
-- lowest down to genesis. A schema of an older version (or one bootstrapped from a snapshot) starts with
-- none: its indexer fills them from the node at start. Apart from `blocks`, whose rows start at a
-- snapshot's base.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
CREATE TABLE headers (
  height integer PRIMARY KEY,
  header bytea NOT NULL
);
