/**
 * Runs the real Electrum client (Debian's python3-electrum 4.3.4) through
 * test/support/electrum-ltc-regtest.py, which puts it on Litecoin regtest: a daemon in the foreground
 * as a child process pinned to one plain-TCP server (--oneserver), and CLI commands that talk to it.
 * Everything lives in a temporary directory (Electrum's --dir and HOME), removed by close().
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '../../harness/indexer-process.js';

const run = promisify(execFile);

/** Debian's interpreter: the module is installed for it, not for another python3 first on PATH. */
const PYTHON = '/usr/bin/python3';
const WRAPPER = fileURLToPath(new URL('./electrum-ltc-regtest.py', import.meta.url));
/** The daemon's log kept for failure messages: the end is where a failed check shows. */
const LOG_KEEP = 60_000;

export class ElectrumCli {
  private log = '';
  private exited = false;

  private constructor(
    private readonly dir: string,
    private readonly daemon: ChildProcess,
  ) {
    const keep = (chunk: Buffer): void => {
      this.log = (this.log + chunk.toString()).slice(-LOG_KEEP);
    };
    daemon.stdout?.on('data', keep);
    daemon.stderr?.on('data', keep);
    daemon.on('exit', () => (this.exited = true));
  }

  /** Starts the daemon against 127.0.0.1:`port` (plain TCP) and waits until it answers commands. */
  static async start(port: number): Promise<ElectrumCli> {
    const dir = await mkdtemp(path.join(tmpdir(), 'addrsum-electrum-'));
    const server = ['--oneserver', '--server', `127.0.0.1:${port}:t`];
    const daemon = spawn(PYTHON, [WRAPPER, 'daemon', ...globalArgs(dir), ...server, '-v'], {
      env: envFor(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const cli = new ElectrumCli(dir, daemon);
    try {
      await waitFor(
        'the Electrum daemon to answer',
        async () => {
          if (cli.exited) throw new Error(`the Electrum daemon exited:\n${cli.log}`);
          return cli.command('getinfo').then(
            () => true,
            () => false,
          );
        },
        60_000,
      );
    } catch (err) {
      await cli.close();
      throw err;
    }
    return cli;
  }

  /** The daemon's output so far (-v: every request, answer check and verification failure). */
  get daemonLog(): string {
    return this.log;
  }

  /** The path of a wallet file named `name` in the daemon's directory. */
  walletAt(name: string): string {
    return path.join(this.dir, name);
  }

  /** Runs one CLI command against the daemon; returns its stdout (JSON for most commands). */
  async command(...args: string[]): Promise<string> {
    const { stdout } = await run(PYTHON, [WRAPPER, ...args, ...globalArgs(this.dir)], { env: envFor(this.dir), timeout: 60_000 });
    return stdout;
  }

  /** Like command(), parsed as JSON. */
  async json<T>(...args: string[]): Promise<T> {
    return JSON.parse(await this.command(...args)) as T;
  }

  /** Stops the daemon (`stop`, SIGKILL if it does not exit) and removes the directory. */
  async close(): Promise<void> {
    if (!this.exited) {
      await this.command('stop').catch(() => undefined);
      await waitFor('the Electrum daemon to exit', () => this.exited, 15_000).catch(() => this.daemon.kill('SIGKILL'));
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

function globalArgs(dir: string): string[] {
  return ['--regtest', '--dir', dir];
}

/** HOME in the directory too: nothing of Electrum's lands in the user's home. */
function envFor(dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8' };
}
