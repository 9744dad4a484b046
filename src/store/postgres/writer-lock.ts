/**
 * The one-writer rule for an index in PostgreSQL: a session advisory lock named after the chain's schema,
 * held by the writer's own connection for as long as it lives. A writer killed a moment ago still holds it
 * until the server notices its connection is gone, hence the retries.
 */
import type { PoolClient } from './pg-pool.js';

const LOCK_RETRY_MS = 100;

/** Tries the session lock until `waitMs` passed; false: another session holds it still. */
export async function takeWriterLock(client: PoolClient, name: string, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [name]);
    if (rows[0]?.ok) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}
