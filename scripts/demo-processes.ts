/**
 * The demo's child processes: the LTC indexer and the API, run exactly as `npm run indexer` and
 * `npm run api` run them, with their JSON logs appended to files in the demo directory (the terminal
 * shows only the demo's own lines).
 *
 * Each child gets its own process group (detached), so a Ctrl-C in the terminal reaches the demo only
 * and the demo stops them in order with one SIGTERM each; a second signal would make the API exit 1
 * at once. Detached children would outlive a demo killed with SIGKILL, so each also gets the test
 * suite's watchdog, which SIGTERMs it when the demo is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '../harness/indexer-process.js';
import { startWatchdog } from '../harness/watchdog.js';

/** How long a child may take to stop after SIGTERM before it is killed (the API waits ≤ 10 s itself). */
const STOP_GRACE_MS = 15_000;

export interface DemoChild {
  readonly name: string;
  readonly logFile: string;
  readonly pid: number | undefined;
  /** Exit code, or the signal's name; resolves when the process has ended. */
  readonly exited: Promise<number | string>;
  /** True while the process runs. */
  running(): boolean;
  /** SIGTERM, wait (SIGKILL after STOP_GRACE_MS); resolves with how it ended. Idempotent. */
  stop(): Promise<number | string>;
}

/**
 * Starts `node --import tsx <script> ...args` from the repository root with `env` added to this
 * process's environment; stdout and stderr are appended to `logFile`.
 */
export function startChild(name: string, script: string, args: readonly string[], env: Record<string, string>, logFile: string): DemoChild {
  const fd = openSync(logFile, 'a');
  writeSync(fd, `--- addrsum demo: ${name} started ${new Date().toISOString()}\n`);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(fd);
  }
  let ended = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (err) => {
      ended = true;
      resolve(`spawn failed: ${err.message}`);
    });
  });
  if (child.pid !== undefined) startWatchdog(child.pid, null);
  let stopping: Promise<number | string> | undefined;
  return {
    name,
    logFile,
    pid: child.pid,
    exited,
    running: () => !ended,
    stop() {
      stopping ??= (async () => {
        if (!ended) child.kill('SIGTERM');
        const how = await Promise.race([exited, sleep(STOP_GRACE_MS).then(() => null)]);
        if (how !== null) return how;
        child.kill('SIGKILL');
        return exited;
      })();
      return stopping;
    },
  };
}

/**
 * Polls `probe` every `everyMs` until it returns true. Fails when `child` exits meanwhile (with its log
 * file named) or after `timeoutMs`.
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  child: DemoChild,
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!child.running()) {
      throw new Error(`the ${child.name} exited (${String(await child.exited)}) while waiting for ${what}; see ${child.logFile}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; see ${child.logFile}`);
    await sleep(everyMs);
  }
}
