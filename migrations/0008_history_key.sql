-- 0008: history format 2 (src/store/history-chunk.ts): history rows keyed by the first 12 bytes of the
-- script key, and a head with no sealed chunk stored without its leading 0 (one with sealed chunks starts
-- with the byte 3 instead). An index keeping history is converted in place, in key order, which also packs
-- the table's pages; its undo records keep their format-1 heads, which history-store.ts reads as format 2.
-- Only a script key's prefix changes, so key order is kept and no two rows meet, unless two scripts' keys
-- share 12 bytes (the collision history-chunk.ts describes, made on purpose by whoever controls both): then
-- the first one's rows win, `npm run verify` names the difference, and turning history off and on again
-- rebuilds their shared history. Refusing instead would leave an index that no version can open.

CREATE TABLE history_v2 (
  script_key BLOB NOT NULL,
  chunk      INTEGER NOT NULL,
  data       BLOB NOT NULL,
  PRIMARY KEY (script_key, chunk)
) STRICT, WITHOUT ROWID;

-- Concatenation yields text: the cast takes its bytes back as a blob, unchanged.
INSERT OR IGNORE INTO history_v2 (script_key, chunk, data)
SELECT substr(script_key, 1, 12), chunk,
       CASE WHEN chunk > 0 THEN data
            WHEN substr(data, 1, 1) = x'00' THEN substr(data, 2)
            ELSE CAST(x'03' || data AS BLOB) END
FROM history ORDER BY script_key, chunk;

DROP TABLE history;
ALTER TABLE history_v2 RENAME TO history;

UPDATE meta SET value = 2 WHERE key = 'history_format';
