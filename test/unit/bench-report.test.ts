import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { median, percentile, replaceSection, writeSection } from '../../bench/report.js';

describe('bench/report.ts: rewriting one section of BENCHMARKS.md', () => {
  const doc = '# Benchmarks\n\nintro\n\n<!-- bench:a -->\nold a\n<!-- /bench:a -->\n\n<!-- bench:b -->\nold b\n<!-- /bench:b -->\n';

  it('replaces only the named section', () => {
    const out = replaceSection(doc, 'a', 'new a\nline 2');
    expect(out).toBe(doc.replace('old a', 'new a\nline 2'));
    expect(out).toContain('old b');
  });

  it('appends a missing section at the end', () => {
    const out = replaceSection(doc, 'parse', 'figures');
    expect(out.startsWith(doc.trimEnd())).toBe(true);
    expect(out.endsWith('\n\n<!-- bench:parse -->\nfigures\n<!-- /bench:parse -->\n')).toBe(true);
  });

  it('is idempotent and refuses unbalanced markers or odd names', () => {
    const once = replaceSection(doc, 'b', 'x');
    expect(replaceSection(once, 'b', 'x')).toBe(once);
    expect(() => replaceSection('<!-- bench:a -->\nno end', 'a', 'x')).toThrow(/unbalanced/);
    expect(() => replaceSection(doc, 'A B', 'x')).toThrow(/bad section name/);
  });

  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates the file with a preamble, then rewrites in place', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    const path = join(dir, 'BENCHMARKS.md');
    writeSection('parse', 'one', path);
    expect(readFileSync(path, 'utf8')).toMatch(/^# Benchmarks\n[\s\S]*<!-- bench:parse -->\none\n<!-- \/bench:parse -->\n$/);
    writeFileSync(path, readFileSync(path, 'utf8') + '\nfooter\n');
    writeSection('parse', 'two', path);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('<!-- bench:parse -->\ntwo\n<!-- /bench:parse -->');
    expect(text).not.toContain('one');
    expect(text).toContain('footer');
  });

  it('median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('percentile: the smallest sample with at least p of the samples at or below it', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    expect(percentile(sorted, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});
