-- 0004: each block's coinbase txid, so the UTXO listing (src/store/utxo-list.ts) can say which outputs
-- are coinbase outputs (spendable only after 100 blocks) without a byte per UTXO: an output is a coinbase
-- output exactly when its txid is the coinbase txid of the block at its height (BIP30 repeats included:
-- the repeated coin carries the later height). NULL for blocks indexed before this migration and for a
-- snapshot's base block: the listing answers `coinbase: null` (unknown) for outputs at those heights.
-- 32 bytes per block, nothing per UTXO. The listing's secondary index is not made here: it is opt-in.
ALTER TABLE blocks ADD COLUMN coinbase_txid BLOB;
