/**
 * The long-running npm scripts (`npm run api`, and `npm start` after a build) stop with npm: a SIGTERM
 * to npm, as a process manager or a terminal's Ctrl-C sends, reaches the server, which shuts down and
 * frees its port. npm signals its child, the shell of the script; without `exec` that shell died and
 * left the server running, orphaned (the fourth hostile round's newcomer found it).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor } from '../../harness/indexer-process.js';
import { makeDataDir } from '../support/limits-world.js';

const data = makeDataDir('npm-scripts');
afterAll(() => data.remove());

/** Whether something accepts connections on 127.0.0.1:`port` now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run api', () => {
  it('stops the API when npm gets SIGTERM: its port is freed', async () => {
    const npm = spawn('npm', ['run', '--silent', 'api'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...data.env, ADDRSUM_HOST: '127.0.0.1', ADDRSUM_PORT: '0', ADDRSUM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: whatever it leaves behind is killed with the group at the end.
      detached: true,
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
    let port = 0;
    try {
      await waitFor(
        'the API to listen',
        () => {
          const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
          if (m) port = Number(m[1]);
          return m !== null;
        },
        60_000,
      );
      expect(await listening(port)).toBe(true);
      npm.kill('SIGTERM');
      await exited;
      await waitFor('the API to free its port', async () => !(await listening(port)), 30_000).catch((err: Error) => {
        throw new Error(`${err.message}: the API outlived npm\n${out.slice(-2000)}`);
      });
      expect(out).toContain('stopping: finishing in-flight requests');
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }
  }, 120_000);
});
