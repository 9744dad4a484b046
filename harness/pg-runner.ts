/**
 * How the PostgreSQL harness (postgres.ts) finds and runs the server binaries.
 *
 * Debian keeps them off PATH, in /usr/lib/postgresql/<major>/bin (`bash scripts/ensure-deps.sh`
 * installs them). initdb and postgres refuse to run as root, so a root process runs them as the system
 * account `addrsum-pg` (created on first use); anyone else runs them as themselves.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const PG_ACCOUNT = 'addrsum-pg';

/** `ADDRSUM_PG_BINDIR` if set, else the newest /usr/lib/postgresql/<major>/bin that has initdb. */
export function pgBinDir(): string {
  const fromEnv = process.env.ADDRSUM_PG_BINDIR;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(join(fromEnv, 'initdb'))) throw new Error(`ADDRSUM_PG_BINDIR=${fromEnv} has no initdb`);
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = majors[0];
  if (newest === undefined) {
    throw new Error(
      `no PostgreSQL server binaries (no ${root}/<major>/bin/initdb): install them with ` +
        '`bash scripts/ensure-deps.sh` (as root), or set ADDRSUM_PG_BINDIR to a folder holding initdb and postgres',
    );
  }
  return join(root, newest, 'bin');
}

/** Who the server binaries run as: undefined = this process's own user. */
export interface RunAs {
  uid: number;
  gid: number;
}

let account: Promise<RunAs | undefined> | undefined;

/** The account to run initdb/postgres/pg_basebackup as; creates `addrsum-pg` when root and missing. */
export function pgRunAs(): Promise<RunAs | undefined> {
  account ??= (async () => {
    if (process.getuid?.() !== 0) return undefined;
    const found = await lookUp();
    if (found !== undefined) return found;
    try {
      await run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_ACCOUNT]);
    } catch (err) {
      // Another test worker may have created it a moment ago: only a still-missing account is an error.
      const again = await lookUp();
      if (again !== undefined) return again;
      throw new Error(`could not create the system account ${PG_ACCOUNT}: ${(err as Error).message}`);
    }
    const made = await lookUp();
    if (made === undefined) throw new Error(`useradd succeeded but ${PG_ACCOUNT} is not in the passwd database`);
    return made;
  })();
  return account;
}

async function lookUp(): Promise<RunAs | undefined> {
  try {
    const { stdout } = await run('getent', ['passwd', PG_ACCOUNT]);
    const fields = stdout.trim().split(':');
    return { uid: Number(fields[2]), gid: Number(fields[3]) };
  } catch {
    return undefined; // getent exits 2 for an unknown name
  }
}

/** The environment for the binaries: ours without PG* variables (they would pick host, port or user). */
export function pgEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  return { ...env, HOME: home, LC_ALL: 'C', LANG: 'C' };
}

/** Starts `bin/<name>` as `as`, in `cwd`; stderr (and stdout) are kept for error messages. */
export function spawnPg(name: string, args: string[], cwd: string, as: RunAs | undefined): ChildProcess {
  return spawn(join(pgBinDir(), name), args, {
    cwd,
    env: pgEnv(cwd),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(as === undefined ? {} : { uid: as.uid, gid: as.gid }),
  });
}

/** Runs a PostgreSQL tool to its end; rejects with its output when it fails. */
export async function runPg(name: string, args: string[], cwd: string, as: RunAs | undefined): Promise<void> {
  const child = spawnPg(name, args, cwd, as);
  let out = '';
  const keep = (s: string): void => {
    out = (out + s).slice(-4000);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const result = await new Promise<string | null>((resolve) => {
    child.once('error', (err) => resolve(`spawn failed: ${err.message}`));
    child.once('exit', (code, signal) => resolve(code === 0 ? null : `code ${String(code)}, signal ${String(signal)}`));
  });
  if (result !== null) throw new Error(`${name} ${args.join(' ')} failed (${result}):\n${out.trim()}`);
}

/**
 * Whether `pid` is a live process. A zombie (exited, not yet reaped by whoever adopted it) counts as
 * gone: it holds no port, no file and no shared memory.
 */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (a postmaster's backends and auxiliary processes). Linux /proc. */
export function childPids(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}
