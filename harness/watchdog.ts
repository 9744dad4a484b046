import { spawn } from 'node:child_process';

/**
 * A tiny detached process that stops `childPid` (and removes `removeDir`) once this process is gone.
 * An 'exit' hook cannot run when the test runner is SIGKILLed or its worker is torn down; this can.
 * It polls once a second and exits on its own as soon as the child exits normally.
 */
const SCRIPT = `
const [parent, child, dir] = [Number(process.argv[1]), Number(process.argv[2]), process.argv[3] || ''];
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const finish = () => {
  if (dir) { try { require('node:fs').rmSync(dir, { recursive: true, force: true }); } catch {} }
  process.exit(0);
};
const timer = setInterval(() => {
  if (!alive(child)) process.exit(0);
  if (alive(parent)) return;
  clearInterval(timer);
  try { process.kill(child, 'SIGTERM'); } catch {}
  const started = Date.now();
  const wait = setInterval(() => {
    if (!alive(child)) { clearInterval(wait); finish(); }
    else if (Date.now() - started > 25000) { clearInterval(wait); finish(); } // a zombie nobody reaps
    else if (Date.now() - started > 20000) { try { process.kill(child, 'SIGKILL'); } catch {} }
  }, 200);
}, 1000);
`;

export function startWatchdog(childPid: number, removeDir: string | null): void {
  const w = spawn(process.execPath, ['-e', SCRIPT, String(process.pid), String(childPid), removeDir ?? ''], {
    detached: true,
    stdio: 'ignore',
  });
  w.unref();
}
