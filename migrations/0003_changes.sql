-- 0003: the change feed (src/store/change-feed.ts): which scripts each committed block, disconnection
-- and mempool update touched, so API processes push new summaries without re-reading every subscription.
-- Written by the indexer in the same transaction as the change it describes; the oldest rows are pruned
-- in that transaction too (at most FEED_KEEP rows are kept).

-- seq is the rowid: rows are only ever deleted from the old end, so it keeps growing.
-- kind: 1 block(s) connected, 2 tip block disconnected, 3 mempool update.
-- tip_height: the tip after a block or disconnection entry (NULL: empty index, or a mempool entry).
-- scripts: the touched script keys (16 bytes each) concatenated; NULL = too many to list, every script
-- may have changed.
CREATE TABLE changes (
  seq        INTEGER PRIMARY KEY,
  kind       INTEGER NOT NULL,
  tip_height INTEGER,
  scripts    BLOB
) STRICT;
