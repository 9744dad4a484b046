/**
 * The one place pg-copy-streams is loaded: COPY … FROM STDIN on a connection of pg-pool.ts, fed from an
 * iterable of Buffers (copy-binary.ts makes them) with the socket's backpressure: a chunk is asked for
 * only when the last one was taken, so a file larger than memory streams through.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { PoolClient } from './pg-pool.js';

/**
 * Runs `sql` (a COPY … FROM STDIN) with `data` as its input; returns the rows the server took.
 * `timeoutMs`: how long the client waits for the whole copy (the pool's statement bound otherwise;
 * the server's statement_timeout applies as set on the session).
 */
export async function copyIn(client: PoolClient, sql: string, data: Iterable<Buffer>, timeoutMs?: number): Promise<number> {
  const stream = copyFrom(sql);
  // node-postgres reads a per-query bound from the submitted query's query_timeout.
  if (timeoutMs !== undefined) Object.assign(stream, { query_timeout: timeoutMs });
  const done = client.query(stream);
  await pipeline(Readable.from(data, { objectMode: false }), done);
  return stream.rowCount;
}
