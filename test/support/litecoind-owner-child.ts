/**
 * Child process for the harness test: starts a litecoind, prints `{pid, datadir}` as one JSON line,
 * then either waits to be killed (argv 'wait') or exits without stopping the node (argv 'exit').
 */
import { startLitecoind } from '../../harness/litecoind.js';

const node = await startLitecoind({ wallet: false });
process.stdout.write(`${JSON.stringify({ pid: node.pid, datadir: node.datadir })}\n`);
if (process.argv[2] === 'exit') process.exit(0);
setInterval(() => undefined, 60_000);
