/**
 * The README and docs/ stay true to the code: every metric they name is exported on some /metrics (the
 * API's registry, with the Redis limiter's metrics, or an indexer's), every environment variable and
 * setting they name is one the configuration reads, the settings table lists every setting with the
 * variables that set it, and the README stays short with its two commands.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { createLimiterMetrics } from '../../src/api/shared-limiter.js';
import { CHAIN_CODES } from '../../src/chain/params.js';
import { describeSettings, ENV_VARIABLES } from '../../src/config.js';
import { connectionMetrics, createApiMetrics } from '../../src/api/metrics.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

function exportedMetrics(): Set<string> {
  const api = createApiMetrics({ defaultMetrics: true });
  createLimiterMetrics(api.registry);
  connectionMetrics(api.registry, { open: () => 0, counts: { evicted: 0, refused: 0, deadline: 0 } });
  const names = (m: { getMetricsAsArray(): unknown[] }) => m.getMetricsAsArray().map((x) => (x as { name: string }).name);
  return new Set([...names(api.registry), ...names(new IndexerMetrics('LTC', true).registry)]);
}

/** `addrsum_…` words; one ending in `_` (as in `addrsum_api_process_*`) stands for a family. */
function mentionedMetrics(doc: string): string[] {
  return [...new Set([...doc.matchAll(/\baddrsum_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')))];
}

/** `ADDRSUM_…` words; `ADDRSUM_<C>_…` stands for each chain's variable. */
function mentionedEnv(doc: string): string[] {
  const found = [...doc.matchAll(/\bADDRSUM_(<C>_)?[A-Z0-9_]*[A-Z0-9]/g)];
  return [...new Set(found.flatMap((m) => (m[1] ? CHAIN_CODES.map((c) => m[0].replace('<C>', c)) : [m[0]])))];
}

/** `<C>` stands for each chain. */
const perChain = (key: string): string[] => (key.includes('<C>') ? CHAIN_CODES.map((c) => key.replace('<C>', c)) : [key]);

/** Backticked setting keys (`api.port`, `[api.live]`, `chains.<C>.zmq`, `api.tiers.*`), each chain's for `<C>`. */
function mentionedSettings(doc: string): string[] {
  const found = [...doc.matchAll(/`\[?((?:api|chains)\.[A-Za-z0-9<>.*]+)/g)].map((m) => m[1]!.replace(/\.\*?$/, ''));
  return [...new Set(found.flatMap(perChain))];
}

/**
 * docs/configuration.md's settings table, row by row: the keys of the first column (`<C>` expanded; a
 * `.burst` after `api.tiers.default.rate` is `api.tiers.default.burst`) and the variables of the second.
 */
function settingsTable(doc: string): { keys: string[]; env: string[] }[] {
  const lines = doc.split('\n');
  const rows: { keys: string[]; env: string[] }[] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('| TOML key |')) + 2)) {
    if (!line.startsWith('|')) break;
    const [, keyCell = '', envCell = ''] = line.split('|');
    let previous = '';
    const keys = [...keyCell.matchAll(/`([^`]+)`/g)].flatMap(([, written]) => {
      const key = written!.startsWith('.') ? previous.replace(/\.[^.]+$/, written!) : written!;
      previous = key;
      return perChain(key);
    });
    rows.push({ keys, env: mentionedEnv(envCell) });
  }
  return rows;
}

describe('documentation', () => {
  const exported = exportedMetrics();

  it.each(DOCS)('%s names only metrics that /metrics exports', (file) => {
    const unknown = mentionedMetrics(text(file)).filter((n) =>
      n.endsWith('_') ? ![...exported].some((e) => e.startsWith(n)) : !exported.has(n),
    );
    expect(unknown).toEqual([]);
  });

  it.each(DOCS)('%s names only environment variables the configuration reads', (file) => {
    expect(mentionedEnv(text(file)).filter((v) => !ENV_VARIABLES.includes(v))).toEqual([]);
  });

  it.each(DOCS)('%s names only settings the configuration has', (file) => {
    const keys = describeSettings().map((s) => s.key);
    const unknown = mentionedSettings(text(file)).filter((m) => !keys.some((k) => k === m || k.startsWith(`${m}.`)));
    expect(unknown).toEqual([]);
  });

  it('docs/configuration.md lists every setting, each with exactly the variables that set it', () => {
    const settings = new Map(describeSettings().map((s) => [s.key, s.env]));
    const rows = settingsTable(text('docs/configuration.md'));
    const listed = rows.flatMap((r) => r.keys);
    expect(listed.filter((k) => !settings.has(k))).toEqual([]);
    expect([...settings.keys()].filter((k) => !listed.includes(k))).toEqual([]);
    for (const row of rows) {
      const variables = [...new Set(row.keys.flatMap((k) => settings.get(k) ?? []))].sort();
      expect([...row.env].sort(), row.keys.join(', ')).toEqual(variables);
    }
  });

  it('finds what it checks: the metrics tables and the settings table are there', () => {
    const all = DOCS.map(text).join('\n');
    expect(mentionedMetrics(all).length).toBeGreaterThan(20);
    expect(mentionedEnv(all).length).toBeGreaterThan(20);
    // Every setting the code reads from the environment is documented somewhere.
    expect(ENV_VARIABLES.filter((v) => !mentionedEnv(all).includes(v))).toEqual([]);
  });

  it('keeps the README at most 300 lines, with the demo and test commands', () => {
    const readme = text('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain('npm run demo');
    expect(readme).toContain('npm test');
    for (const link of readme.matchAll(/\]\((docs\/[^)#]+)/g)) {
      // Pages are the checked docs; pictures (the status page's screenshot) must exist.
      if (link[1]!.endsWith('.md')) expect(DOCS).toContain(link[1]);
      else expect(existsSync(path.join(ROOT, link[1]!)), link[1]).toBe(true);
    }
  });
});
