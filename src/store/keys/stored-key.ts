/** A key as both key stores hold it in a row (keys.sqlite, PostgreSQL), and its record for the ports. */
import type { StoredKey } from '../ports.js';
import { isTier } from './tier.js';

export interface StoredKeyRow {
  id: string;
  digest: Buffer;
  tier: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

/** `source` names the store in the error about a row no release of ours wrote. */
export function storedKey(row: StoredKeyRow, source: string): StoredKey {
  if (!isTier(row.tier)) throw new Error(`${source}: key ${row.id} has an unknown tier`);
  return { id: row.id, digest: row.digest, tier: row.tier, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at };
}
