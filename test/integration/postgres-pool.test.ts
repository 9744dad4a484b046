/**
 * The bounded pool (src/store/postgres/pg-pool.ts) on a real cluster this suite starts: an exhausted pool
 * queues a bounded number of callers, refuses the next at once with BUSY, and times a waiter out; a slow
 * statement is cancelled; a dead server is said to be unreachable. Each failure is worded by readFailure
 * for the API's 503, and nothing hangs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrimary, type PgCluster } from '../../harness/postgres.js';
import { StoreError } from '../../src/store/errors.js';
import { openPool, readFailure } from '../../src/store/postgres/pg-pool.js';

describe('postgres pool bounds', () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    cluster = await startPrimary();
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('queues up to maxWaiting callers, refuses the next with BUSY at once, and times a waiter out', async () => {
    const pool = openPool(cluster.url, { max: 1, maxWaiting: 1, name: 'addrsum-test-bounded' });
    try {
      const held = await pool.connect();
      const waiting = pool.query('SELECT 1 AS one');
      const refused = await pool.query('SELECT 1 AS one').then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(StoreError);
      expect((refused as StoreError).code).toBe('BUSY');
      expect(readFailure(refused)).toMatch(/overloaded/);
      // The one waiter gives up after the connect timeout: a bounded wait, never a hang.
      const timedOut = await waiting.then(
        () => null,
        (err: unknown) => err,
      );
      expect(readFailure(timedOut)).toMatch(/did not answer in time/);
      held.release();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
  }, 30_000);

  it('cancels a statement past its timeout and says so', async () => {
    const pool = openPool(cluster.url, { max: 1, name: 'addrsum-test-slow', statementTimeoutMs: 200 });
    try {
      const err = await pool.query('SELECT pg_sleep(5)').then(
        () => null,
        (e: unknown) => e,
      );
      expect(readFailure(err)).toMatch(/took too long/);
    } finally {
      await pool.end();
    }
  }, 30_000);

  it('says the database cannot be reached while it is down, and serves again once it is back', async () => {
    const pool = openPool(cluster.url, { max: 2, name: 'addrsum-test-down', onIdleError: () => undefined });
    try {
      await pool.query('SELECT 1');
      await cluster.kill();
      const err = await pool.query('SELECT 1').then(
        () => null,
        (e: unknown) => e,
      );
      expect(readFailure(err)).toMatch(/cannot be reached/);
      // Anything else is a bug, answered 500: not every error is the database's fault.
      expect(readFailure(new TypeError('x is undefined'))).toBeNull();
      await cluster.restart();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
