-- The opt-in UTXO listing (src/store/postgres/utxo-list.ts): its cursor key. The listing's index
-- (utxos_by_script) is no part of the schema: the writer builds it when the listing is turned on and
-- drops it when it is turned off, in the transactions that set and clear this column.
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema.

-- The key of the API's listing cursors; not null exactly while the listing is on (its index exists).
ALTER TABLE state ADD COLUMN utxo_list_secret bytea;
