/**
 * Child process: opens `count` TCP connections to 127.0.0.1:`port` from local address `from` and sends
 * nothing on them. Runs in its own process so that the test's sockets do not count against the test
 * runner's file-descriptor limit. Prints one JSON line {"opened":n,"failed":n,"closedByPeer":n} when all
 * attempts have settled, then keeps the survivors open until it is killed.
 * Usage: tsx test/support/idle-sockets-child.ts <port> <count> <from>
 */
import net from 'node:net';

const [portText = '', countText = '', from = '127.0.0.1'] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
const sockets: net.Socket[] = [];
let opened = 0;
let failed = 0;
let closedByPeer = 0;

function connectOne(): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress: from });
    sockets.push(s);
    s.once('connect', () => {
      opened++;
      resolve();
    });
    s.once('error', () => {
      failed++;
      resolve();
    });
    s.once('close', () => {
      if (s.bytesRead === 0 && opened > 0) closedByPeer++;
    });
  });
}

const BATCH = 500;
for (let i = 0; i < count; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, connectOne));
}
console.log(JSON.stringify({ opened, failed, closedByPeer }));
setInterval(() => undefined, 60_000);
