/** Runs the real API (`src/api-process/addrsum-api.ts`, as `npm run api` does) as a child process on a free port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './indexer-process.js';

export interface ApiProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  readonly exited: Promise<number | string>;
  stop(): Promise<number | string>;
}

/** Starts the API with `env` on top of this process's environment; resolves once it listens. */
export async function startApi(env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/api-process/addrsum-api.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ADDRSUM_HOST: '127.0.0.1', ADDRSUM_PORT: '0', ADDRSUM_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`API exited (${String(code)}):\n${out}`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
