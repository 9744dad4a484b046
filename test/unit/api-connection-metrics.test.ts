/** /metrics tells open connections and the ones the connection guard closed to make room. */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/api/http-server.js';
import { connectionMetrics } from '../../src/api/metrics.js';
import { buildWorld } from '../support/api-world.js';

async function series(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l))?.value;
}

describe('connection metrics', () => {
  it('counts open connections and evictions at the cap', async () => {
    const w = buildWorld();
    const registry = new Registry();
    const server = createHttpServer(w.app, pino({ level: 'silent' }), {
      maxConnections: 10,
      onGuard: (guard) => connectionMetrics(registry, guard),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sockets: net.Socket[] = [];
    try {
      expect(await series(registry, 'addrsum_api_connections_closed_total', { reason: 'evicted' })).toBe(0);
      for (let i = 0; i < 6; i++) {
        const s = net.connect({ host: '127.0.0.1', port });
        s.on('error', () => undefined);
        sockets.push(s);
        await new Promise<void>((resolve) => s.once('connect', () => resolve()));
      }
      await expect.poll(() => series(registry, 'addrsum_api_open_connections')).toBe(6);
      for (let i = 0; i < 14; i++) {
        const s = net.connect({ host: '127.0.0.1', port });
        s.on('error', () => undefined);
        sockets.push(s);
        await new Promise<void>((resolve) => s.once('connect', () => resolve()));
      }
      // 20 idle sockets against a cap of 10: the oldest idle ones made room.
      await expect.poll(() => series(registry, 'addrsum_api_connections_closed_total', { reason: 'evicted' })).toBe(10);
      expect(await series(registry, 'addrsum_api_open_connections')).toBe(10);
      expect(await series(registry, 'addrsum_api_connections_closed_total', { reason: 'refused' })).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      w.cleanup();
    }
  });
});
