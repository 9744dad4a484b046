/**
 * Child process for the PostgreSQL harness test: starts a primary, prints `{pid, dir}` as one JSON
 * line, then waits to be killed without ever stopping it (the watchdog must).
 */
import { startPrimary } from '../../harness/postgres.js';

const primary = await startPrimary();
process.stdout.write(`${JSON.stringify({ pid: primary.pid, dir: primary.dir })}\n`);
setInterval(() => undefined, 60_000);
