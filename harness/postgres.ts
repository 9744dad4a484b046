/**
 * Throwaway PostgreSQL clusters for tests: a primary, and streaming hot standbys made from it.
 *
 * Each cluster lives in its own temp dir (data/ and the Unix socket), listens on a free loopback port
 * (never the machine's own server on 5432), trusts every local connection, and is always stopped: by
 * stop(), by an exit hook, and by a detached watchdog that outlives a SIGKILLed test runner
 * (watchdog.ts). Durability is left at PostgreSQL's defaults (fsync on): tests SIGKILL a primary and
 * check what survived. Only the one-off copies (initdb, pg_basebackup) skip their final fsync.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg, { type QueryResultRow } from 'pg';
import { freePort } from './ports.js';
import { childPids, pgRunAs, processAlive, runPg, spawnPg, type RunAs } from './pg-runner.js';
import { startWatchdog } from './watchdog.js';

export { pgBinDir } from './pg-runner.js';

/** The superuser every cluster is made with (no password: trust on loopback only). */
export const PG_USER = 'addrsum';
const STOP_GRACE_MS = 20_000;
const GONE_WITHIN_MS = 10_000;

export interface StartOptions {
  /** Server settings passed as `-c name=value`, over the harness defaults. A standby starts from its primary's. */
  settings?: Record<string, string>;
  /** How long to wait for the server to accept connections. Default 60 s. */
  startTimeoutMs?: number;
}

export interface PgCluster {
  /** The temp dir: `data/` (the cluster) and the Unix socket. Removed by stop(). */
  readonly dir: string;
  readonly dataDir: string;
  readonly port: number;
  /** `postgres://addrsum@127.0.0.1:PORT/postgres` */
  readonly url: string;
  /** The settings the server runs with (defaults plus StartOptions.settings). */
  readonly settings: Readonly<Record<string, string>>;
  /** The postmaster's process id while it runs, undefined once stopped or killed. */
  readonly pid: number | undefined;
  /** Runs one statement on a fresh connection and returns its rows. */
  sql<R extends QueryResultRow = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** The server's last output (stderr), for failure messages. */
  logTail(): string;
  /** Fast shutdown (SIGINT), SIGKILL after 20 s; waits for every server process; removes dir. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILLs the postmaster and all its processes at once (a crash); keeps dir for restart() or stop(). */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port (after kill(), this runs crash recovery). */
  restart(): Promise<void>;
}

interface Server {
  child: ChildProcess;
  exited: Promise<void>;
  exitInfo: string | null;
}

