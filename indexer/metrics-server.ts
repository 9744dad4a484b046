import http from 'node:http';
import type { Registry } from 'prom-client';

/** Serves `GET /metrics` from one registry; anything else is a JSON 404. */
export async function startMetricsServer(registry: Registry, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      registry
        .metrics()
        .then((body) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(body);
        })
        .catch(() => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"status":"error","code":"INTERNAL","message":"metrics unavailable"}');
        });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"status":"fail","data":{"code":"NOT_FOUND","message":"only GET /metrics is served here"}}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
