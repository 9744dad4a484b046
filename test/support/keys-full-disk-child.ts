/**
 * Child process (run through spawnWithOwnMounts): mounts a 1 MiB tmpfs on `dir`, fills it, runs the keys
 * CLI's `create` in-process with its data directory there, and prints one JSON line
 * {"free":bytes,"code":exit code,"stdout":text,"stderr":text}, or {"free":bytes,"threw":text} when
 * `main` throws instead of answering.
 * Usage: tsx test/support/keys-full-disk-child.ts <dir>
 */
import { loadConfig } from '../../src/config.js';
import { main } from '../../src/keys/cli.js';
import { fillDisk, mountTmpfs } from './own-tmpfs.js';

const [dir = ''] = process.argv.slice(2);
mountTmpfs(dir, '1m');
const free = fillDisk(dir);
let stdout = '';
let stderr = '';
const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
try {
  const code = await main(['create'], () => loadConfig({ env: { ADDRSUM_DATA_DIR: dir } }), io);
  console.log(JSON.stringify({ free, code, stdout, stderr }));
} catch (err) {
  console.log(JSON.stringify({ free, threw: String(err) }));
}
