/**
 * The one place node-postgres is loaded: a bounded pool on a postgres:// URL, and what its failures mean.
 *
 * Every wait is bounded, so a database that is down or full never hangs a caller: connecting gives up
 * after CONNECT_TIMEOUT_MS, a statement after STATEMENT_TIMEOUT_MS (enforced by the server, and by the
 * client should the server not answer at all), and an idle connection that dies (server restarted,
 * standby promoted) is dropped by the pool with an 'error' event, which is reported, never thrown.
 * A pool with `maxWaiting` also bounds its queue: while every connection is busy and that many callers
 * wait already, the next is refused at once with StoreError BUSY (an API answers 503 rather than pile up
 * requests that would each wait out the connect timeout).
 */
import pg from 'pg';
import { StoreError } from '../errors.js';

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
  /** Callers that may wait for a connection while all are busy; the next is refused with BUSY. Default: no bound. */
  readonly maxWaiting?: number;
}

type ConnectCallback = (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void;

/** pg.Pool whose queue of callers waiting for a connection is bounded; pool.query() connects through connect() too. */
class BoundedPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private readonly maxWaiting: number,
    private readonly label: string,
  ) {
    super(config);
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    if (this.waitingCount >= this.maxWaiting) {
      const err = new StoreError(
        'BUSY',
        `every connection of ${this.label} is in use and ${this.maxWaiting} callers wait already: the database is overloaded or slow`,
      );
      if (!callback) return Promise.reject(err);
      process.nextTick(() => callback(err, undefined, () => undefined));
      return;
    }
    if (!callback) return super.connect();
    super.connect(callback);
  }
}

export function openPool(url: string, opts: PoolOptions): Pool {
  const pool = new BoundedPool(
    {
      connectionString: url,
      max: opts.max,
      application_name: opts.name,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
      query_timeout: (opts.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS) + 1000,
      idleTimeoutMillis: 30_000,
      // An API's standby is often on another machine: a server that vanished without closing the
      // connection (power, network partition) is noticed by TCP keepalive, not only by the next timeout.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
    opts.maxWaiting ?? Infinity,
    opts.name,
  );
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

/**
 * Why a read failed when the database, not the request, is at fault: unreachable, overloaded, slow, or a
 * standby cancelling a read that conflicts with replay; null for anything else (a bug: the caller's 500).
 * Worded for an API answer ("… its index database cannot be reached").
 */
export function readFailure(err: unknown): string | null {
  if (err instanceof StoreError && err.code === 'BUSY') return 'its index database is overloaded (every connection busy); retry shortly';
  const state = sqlState(err);
  if (state === undefined) {
    // node-postgres's own failures carry no SQLSTATE: a refused or cut connection, or its connect timeout.
    const message = err instanceof Error ? err.message : String(err);
    if (/timeout exceeded when trying to connect/i.test(message)) return 'its index database did not answer in time';
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' || /connection|terminated|ECONN|ETIMEDOUT|EHOSTUNREACH/i.test(message))
      return `its index database cannot be reached (${code ?? message})`;
    return null;
  }
  if (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300')
    return `its index database cannot be reached (${describe(err)})`;
  if (state === '57014') return 'a read of its index database took too long; retry shortly';
  // On a hot standby: a read cancelled because replay needed the rows it held (max_standby_streaming_delay).
  if (state === '40001' || state === '40P01') return 'its index database cancelled a read (standby replay conflict); retry shortly';
  if (isMissingSchema(err)) return 'its index does not exist in the database (is the indexer running?)';
  return null;
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

/** The longest read timeout node-postgres can arm (setTimeout's limit): no client-side bound in practice. */
export const NO_READ_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Inside a transaction: one statement that may take far longer than the pool's timeouts allow (an index
 * over every UTXO, a snapshot's build: minutes at mainnet size), with the server's statement timeout
 * lifted for the rest of the transaction and no client-side read timeout for this statement.
 */
export async function longStatement<R extends pg.QueryResultRow = Record<string, unknown>>(
  client: Queryable,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  await client.query('SET LOCAL statement_timeout = 0');
  // node-postgres honours a per-query query_timeout; its QueryConfig type does not list it.
  return client.query<R>({ text, values, query_timeout: NO_READ_TIMEOUT_MS } as pg.QueryConfig);
}
