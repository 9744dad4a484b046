/**
 * Child process: keeps `count` connections to 127.0.0.1:`port` (from local address `from`) each sending
 * `POST /health` with `Content-Length: 1000000` and then one body byte every 2 s; a connection the server
 * closes is opened again, so the pressure lasts. Stops after `durationMs`. Runs in its own process so that
 * its sockets do not count against the test runner's file-descriptor limit. Prints one JSON line
 * {"opened":n,"failed":n} once the first `count` attempts have settled, and one {"closed":n,"reopened":n}
 * line when it stops.
 * Usage: tsx test/support/slow-bodies-child.ts <port> <count> <from> <durationMs>
 */
import net from 'node:net';

const [portText = '', countText = '', from = '127.0.0.1', durationText = '20000'] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
const stopAt = Date.now() + Number(durationText);
const HEAD = 'POST /health HTTP/1.1\r\nHost: attack\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n';
let opened = 0;
let failed = 0;
let closed = 0;
let reopened = 0;

function connectOne(first: boolean): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress: from });
    let drip: NodeJS.Timeout | undefined;
    s.once('connect', () => {
      if (first) opened++;
      else reopened++;
      s.write(HEAD);
      drip = setInterval(() => s.write('x'), 2000);
      resolve();
    });
    s.on('error', () => undefined);
    s.once('close', (hadError) => {
      clearInterval(drip);
      if (s.connecting || (!hadError && s.bytesWritten === 0)) {
        if (first) failed++;
        resolve();
      }
      closed++;
      // Reconnect after a short pause: the attack keeps its connection count up.
      if (Date.now() < stopAt) setTimeout(() => void connectOne(false), 100);
    });
    s.resume();
  });
}

const BATCH = 250;
for (let i = 0; i < count; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, () => connectOne(true)));
}
console.log(JSON.stringify({ opened, failed }));
setTimeout(
  () => {
    console.log(JSON.stringify({ closed, reopened }));
    process.exit(0);
  },
  Math.max(0, stopAt - Date.now()),
);
