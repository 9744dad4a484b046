/**
 * Reading an index into the page cache (src/store/sqlite/page-cache.ts): the whole file is read when it fits
 * in the memory given, nothing when it does not. /proc/self/io's rchar counts the bytes this process
 * read, page-cache hits included.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryForPageCache, warmPageCache } from '../../src/store/sqlite/page-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'addrsum-pagecache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytesRead = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

describe('warmPageCache', () => {
  const path = join(dir, 'index.sqlite');
  const size = 20 * 2 ** 20 + 12_345;
  writeFileSync(path, Buffer.alloc(size, 7));

  it('reads the whole file when it fits in the memory available', () => {
    const before = bytesRead();
    const r = warmPageCache(path, 10 * size);
    expect(r).toMatchObject({ warmed: true, bytes: size });
    expect(bytesRead() - before).toBeGreaterThanOrEqual(size);
  });

  it('reads nothing when the file would take more than 80 % of it', () => {
    const before = bytesRead();
    expect(warmPageCache(path, size)).toEqual({ warmed: false, bytes: size, availableBytes: size });
    expect(bytesRead() - before).toBeLessThan(size);
  });

  it('counts memory the kernel can give back, bounded by this process', () => {
    const m = memoryForPageCache();
    expect(m).toBeGreaterThan(0);
    expect(m).toBeLessThanOrEqual(Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024);
  });
});
