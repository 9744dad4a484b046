/**
 * The litecoind harness never leaves a node behind: not when its owner exits without stop() (exit
 * hook), and not when its owner is SIGKILLed (detached watchdog). Temp datadirs go with the node.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startLitecoind } from '../../harness/litecoind.js';

const CHILD = fileURLToPath(new URL('../support/litecoind-owner-child.ts', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** Starts the owner child and resolves with the node it started, plus the child itself. */
async function owner(mode: 'wait' | 'exit'): Promise<{ pid: number; datadir: string; child: ReturnType<typeof spawn> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`owner exited (${String(code)}) before starting the node`)));
  });
  const { pid, datadir } = JSON.parse(line) as { pid: number; datadir: string };
  return { pid, datadir, child };
}

async function gone(pid: number, datadir: string, withinMs: number): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end; await sleep(100)) {
    if (!alive(pid) && !existsSync(datadir)) return true;
  }
  return false;
}

describe('litecoind harness cleanup', () => {
  it('stop() ends the process and removes the temp datadir; restart() keeps the chain', async () => {
    const node = await startLitecoind();
    const address = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 3, address);
    const firstPid = node.pid as number;
    await node.restart();
    expect(node.pid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    expect(await node.cli('getblockcount')).toBe(3);
    expect(await node.cli('listwallets')).toEqual(['test']);
    const pid = node.pid as number;
    await node.stop();
    expect(alive(pid)).toBe(false);
    expect(existsSync(node.datadir)).toBe(false);
    await node.stop(); // idempotent
  });

  it('an owner that exits without stop() takes its node and datadir along', async () => {
    const { pid, datadir } = await owner('exit');
    expect(await gone(pid, datadir, 5_000)).toBe(true);
  });

  it('an owner killed with SIGKILL leaves no node behind (watchdog)', async () => {
    const { pid, datadir, child } = await owner('wait');
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    // The watchdog polls once a second, then the node shuts down cleanly on SIGTERM.
    expect(await gone(pid, datadir, 30_000)).toBe(true);
  });
});
