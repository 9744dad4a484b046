/**
 * addrsum_build_info{version,node} = 1: which release and which Node.js a process runs, so a dashboard
 * can tell which processes run which build (Prometheus' usual *_build_info convention).
 */
import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

/** package.json's version; 'unknown' when the file is not shipped beside the code. */
export function addrsumVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function buildInfoGauge(registers: Registry[]): Gauge<'version' | 'node'> {
  const gauge = new Gauge({
    name: 'addrsum_build_info',
    help: 'Always 1; the labels name the addrsum version and the Node.js version this process runs',
    labelNames: ['version', 'node'],
    // Across workers (cluster-metrics.ts): 1 per build that some worker runs, not the number of workers.
    aggregator: 'max',
    registers,
  });
  gauge.set({ version: addrsumVersion(), node: process.version }, 1);
  return gauge;
}
