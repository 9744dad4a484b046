/**
 * The PostgreSQL harness: a primary and a streaming hot standby of its own, on free loopback ports;
 * the standby serves the primary's rows read-only, survives the primary's SIGKILL, and takes writes once
 * promoted; a SIGKILLed primary restarts with its rows. stop() leaves no server process behind.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids, processAlive } from '../../harness/pg-runner.js';
import { promote, startPrimary, startStandby, waitForReplay, type PgCluster } from '../../harness/postgres.js';

const OWNER = fileURLToPath(new URL('../support/postgres-owner-child.ts', import.meta.url));
const started: PgCluster[] = [];
/** Every server process seen (postmasters and their children), to check that none outlives stop(). */
const seen = new Set<number>();

function note(c: PgCluster): void {
  const pid = c.pid;
  if (pid === undefined) throw new Error(`cluster on port ${c.port} is not running`);
  seen.add(pid);
  for (const child of childPids(pid)) seen.add(child);
}

async function allGone(pids: number[], withinMs: number): Promise<number[]> {
  for (const end = Date.now() + withinMs; Date.now() < end; await sleep(50)) {
    if (!pids.some(processAlive)) break;
  }
  return pids.filter(processAlive);
}

/** The error a statement fails with, or null when it succeeds. */
async function failure(c: PgCluster, text: string): Promise<{ code?: string; message: string } | null> {
  try {
    await c.sql(text);
    return null;
  } catch (err) {
    return err as { code?: string; message: string };
  }
}

afterAll(async () => {
  for (const c of started) if (c.pid !== undefined) note(c);
  await Promise.all(started.map((c) => c.stop()));
  expect(await allGone([...seen], 5_000)).toEqual([]);
  for (const c of started) expect(existsSync(c.dir)).toBe(false);
});

describe('postgres harness', () => {
  it('a hot standby follows its primary, refuses writes, and takes over after a crash', async () => {
    const primary = await startPrimary();
    started.push(primary);
    const standby = await startStandby(primary);
    started.push(standby);
    note(primary);
    note(standby);
    for (const c of [primary, standby]) {
      expect(c.port).not.toBe(5432);
      expect(c.url).toBe(`postgres://addrsum@127.0.0.1:${c.port}/postgres`);
      const [row] = await c.sql<{ port: string }>('SHOW port');
      expect(row?.port).toBe(String(c.port));
    }
    expect(standby.port).not.toBe(primary.port);
    expect(await standby.sql('SELECT pg_is_in_recovery() AS r')).toEqual([{ r: true }]);

    await primary.sql('CREATE TABLE balances (address text PRIMARY KEY, sats bigint NOT NULL)');
    await primary.sql("INSERT INTO balances SELECT 'addr' || i, i * 1000 FROM generate_series(1, 500) AS i");
    await waitForReplay(primary, standby, 30_000);
    const summary = 'SELECT count(*)::int AS n, sum(sats)::text AS total FROM balances';
    const expected = [{ n: 500, total: String(1000 * ((500 * 501) / 2)) }];
    expect(await primary.sql(summary)).toEqual(expected);
    expect(await standby.sql(summary)).toEqual(expected);

    const readOnly = await failure(standby, "INSERT INTO balances VALUES ('x', 1)");
    expect(readOnly?.code).toBe('25006'); // read_only_sql_transaction
    expect(readOnly?.message).toMatch(/read-only transaction/);

    note(primary); // the walsender serving the standby is a child too
    const primaryPid = primary.pid as number;
    await primary.kill();
    expect(primary.pid).toBeUndefined();
    expect(processAlive(primaryPid)).toBe(false);
    expect(await failure(primary, 'SELECT 1')).not.toBeNull();

    await promote(standby);
    expect(await standby.sql('SELECT pg_is_in_recovery() AS r')).toEqual([{ r: false }]);
    await standby.sql("INSERT INTO balances VALUES ('after-promotion', 7)");
    expect(await standby.sql(summary)).toEqual([{ n: 501, total: String(1000 * ((500 * 501) / 2) + 7) }]);

    // The crashed primary comes back on its own data: crash recovery keeps every committed row.
    await primary.restart();
    expect(primary.pid).not.toBe(primaryPid);
    expect(await primary.sql(summary)).toEqual(expected);
  });

  it('a primary whose owner is SIGKILLed is stopped by the watchdog, its temp dir removed', async () => {
    const owner = spawn(process.execPath, ['--import', 'tsx', OWNER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      owner.stdout.setEncoding('utf8').on('data', (s: string) => {
        out += s;
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      owner.once('exit', (code) => reject(new Error(`owner exited (${String(code)}) before starting postgres`)));
    });
    const { pid, dir } = JSON.parse(line) as { pid: number; dir: string };
    const processes = [pid, ...childPids(pid)];
    expect(processes.length).toBeGreaterThan(1); // the postmaster and its auxiliary processes
    owner.kill('SIGKILL');
    // The watchdog polls once a second, then the server shuts down on SIGTERM.
    expect(await allGone(processes, 30_000)).toEqual([]);
    for (const end = Date.now() + 10_000; existsSync(dir) && Date.now() < end;) await sleep(50);
    expect(existsSync(dir)).toBe(false);
  });
});
