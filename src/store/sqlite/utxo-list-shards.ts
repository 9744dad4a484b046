/**
 * The UTXO listing's index, as 16 partial indexes of utxos (script_key, height, outpoint), one per high
 * nibble of script_key (utxo-list.ts builds them, utxo-page.ts reads them). Script keys are SHA-256
 * prefixes, so each shard holds about 1/16 of the UTXOs, and each row lands in exactly one shard:
 * SQLite keeps all of them on the write path at the cost of one index.
 *
 * SQLite uses a partial index only for a query whose WHERE repeats the index's WHERE terms literally
 * (AND-connected), so every reader builds its WHERE from shardTerms(), the same text the index holds.
 */

export const UTXO_LIST_SHARDS = 16;

/** The single, unsharded index of an earlier (unreleased) build: dropped and replaced by the shards. */
export const LEGACY_UTXO_LIST_INDEX = 'utxos_by_script';

/** The shard holding a script key's rows: the high nibble of its first byte. */
export function shardOf(scriptKey: Buffer): number {
  return scriptKey[0]! >> 4;
}

export function shardIndexName(shard: number): string {
  return `${LEGACY_UTXO_LIST_INDEX}_${shard.toString(16)}`;
}

/**
 * The shard's key range as SQL terms on `column`: [shard·16, (shard+1)·16) on the first byte. The first
 * shard has no lower bound and the last no upper one (every key is ≥ X'00' and < X'ff…' anyway).
 */
export function shardTerms(shard: number, column = 'script_key'): string {
  const byte = (n: number): string => `X'${n.toString(16).padStart(2, '0')}'`;
  const terms: string[] = [];
  if (shard > 0) terms.push(`${column} >= ${byte(shard << 4)}`);
  if (shard < UTXO_LIST_SHARDS - 1) terms.push(`${column} < ${byte((shard + 1) << 4)}`);
  return terms.join(' AND ');
}

export function shardIndexSql(shard: number): string {
  return `CREATE INDEX ${shardIndexName(shard)} ON utxos (script_key, height, outpoint) WHERE ${shardTerms(shard)}`;
}

export const ALL_SHARDS: readonly number[] = Array.from({ length: UTXO_LIST_SHARDS }, (_, k) => k);
