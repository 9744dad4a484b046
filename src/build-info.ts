/**
 * addrsum_build_info{version,node} = 1: which release and which Node.js a process runs, so a dashboard
 * can tell which processes run which build (Prometheus' usual *_build_info convention).
 */
import { Gauge, type Registry } from 'prom-client';
import { PACKAGE_VERSION } from './package-root.js';

/**
 * package.json's version, found by walking up from this module, so the sources (`src/`) and the build
 * (`dist/src/`) both name it.
 */
export function addrsumVersion(): string {
  return PACKAGE_VERSION;
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
