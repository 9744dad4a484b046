import net from 'node:net';

// Ports handed out by this process: the OS may offer the same just-closed port twice in a row, and two
// nodes started back to back must not collide. (Other processes can still race us; that is rare and
// shows up as a clear "address in use" failure at node start.)
const given = new Set<number>();

function listenOnce(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A loopback TCP port that was free a moment ago: listen on port 0, read the port, close. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await listenOnce();
    if (port !== 0 && !given.has(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error('could not find a free loopback port');
}
