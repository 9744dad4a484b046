/**
 * Child process (run through spawnWithOwnMounts): mounts a 2 MiB tmpfs on `dir`, fills it first when
 * asked (`full`), and starts the API (`src/api-process/addrsum-api.ts`, environment passed through) with its
 * stdout appending to a file there and its stderr on this process's stderr. It prints JSON lines:
 * {"pid":api pid,"free":bytes} once the API is spawned, {"free":bytes} after each `fill` line read on
 * stdin, and {"exit":code or signal} when the API exits, then exits itself.
 * Usage: tsx test/support/api-full-disk-child.ts <dir> <empty|full>
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fillDisk, mountTmpfs } from './own-tmpfs.js';

const [dir = '', start = 'empty'] = process.argv.slice(2);
mountTmpfs(dir, '2m');
const free = start === 'full' ? fillDisk(dir) : null;
const log = openSync(path.join(dir, 'api.log'), 'a');
const api = spawn(process.execPath, ['--import', 'tsx', 'src/api-process/addrsum-api.ts'], { stdio: ['ignore', log, 'inherit'] });
closeSync(log);
api.on('exit', (code, signal) => {
  console.log(JSON.stringify({ exit: code ?? signal }));
  process.exit(0);
});
console.log(JSON.stringify({ pid: api.pid, free }));
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'fill') console.log(JSON.stringify({ free: fillDisk(dir) }));
}
// The test is gone (its end of stdin closed): so is the API.
api.kill('SIGKILL');
