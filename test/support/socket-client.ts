/**
 * Runs one of the socket-flood children (idle-sockets-child.ts, slow-bodies-child.ts) in its own process,
 * so that its sockets do not count against the test runner's file-descriptor limit, and resolves with
 * the first JSON line it prints: how many connections it opened and how many failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from '../../harness/indexer-process.js';

export interface Opened {
  readonly opened: number;
  readonly failed: number;
}

/** `children` collects the process so that the suite can kill it in its teardown. */
export function startSocketClient(script: string, args: readonly string[], children: ChildProcess[]): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"opened"'));
      if (line) resolve(JSON.parse(line) as Opened);
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`${script} exited ${String(code)}: ${out}`)));
  });
}
