-- The core of a chain's index in PostgreSQL (src/store/postgres/chain-writer.ts documents the invariants).
-- Run by the writer only, inside its migration transaction with search_path set to the chain's schema
-- (addrsum_btc, addrsum_ltc), so this file names no schema.

-- One row: which chain the schema holds, its tip, the node as last seen, and the totals at the tip.
CREATE TABLE state (
  one          boolean PRIMARY KEY DEFAULT true CHECK (one),
  chain        text NOT NULL,
  network      text NOT NULL,
  tip_height   integer,
  tip_hash     bytea,
  -- Header time of the tip, seconds since the epoch; null when unknown (e.g. just after a rollback).
  tip_time     bigint,
  node_height  integer,
  -- Milliseconds since the epoch.
  node_seen_at bigint,
  utxo_count   bigint NOT NULL DEFAULT 0,
  utxo_amount  bigint NOT NULL DEFAULT 0,
  script_count bigint NOT NULL DEFAULT 0
);

-- Exactly Core's UTXO set at the tip: outpoint = txid (internal order) || vout, big-endian, minimal length.
-- The fixed-width columns first: no alignment padding before `value`, 8 bytes less per row (BENCHMARKS.md
-- pg-bootstrap).
CREATE TABLE utxos (
  value      bigint NOT NULL,
  height     integer NOT NULL,
  outpoint   bytea PRIMARY KEY,
  script_key bytea NOT NULL
);

-- = SUM(value), COUNT(*) of the script's utxos; no row when the count is 0.
CREATE TABLE scripts (
  script_key bytea PRIMARY KEY,
  balance    bigint NOT NULL,
  utxo_count bigint NOT NULL
);

-- Heights 0..tip, each prev_hash = hash of the block below.
CREATE TABLE blocks (
  height        integer PRIMARY KEY,
  hash          bytea NOT NULL,
  prev_hash     bytea NOT NULL,
  coinbase_txid bytea
);

-- Undo records (src/store/undo.ts) of the heights (tip - undo depth, tip].
CREATE TABLE undo (
  height integer PRIMARY KEY,
  data   bytea NOT NULL
);

-- The change feed: one row per commit that moves the tip; the newest rows only.
-- kind: 1 block, 2 disconnect, 3 mempool; scripts: the touched 16-byte keys concatenated, null = every script.
CREATE TABLE changes (
  seq        bigint PRIMARY KEY,
  kind       smallint NOT NULL,
  tip_height integer,
  scripts    bytea
);
