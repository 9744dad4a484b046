/**
 * A hostile Electrum client in its own process (so its work does not slow the test runner's own
 * measurements): for `durationMs`, connections from `localAddress` that write garbage lines and unknown
 * methods as fast as the socket takes them, reading and dropping the answers, reconnecting whenever the
 * server closes one. Prints one JSON line at the end: lines written and connections made.
 * Usage: tsx electrum-flood-child.ts <port> <localAddress> <durationMs> <parallel>
 */
import net from 'node:net';

const [port, localAddress, durationMs, parallel] = [
  Number(process.argv[2]),
  process.argv[3],
  Number(process.argv[4]),
  Number(process.argv[5] ?? 2),
];
const until = Date.now() + durationMs;
let lines = 0;
let connections = 0;

// 500 lines per write: three of unknown methods, then one of garbage (which has the connection closed as bad lines).
const garbage = Buffer.from('not json at all\n'.repeat(500));
const unknown = Buffer.from(
  Array.from({ length: 500 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"no.such.method${i}","params":[1,2,3]}\n`).join(''),
);

function flood(): Promise<void> {
  return new Promise((resolve) => {
    connections++;
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    let turn = 0;
    const write = (): void => {
      while (!socket.destroyed && Date.now() < until) {
        lines += 500;
        if (!socket.write(turn++ % 4 === 3 ? garbage : unknown)) {
          socket.once('drain', write);
          return;
        }
      }
      socket.destroy();
    };
    socket.on('connect', write);
  });
}

async function loop(): Promise<void> {
  while (Date.now() < until) await flood();
}

await Promise.all(Array.from({ length: parallel }, loop));
process.stdout.write(`${JSON.stringify({ lines, connections })}\n`);
process.exit(0);
