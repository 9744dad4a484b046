/**
 * The README and docs/ stay true to the code: every metric they name is exported on some /metrics (the
 * API's registry, with the Redis limiter's metrics, or an indexer's), every environment variable and
 * setting they name is one the configuration reads, the settings table lists every setting with the
 * variables that set it, every error code they name is one the code answers (with that status), the
 * error table says what the app answers, every folder of src/ is named in docs/architecture.md or the
 * dependency rules, and the README stays short with its two commands.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { createLimiterMetrics } from '../../src/serving/shared-limiter.js';
import { createElectrumMetrics } from '../../src/electrum/metrics.js';
import { CHAIN_CODES } from '../../src/chain/params.js';
import { describeSettings, ENV_VARIABLES, loadConfig } from '../../src/config.js';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../src/serving/errors.js';
import { connectionTimeouts, createHttpServer } from '../../src/api/http-server.js';
import { connectionMetrics, derivationMetrics, createApiMetrics } from '../../src/api/metrics.js';
import { verifyProgram } from '../../src/store/verify-cli.js';
import { buildWorld } from '../support/api-world.js';

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
  createElectrumMetrics(api.registry);
  connectionMetrics(api.registry, { open: () => 0, counts: { evicted: 0, refused: 0, deadline: 0 } });
  derivationMetrics(api.registry, { pendingWork: 0, doneWork: 0 });
  const names = (m: { getMetricsAsArray(): unknown[] }) => m.getMetricsAsArray().map((x) => (x as { name: string }).name);
  return new Set([...names(api.registry), ...names(new IndexerMetrics('LTC', true).registry)]);
}

/** `addrsum_…` words; one ending in `_` (as in `addrsum_api_process_*`) stands for a family. */
function mentionedMetrics(doc: string): string[] {
  // A name followed by a dot is a PostgreSQL table in one of our schemas (`addrsum_keys.state`), not a metric.
  return [...new Set([...doc.matchAll(/\baddrsum_[a-z0-9_]+(?![a-z0-9_.])/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')))];
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

/** The rows of the table whose header row starts with `header`. */
function tableRows(doc: string, header: string): string[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header)) + 2;
  const end = lines.findIndex((l, i) => i >= start && !l.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end);
}

/**
 * docs/configuration.md's settings table, row by row: the keys of the first column (`<C>` expanded; a
 * `.burst` after `api.tiers.default.rate` is `api.tiers.default.burst`) and the variables of the second.
 */
function settingsTable(doc: string): { keys: string[]; env: string[] }[] {
  return tableRows(doc, '| TOML key |').map((line) => {
    const [, keyCell = '', envCell = ''] = line.split('|');
    let previous = '';
    const keys = [...keyCell.matchAll(/`([^`]+)`/g)].flatMap(([, written]) => {
      const key = written!.startsWith('.') ? previous.replace(/\.[^.]+$/, written!) : written!;
      previous = key;
      return perChain(key);
    });
    return { keys, env: mentionedEnv(envCell) };
  });
}

/** Every .ts file's text under the given top-level folders. */
function sources(...dirs: string[]): string {
  return dirs
    .flatMap((dir) => readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)))
    .filter((f) => f.endsWith('.ts'))
    .map(text)
    .join('\n');
}

/** docs/api.md's error table: status, code and the `when` text of each row. */
function errorTable(doc: string): { status: number; code: string; when: string }[] {
  return tableRows(doc, '| HTTP | code |').map((line) => {
    const [, status = '', code = '', when = ''] = line.split('|');
    return { status: Number(status.trim()), code: code.trim().replaceAll('`', ''), when: when.trim() };
  });
}

/** Backticked UPPER_SNAKE words: error codes, except variables and the few other names the docs write so. */
const NOT_CODES = new Set(['COMPOSE_PROJECT_NAME', 'SQLITE_TMPDIR', 'OP_RETURN']);
function mentionedCodes(doc: string): string[] {
  const found = [...doc.matchAll(/`(?:[0-9]{3} )?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!);
  return [...new Set(found.filter((w) => !w.startsWith('ADDRSUM_') && !NOT_CODES.has(w)))];
}

/** `503 CHAIN_SYNCING`, `` 503 `CHAIN_SYNCING` ``: a status the docs give a code. */
function statusClaims(doc: string): { status: number; code: string }[] {
  return [...doc.matchAll(/\b([1-5][0-9]{2}) `?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map((m) => ({ status: Number(m[1]), code: m[2]! }));
}

/** Lines that run addrsum-verify (`npm run verify -- …` or the installed command): their arguments, up to a `#` comment. */
function verifyCommands(doc: string): string[][] {
  return [...doc.matchAll(/^(?:npm run verify --|addrsum-verify)( [^#\n]*)?/gm)].map((m) =>
    (m[1] ?? '').trim().split(/\s+/).filter(Boolean),
  );
}

/** config/alerts.yml's alerts and how long each must hold (`for`). */
function alertRules(): Map<string, string> {
  const rules = parseYaml(text('config/alerts.yml')) as { groups: { rules: { alert?: string; for?: string }[] }[] };
  const alerts = rules.groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);
  return new Map(alerts.map((r) => [r.alert!, r.for ?? '']));
}

/** The system packages scripts/ensure-deps.sh installs (`ensure_command COMMAND PACKAGE`, `ensure_python_module MODULE PACKAGE`). */
function ensuredPackages(): string[] {
  return [...text('scripts/ensure-deps.sh').matchAll(/^ensure_(?:command|python_module) \S+ (\S+)$/gm)].map((m) => m[1]!);
}

describe('documentation', () => {
  const exported = exportedMetrics();
  const sourceText = sources('src', 'indexer');

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

  it("docs/api.md's error table lists every code the API answers, each with its status", () => {
    const rows = errorTable(text('docs/api.md'));
    expect(rows.length).toBeGreaterThan(30);
    expect(rows.filter((r) => ERROR_STATUS[r.code as ErrorCode] !== r.status).map((r) => `${r.status} ${r.code}`)).toEqual([]);
    // The few codes answered outside the HTTP routes (WebSocket refusals) are in the live summaries' text.
    const api = text('docs/api.md');
    expect(ERROR_CODES.filter((c) => !api.includes(c))).toEqual([]);
  });

  it.each(DOCS)('%s gives every error code the status the code answers it with', (file) => {
    const wrong = statusClaims(text(file)).filter((c) => ERROR_STATUS[c.code as ErrorCode] !== c.status);
    expect(wrong.map((c) => `${c.status} ${c.code}`)).toEqual([]);
  });

  it.each(DOCS)('%s names only error codes the code has', (file) => {
    const unknown = mentionedCodes(text(file)).filter((c) => !sourceText.includes(`'${c}'`));
    expect(unknown).toEqual([]);
  });

  // What a table row says about a case has to be what the app answers for it: probes of cases a reader
  // could get wrong, each with the words of the row that must describe it.
  it.each([
    [
      'a range both in the body and in the query',
      'POST',
      '/api/v1/BTC/xpub?range=5',
      { key: 'xpub', range: 5 },
      'both in the body and in the query',
    ],
    ['a query parameter given twice', 'GET', '/api/v1/BTC/xpub/xpub?range=5&range=6', undefined, 'a query parameter given more than once'],
    ['an unknown member of the wallet body', 'POST', '/api/v1/BTC/xpub', { key: 'xpub', extra: 1 }, 'other than `{"key", "range"}`'],
  ])("docs/api.md's error table describes %s under the code the app answers", async (_case, method, url, body, words) => {
    const world = buildWorld({ allowAnonymous: true });
    try {
      const req = method === 'POST' ? request(world.app).post(url).send(body) : request(world.app).get(url);
      const answer = (await req).body as { data: { code: string } };
      const rows = errorTable(text('docs/api.md'));
      expect(rows.filter((r) => r.when.includes(words)).map((r) => r.code)).toEqual([answer.data.code]);
    } finally {
      world.cleanup();
    }
  });

  // An option shown only in a comment next to a command reads as a replacement for the options there.
  it('shows verify commands that run as written, together using every option', () => {
    const commands = DOCS.flatMap((f) => verifyCommands(text(f)));
    expect(commands.length).toBeGreaterThan(0);
    const silent = { out: () => {}, err: () => {} };
    for (const args of commands) expect(() => verifyProgram(silent).parse(args, { from: 'user' }), args.join(' ')).not.toThrow();
    const shown = new Set(commands.flat());
    const options = verifyProgram(silent).options.flatMap((o) => (o.long === undefined || o.long === '--version' ? [] : [o.long]));
    expect(options.filter((o) => !shown.has(o))).toEqual([]);
  });

  it("docs/operations.md's alert table is config/alerts.yml's alerts, each with its `for`", () => {
    const documented = tableRows(text('docs/operations.md'), '| alert |').map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      return `${cells[1]!.replaceAll('`', '')} for ${cells[3]!}`;
    });
    expect(documented.sort()).toEqual([...alertRules()].map(([alert, wait]) => `${alert} for ${wait}`).sort());
  });

  it("docs/api.md's connection timeouts are the server's, at the default api.requestTimeoutMs", () => {
    const t = connectionTimeouts({ requestTimeoutMs: loadConfig({ env: {} }).api.requestTimeoutMs });
    const keepAliveMs = createHttpServer(express(), pino({ level: 'silent' })).keepAliveTimeout;
    const s = (ms: number) => `${ms / 1000} s`;
    const doc = text('docs/api.md');
    const connections = doc.slice(doc.indexOf('**Connections.**'), doc.indexOf('### Caching')).replace(/\s+/g, ' ');
    expect(connections).toContain(`sends no request within ${s(t.headersTimeoutMs)} is answered \`408 REQUEST_TIMEOUT\``);
    expect(connections).toContain(`checks that deadline every ${s(t.checkIntervalMs)}`);
    expect(connections).toContain(`${t.headersTimeoutMs / 1000} to ${s(t.headersTimeoutMs + t.checkIntervalMs)} after it opened`);
    expect(connections).toContain(`keep-alive connection idle for ${s(keepAliveMs)} is closed`);
  });

  // A newcomer without root reads these lists to know what to install before `npm test`.
  it.each(['README.md', 'docs/development.md'])('%s names every package scripts/ensure-deps.sh installs', (file) => {
    const packages = ensuredPackages();
    expect(packages.length).toBeGreaterThan(3);
    expect(packages.filter((p) => !new RegExp(`\\b${p}\\b`).test(text(file)))).toEqual([]);
  });

  it('finds what it checks: the metrics tables and the settings table are there', () => {
    const all = DOCS.map(text).join('\n');
    expect(mentionedMetrics(all).length).toBeGreaterThan(20);
    expect(mentionedEnv(all).length).toBeGreaterThan(20);
    // Every setting the code reads from the environment is documented somewhere.
    expect(ENV_VARIABLES.filter((v) => !mentionedEnv(all).includes(v))).toEqual([]);
  });

  it("lists every page of docs/ in the README's documentation table", () => {
    const readme = text('README.md');
    const table = readme.slice(readme.indexOf('## Documentation'));
    const linked = new Set([...table.matchAll(/\]\((docs\/[^)#]+\.md)\)/g)].map((m) => m[1]));
    expect(DOCS.filter((d) => d.startsWith('docs/') && !linked.has(d))).toEqual([]);
  });

  it('says nowhere that history needs an empty index or that the API process never asks a node', () => {
    // The indexer builds history on an index that holds blocks (docs/operations.md), and the Electrum
    // server's transaction and fee methods ask the node (src/electrum/methods/node-methods.ts).
    for (const doc of DOCS) {
      expect(text(doc), doc).not.toMatch(/empty index only/);
      expect(text(doc), doc).not.toMatch(/The API never contacts the nodes/);
    }
  });

  it('names every folder of src/ in docs/architecture.md or in the dependency rules', () => {
    const architecture = text('docs/architecture.md');
    const rules = text('.dependency-cruiser.mjs');
    const folders = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)]);
    const named = (folder: string): boolean => {
      if (architecture.includes(`${folder}/`) || rules.includes(folder)) return true;
      // A subfolder may be named in its parent's row of the layer table, as `name/`.
      const row = architecture.split('\n').find((l) => l.startsWith(`| \`${path.posix.dirname(folder)}/\``));
      return row?.includes(`\`${path.posix.basename(folder)}/`) === true;
    };
    const all = folders('src');
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((f) => !named(f))).toEqual([]);
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
