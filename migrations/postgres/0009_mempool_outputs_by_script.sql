-- The mempool's outputs by script (utxo-page.ts mempoolPageSql): a wallet's UTXO page with
-- ?mempool=true reads each derived script's unconfirmed outputs after an outpoint, and mempool_outputs
-- was keyed by outpoint only, so each script's LATERAL subquery scanned the whole table (the hostile
-- probe's 20,000 scripts against 3,000 mempool transactions hit the 5 s statement timeout every time).
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.
CREATE INDEX mempool_outputs_by_script ON mempool_outputs (script_key, outpoint);
