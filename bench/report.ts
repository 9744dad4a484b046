/**
 * Rewrites one named section of BENCHMARKS.md, leaving every other section as it is.
 *
 * A section is the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`. A missing section is
 * appended at the end; a missing file is created with a short preamble. Each benchmark script owns its
 * section and rewrites it whole on every run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BENCHMARKS_PATH = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

const PREAMBLE = `# Benchmarks

Machines here are shared and noisy, so every figure is a ratio against a reference measured in the same
run. Each section below is rewritten by its script in \`bench/\`; the command to reproduce it is in the
section. Benchmarks are not tests: they never fail CI, but each says whether its goal is met.
`;

const open = (name: string) => `<!-- bench:${name} -->`;
const close = (name: string) => `<!-- /bench:${name} -->`;

/** Returns `document` with section `name` replaced by (or extended with) `body`. Pure, for tests. */
export function replaceSection(document: string, name: string, body: string): string {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad section name: ${name}`);
  const block = `${open(name)}\n${body.trim()}\n${close(name)}`;
  const start = document.indexOf(open(name));
  const end = document.indexOf(close(name));
  if (start !== -1 && end > start) {
    return document.slice(0, start) + block + document.slice(end + close(name).length);
  }
  if (start !== -1 || end !== -1) throw new Error(`BENCHMARKS.md: unbalanced markers for section ${name}`);
  return `${document.trimEnd()}\n\n${block}\n`;
}

/** Rewrites section `name` of BENCHMARKS.md (or `path`) with `body` (Markdown). */
export function writeSection(name: string, body: string, path = BENCHMARKS_PATH): void {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : PREAMBLE;
  writeFileSync(path, replaceSection(current, name, body));
}

/** One line naming the machine and runtime a figure was measured on. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Today's date as YYYY-MM-DD (UTC). */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The p-th quantile (0..1) of ascending `sorted`: the smallest value with at least p of the samples at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
