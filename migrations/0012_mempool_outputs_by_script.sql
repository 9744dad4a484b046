-- 0012: the mempool's outputs by script (src/store/sqlite/utxo-page.ts): a wallet's UTXO page with
-- ?mempool=true reads each derived script's unconfirmed outputs, and mempool_outputs was keyed by
-- outpoint only, so every script scanned the whole table (the hostile probe's 20,000 scripts against
-- 3,000 mempool transactions took about 17 s). With the index each script's outputs are one range
-- scan. Kept with the table by src/store/sqlite/mempool-store.ts; the outpoint (the key) ends each entry.
CREATE INDEX mempool_outputs_by_script ON mempool_outputs (script_key);
