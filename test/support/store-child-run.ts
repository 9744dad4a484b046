/** Starting and watching test/support/store-child.ts from tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RandomChainOptions } from './blocks.js';

export const CHURN_UNDO_DEPTH = 20;

/** The chain the `churn` child applies; tests rebuild it from the same seed to check the result. */
export function churnChainOptions(blocks: number): RandomChainOptions {
  return { blocks, txsPerBlock: 40, scripts: 200, mweb: true, bip30: { at: Math.floor(blocks / 2), of: Math.floor(blocks / 3) } };
}

const CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url));

export function startStoreChild(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the child's stdout lines once one satisfies `want`; rejects if it exits first (with its stderr). */
export function linesUntil(child: ChildProcess, want: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n').slice(0, -1);
      if (lines.some(want)) resolve(lines);
    });
    child.on('exit', (code, signal) => reject(new Error(`child exited (${String(code ?? signal)}) before the line: ${err}`)));
  });
}

/** Resolves with the first stdout line; rejects if the child exits first (with its stderr). */
export async function firstLine(child: ChildProcess): Promise<string> {
  return (await linesUntil(child, () => true))[0]!;
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

export function killAll(children: ChildProcess[]): void {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