/** Every server this process started and has not yet stopped, for the exit hook. */
const live = new Map<Server, string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers are synchronous: kill hard, then delete the temp dirs.
  process.on('exit', () => {
    for (const [server, dir] of live) {
      const pid = server.child.pid;
      if (pid !== undefined) killAll(pid, childPids(pid));
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

function killAll(postmaster: number, others: number[]): void {
  // The postmaster first, so that it cannot react to its children's deaths by restarting them.
  for (const pid of [postmaster, ...others]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** A new primary: initdb in a fresh temp dir, then the server on a free loopback port. */
export async function startPrimary(opts: StartOptions = {}): Promise<PgCluster> {
  const { dir, dataDir, as } = await makeDir('addrsum-pg-primary-');
  try {
    await runPg('initdb', ['-D', dataDir, '-U', PG_USER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], dir, as);
    // Our own rules, not initdb's defaults: TCP from 127.0.0.1 only, replication included.
    const hba = join(dataDir, 'pg_hba.conf');
    await writeFile(
      hba,
      [
        '# addrsum test harness: trust, loopback only',
        'local all all trust',
        'host all all 127.0.0.1/32 trust',
        'host replication all 127.0.0.1/32 trust',
        '',
      ].join('\n'),
    );
    if (as !== undefined) await chown(hba, as.uid, as.gid);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return startCluster(dir, dataDir, as, opts.settings ?? {}, opts.startTimeoutMs);
}

/** A streaming hot standby of `primary`: pg_basebackup -R -X stream, started on its own port. */
export async function startStandby(primary: PgCluster, opts: StartOptions = {}): Promise<PgCluster> {
  const { dir, dataDir, as } = await makeDir('addrsum-pg-standby-');
  try {
    const from = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', PG_USER];
    await runPg('pg_basebackup', [...from, '-D', dataDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'], dir, as);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const { cluster_name: _ignored, ...inherited } = primary.settings;
  return startCluster(dir, dataDir, as, { ...inherited, ...opts.settings }, opts.startTimeoutMs);
}

/** Promotes a standby and waits until it has left recovery (accepts writes). */
export async function promote(standby: PgCluster, timeoutMs = 60_000): Promise<void> {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  await standby.sql('SELECT pg_promote(true, $1)', [seconds]);
  await waitFor(timeoutMs, `standby on port ${standby.port} to leave recovery`, async () => {
    const [row] = await standby.sql<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    return row?.r === false;
  });
}

/** Waits until `standby` has replayed the WAL `primary` had written when this was called. */
export async function waitForReplay(primary: PgCluster, standby: PgCluster, timeoutMs = 30_000): Promise<void> {
  const [row] = await primary.sql<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const target = row?.lsn;
  if (target === undefined) throw new Error('primary returned no WAL position');
  await waitFor(timeoutMs, `standby on port ${standby.port} to replay up to ${target}`, async () => {
    const [r] = await standby.sql<{ ok: boolean | null }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target]);
    return r?.ok === true;
  });
}

async function waitFor(timeoutMs: number, what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      if (await done()) return;
    } catch (err) {
      last = `; last error: ${(err as Error).message}`;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    await sleep(50);
  }
}

async function makeDir(prefix: string): Promise<{ dir: string; dataDir: string; as: RunAs | undefined }> {
  installExitHook();
  const as = await pgRunAs();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (as !== undefined) await chown(dir, as.uid, as.gid);
  return { dir, dataDir: join(dir, 'data'), as };
}

async function startCluster(
  dir: string,
  dataDir: string,
  as: RunAs | undefined,
  extra: Record<string, string>,
  startTimeoutMs = 60_000,
): Promise<PgCluster> {
  const port = await freePort();
  const url = `postgres://${PG_USER}@127.0.0.1:${port}/postgres`;
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    wal_level: 'replica',
    max_wal_senders: '5',
    hot_standby: 'on',
    // A standby without a slot must still find the WAL it missed while it started.
    wal_keep_size: '256MB',
    max_connections: '40',
    shared_buffers: '32MB',
    // Names the processes in `ps` (postgres: addrsum-PORT: checkpointer).
    cluster_name: `addrsum-${port}`,
    ...extra,
  };
  let server: Server | undefined;
  let removed = false;
  let log = '';

  const sql = async <R extends QueryResultRow>(text: string, params?: unknown[]): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined); // a server killed under an idle client: the query below reports it
    await client.connect();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  const launch = async (): Promise<void> => {
    const args = ['-D', dataDir, '-p', String(port), '-k', dir];
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
    const child = spawnPg('postgres', args, dir, as);
    const s: Server = { child, exited: Promise.resolve(), exitInfo: null };
    const keep = (text: string): void => {
      log = (log + text).slice(-8000);
    };
    child.stdout?.setEncoding('utf8').on('data', keep);
    child.stderr?.setEncoding('utf8').on('data', keep);
    s.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        s.exitInfo = `code ${String(code)}, signal ${String(signal)}`;
        resolve();
      });
      child.once('error', (err) => {
        s.exitInfo = `spawn failed: ${err.message}`;
        resolve();
      });
    });
    server = s;
    live.set(s, dir);
    if (child.pid !== undefined) startWatchdog(child.pid, dir);

    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (s.exitInfo !== null) {
        live.delete(s);
        server = undefined;
        throw new Error(`postgres on port ${port} exited during start (${s.exitInfo}):\n${log.slice(-2000)}`);
      }
      try {
        await sql('SELECT 1');
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          await shutdown('SIGKILL');
          throw new Error(`postgres on port ${port} did not accept connections within ${startTimeoutMs} ms: ${(err as Error).message}`);
        }
        await sleep(100);
      }
    }
  };

  const shutdown = async (how: 'SIGINT' | 'SIGKILL'): Promise<void> => {
    const s = server;
    const pid = s?.child.pid;
    if (s === undefined || pid === undefined) return;
    let others = childPids(pid);
    if (how === 'SIGKILL') killAll(pid, others);
    else {
      s.child.kill('SIGINT'); // fast shutdown: ends sessions, checkpoints, exits
      const inTime = await Promise.race([s.exited.then(() => true), sleep(STOP_GRACE_MS, false, { ref: false })]);
      if (!inTime) {
        others = [...new Set([...others, ...childPids(pid)])];
        killAll(pid, others);
      }
    }
    await s.exited;
    // Orphaned server processes notice the postmaster's death on their own; wait for it.
    const deadline = Date.now() + GONE_WITHIN_MS;
    while (others.some(processAlive)) {
      if (Date.now() > deadline) throw new Error(`postgres processes ${others.filter(processAlive).join(', ')} outlived their postmaster`);
      await sleep(50);
    }
    live.delete(s);
    server = undefined;
  };

  const removeDir = async (): Promise<void> => {
    removed = true;
    await rm(dir, { recursive: true, force: true });
  };

  await launch().catch(async (err: unknown) => {
    await removeDir();
    throw err;
  });

  return {
    dir,
    dataDir,
    port,
    url,
    settings,
    get pid() {
      return server?.child.pid;
    },
    sql,
    logTail: () => log,
    async stop() {
      await shutdown('SIGINT');
      await removeDir();
    },
    kill: () => shutdown('SIGKILL'),
    async restart() {
      if (removed) throw new Error(`the cluster on port ${port} was stopped: its data is gone`);
      await shutdown('SIGINT');
      await launch();
    },
  };
}
