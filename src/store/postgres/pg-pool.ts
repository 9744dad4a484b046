/**
 * The one place node-postgres is loaded: a bounded pool on a postgres:// URL, and what its failures mean.
 *
 * Every wait is bounded, so a database that is down or full never hangs a caller: connecting gives up
 * after CONNECT_TIMEOUT_MS, a statement after STATEMENT_TIMEOUT_MS (enforced by the server, and by the
 * client should the server not answer at all), and an idle connection that dies (server restarted,
 * standby promoted) is dropped by the pool with an 'error' event, which is reported, never thrown.
 */
import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export const CONNECT_TIMEOUT_MS = 2000;
export const STATEMENT_TIMEOUT_MS = 5000;

export interface PoolOptions {
  /** Connections at most. */
  readonly max: number;
  /** Set as application_name, so an operator sees which process holds a connection (pg_stat_activity). */
  readonly name: string;
  /** Overrides STATEMENT_TIMEOUT_MS: the indexer's big catch-up commits need longer than an API read. */
  readonly statementTimeoutMs?: number;
  /** An idle connection failed (the pool drops it and opens another when next needed). */
  readonly onIdleError?: (err: Error) => void;
}

export function openPool(url: string, opts: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max,
    application_name: opts.name,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
    query_timeout: (opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS) + 1000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => opts.onIdleError?.(err));
  return pool;
}

/** SQLSTATE of a server error, or undefined (a connection or client failure). */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The schema or table is not there: nothing was ever written (3F000 invalid_schema_name, 42P01 undefined_table). */
export function isMissingSchema(err: unknown): boolean {
  const state = sqlState(err);
  return state === '3F000' || state === '42P01';
}

/** A message that names what failed without the URL's password (node-postgres never puts it in messages). */
export function describe(err: unknown): string {
  const state = sqlState(err);
  const message = err instanceof Error ? err.message : String(err);
  return state ? `${message} (SQLSTATE ${state})` : message;
}

/** A client that runs statements: a pool, or one connection taken from it. */
export type Queryable = Pick<PoolClient, 'query'>;

/**
 * Runs `body` in one transaction on `client` (BEGIN … COMMIT; ROLLBACK when it throws, so a refusal
 * writes nothing). `snapshot`: REPEATABLE READ READ ONLY, every statement of `body` reading the one
 * snapshot of its first.
 */
export async function inTransaction<T>(client: Queryable, body: () => Promise<T>, mode: 'write' | 'snapshot' = 'write'): Promise<T> {
  await client.query(mode === 'snapshot' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
  try {
    const result = await body();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Runs `body` in one transaction on a connection of `pool`, given back afterwards. */
export async function withTransaction<T>(
  pool: Pool,
  body: (client: PoolClient) => Promise<T>,
  mode: 'write' | 'snapshot' = 'write',
): Promise<T> {
  const client = await pool.connect();
  try {
    return await inTransaction(client, () => body(client), mode);
  } finally {
    client.release();
  }
}

/**
 * One statement with its own client-side bound instead of the pool's (a bulk build takes minutes at
 * mainnet size); the server's statement_timeout is the caller's to lift (SET LOCAL) for the same span.
 */
export function queryWithin<R extends pg.QueryResultRow = Record<string, unknown>>(
  client: Queryable,
  timeoutMs: number,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  // node-postgres honours a per-query query_timeout; its QueryConfig type does not list it.
  return client.query<R>({ text, values, query_timeout: timeoutMs } as pg.QueryConfig);
}
