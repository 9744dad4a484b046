/**
 * Reading a database file once, start to end, so that the kernel holds its pages.
 *
 * Why: right after a bootstrap, applying blocks reads random leaves of `utxos` and `scripts`. A load
 * leaves only part of a large index in the kernel's page cache (the snapshot file and the sort's temp
 * files took the rest), and every missing leaf is then one random disk read on the writer's thread,
 * which slows block apply on a large index (BENCHMARKS.md). One sequential pass is cheap beside those
 * random reads and saves them.
 *
 * Only when the file fits comfortably in the memory available now: reading a file larger than memory
 * would push out the pages it just read, and other processes' (the node's) with them.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { freemem } from 'node:os';
import type { WarmResult } from '../index-model.js';

/** Fraction of the available memory the file may take. */
const MAX_SHARE = 0.8;
const CHUNK_BYTES = 8 * 2 ** 20;

/**
 * Memory the page cache could give this file now: the kernel's MemAvailable (free memory plus cache it
 * can drop), or, under a tighter cgroup limit (a container), that limit less this process's own memory.
 * Not libuv's available memory: it counts the cgroup's page cache, reclaimable or not, as used.
 */
export function memoryForPageCache(): number {
  const host = freemem();
  const limit = process.constrainedMemory();
  return limit > 0 && limit < host ? limit - process.memoryUsage.rss() : host;
}

export function warmPageCache(path: string, available: number = memoryForPageCache()): WarmResult {
  const fd = openSync(path, 'r');
  try {
    const bytes = fstatSync(fd).size;
    if (bytes > available * MAX_SHARE) return { warmed: false, bytes, availableBytes: available };
    const started = performance.now();
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let at = 0; at < bytes;) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, at);
      if (n === 0) break;
      at += n;
    }
    return { warmed: true, bytes, seconds: (performance.now() - started) / 1000 };
  } finally {
    closeSync(fd);
  }
}
