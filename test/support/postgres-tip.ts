/** Where an LTC regtest index in PostgreSQL stands, read as an API would (a primary or a standby). */
import type { IndexedTip } from '../../harness/indexer-world.js';
import { openPostgresReader } from '../../src/store/postgres/engine.js';

/** The tip of the LTC index in the database at `url`; null while it does not exist or cannot be read. */
export async function tipIn(url: string): Promise<IndexedTip | null> {
  try {
    const reader = await openPostgresReader(url, { chain: 'LTC', network: 'regtest' });
    try {
      const status = await reader.status();
      return status && { height: status.tipHeight, hash: status.tipHash };
    } finally {
      await reader.close();
    }
  } catch {
    return null;
  }
}
