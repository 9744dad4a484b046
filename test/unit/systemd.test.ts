/**
 * config/systemd/: the example units are complete (user, environment file, compiled entry point,
 * hardening, restart and stop behaviour) and, where systemd is installed, pass `systemd-analyze verify`
 * with no warning. Each key check also runs against a copy broken on purpose.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_CODES } from '../../src/chain/params.js';
import { ENV_VARIABLES } from '../../src/config.js';
import { ENTRY_POINTS, missingSource } from '../support/compose-checks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT_DIR = path.join(ROOT, 'config/systemd');
const UNITS = { api: 'addrsum-api.service', indexer: 'addrsum-indexer@.service' } as const;
type Role = keyof typeof UNITS;
const read = (role: Role) => readFileSync(path.join(UNIT_DIR, UNITS[role]), 'utf8');

/** section → key → values in order (systemd keys may repeat; an empty assignment resets the list). */
type Unit = Map<string, Map<string, string[]>>;

function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = unit.get(header[1] ?? '') ?? new Map<string, string[]>();
      unit.set(header[1] ?? '', section);
      continue;
    }
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!m || !section) throw new Error(`not a unit file line: ${line}`);
    const [, key = '', value = ''] = m;
    section.set(key, value === '' ? [] : [...(section.get(key) ?? []), value]);
  }
  return unit;
}

const get = (unit: Unit, section: string, key: string) => unit.get(section)?.get(key) ?? [];
const one = (unit: Unit, section: string, key: string) => get(unit, section, key).at(-1);

/** systemd time spans as this project writes them: 30s, 5min, 2min 30s, or bare seconds. */
function seconds(span: string | undefined): number {
  if (span === undefined) return NaN;
  let total = 0;
  for (const [, n, u] of span.matchAll(/(\d+)\s*(min|s|m|h)?/g))
    total += Number(n) * (u === 'h' ? 3600 : u === 'min' || u === 'm' ? 60 : 1);
  return total;
}

/**
 * The argv ExecStart runs for an instance (`%i`/`%I` replaced; a `bash -c` wrapper's `${1^^}` applied).
 * A bare `${…}` would be expanded by systemd from the environment before bash saw it, hence `$${1^^}`
 * in the unit, and a `${` without `$$` is refused below.
 */
function execArgv(unit: Unit, instance: string): string[] {
  // Specifiers first, then systemd's `$$` → `$` (a literal dollar for the shell).
  const exec = (one(unit, 'Service', 'ExecStart') ?? '').replaceAll('%i', instance).replaceAll('%I', instance).replaceAll('$$', '$');
  const wrapped = /^\/bin\/bash -c '([^']*)' \S+ (\S+)$/.exec(exec);
  const command = wrapped ? (wrapped[1] ?? '').replace(/^exec /, '').replaceAll('"${1^^}"', (wrapped[2] ?? '').toUpperCase()) : exec;
  return command.split(/\s+/).filter((a) => a !== '');
}

const MIN_STOP_SECONDS: Record<Role, number> = { api: 15, indexer: 60 };

function unitProblems(role: Role, text: string): string[] {
  const problems: string[] = [];
  const unit = parseUnit(text);
  const user = one(unit, 'Service', 'User');
  if (user === undefined || user === 'root' || user === '0') problems.push(`runs as ${user ?? 'root'}, not a dedicated user`);
  if (!get(unit, 'Service', 'EnvironmentFile').some((f) => f.replace(/^-/, '') === '/etc/addrsum/addrsum.env'))
    problems.push('does not read /etc/addrsum/addrsum.env');
  const env = new Map(get(unit, 'Service', 'Environment').map((e) => e.split('=', 2) as [string, string]));
  for (const key of env.keys())
    if (!ENV_VARIABLES.includes(key) && key !== 'NODE_ENV') problems.push(`Environment=${key} is not read by the code`);
  const dataDir = env.get('ADDRSUM_DATA_DIR');
  if (dataDir === undefined) problems.push('ADDRSUM_DATA_DIR is not set');
  const expected: Record<string, string> = {
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    PrivateTmp: 'yes',
    Restart: 'on-failure',
    KillSignal: 'SIGTERM',
  };
  for (const [key, value] of Object.entries(expected))
    if (one(unit, 'Service', key) !== value) problems.push(`${key}=${one(unit, 'Service', key) ?? '(unset)'}, expected ${value}`);
  if (dataDir !== undefined && !get(unit, 'Service', 'ReadWritePaths').some((p) => p.split(/\s+/).includes(dataDir)))
    problems.push(`ReadWritePaths does not include the data directory ${dataDir}`);
  const stop = seconds(one(unit, 'Service', 'TimeoutStopSec'));
  if (!(stop >= MIN_STOP_SECONDS[role]))
    problems.push(`TimeoutStopSec ${one(unit, 'Service', 'TimeoutStopSec') ?? '(default 90s)'} is under ${MIN_STOP_SECONDS[role]}s`);
  if (get(unit, 'Install', 'WantedBy').length === 0) problems.push('no [Install] WantedBy');
  if (/(^|[^$])\$\{/.test(one(unit, 'Service', 'ExecStart') ?? ''))
    problems.push('ExecStart has a ${…} that systemd would expand itself (write $$ for the shell)');
  const instances = role === 'indexer' ? CHAIN_CODES.map((c) => c.toLowerCase()) : [''];
  for (const instance of instances) {
    const argv = execArgv(unit, instance);
    const where = role === 'indexer' ? `instance ${instance}` : 'ExecStart';
    if (!/(^|\/)node$/.test(argv[0] ?? '')) problems.push(`${where}: runs ${argv[0] ?? '(nothing)'}, not node`);
    if (argv.some((a) => a === 'tsx' || a.endsWith('.ts'))) problems.push(`${where}: runs TypeScript through tsx`);
    const entry = argv.find((a) => a.includes('/dist/'));
    const relative = entry?.slice(entry.indexOf('dist/'));
    if (relative !== ENTRY_POINTS[role]) problems.push(`${where}: runs ${relative ?? '(no dist/ entry)'}, expected ${ENTRY_POINTS[role]}`);
    else {
      const missing = missingSource(relative, ROOT);
      if (missing !== undefined) problems.push(`${where}: ${missing}`);
    }
    if (role === 'indexer') {
      const chain = argv[argv.indexOf('--chain') + 1];
      if (chain !== instance.toUpperCase()) problems.push(`${where}: --chain ${chain ?? '(none)'}, expected ${instance.toUpperCase()}`);
    }
  }
  if (role === 'api' && get(unit, 'Service', 'EnvironmentFile').some((f) => /indexer|rpc|node/i.test(f)))
    problems.push("the API reads an indexer's credentials file");
  return problems;
}

describe('systemd units', () => {
  it.each(Object.keys(UNITS) as Role[])('%s: user, environment, compiled entry, hardening, restart and stop', (role) => {
    expect(unitProblems(role, read(role))).toEqual([]);
  });

  it('the indexer template runs each chain by its instance name', () => {
    expect(execArgv(parseUnit(read('indexer')), 'ltc').slice(-3)).toEqual([`/opt/addrsum/${ENTRY_POINTS.indexer}`, '--chain', 'LTC']);
    expect(execArgv(parseUnit(read('indexer')), 'btc').at(-1)).toBe('BTC');
  });
});

const BROKEN: Array<[string, Role, (t: string) => string, RegExp]> = [
  ['root', 'api', (t) => t.replace(/^User=.*$/m, 'User=root'), /runs as root/],
  [
    'no environment file',
    'indexer',
    (t) => t.replace(/^EnvironmentFile=\/etc.*addrsum\.env$/m, ''),
    /does not read \/etc\/addrsum\/addrsum\.env/,
  ],
  [
    'a misspelt variable',
    'api',
    (t) => t.replace('Environment=NODE_ENV=production', 'Environment=ADDRSUM_DATADIR=/x'),
    /Environment=ADDRSUM_DATADIR is not read/,
  ],
  ['no NoNewPrivileges', 'api', (t) => t.replace(/^NoNewPrivileges=yes$/m, ''), /NoNewPrivileges=\(unset\)/],
  [
    'a writable system',
    'indexer',
    (t) => t.replace(/^ProtectSystem=strict$/m, 'ProtectSystem=full'),
    /ProtectSystem=full, expected strict/,
  ],
  [
    'a data directory it cannot write',
    'indexer',
    (t) => t.replace(/^ReadWritePaths=.*$/m, 'ReadWritePaths=/var/lib/other'),
    /ReadWritePaths does not include the data directory \/var\/lib\/addrsum/,
  ],
  ['always restarting', 'api', (t) => t.replace(/^Restart=.*$/m, 'Restart=always'), /Restart=always, expected on-failure/],
  ['a short stop timeout', 'indexer', (t) => t.replace(/^TimeoutStopSec=.*$/m, 'TimeoutStopSec=10s'), /TimeoutStopSec 10s is under 60s/],
  [
    'tsx',
    'api',
    (t) => t.replace(/^ExecStart=.*$/m, 'ExecStart=/usr/bin/node --import tsx /opt/addrsum/src/api/addrsum-api.ts'),
    /runs TypeScript through tsx/,
  ],
  [
    'the wrong entry',
    'indexer',
    (t) => t.replace('dist/indexer/addrsum-indexer.js', 'dist/src/api/addrsum-api.js'),
    /runs dist\/src\/api\/addrsum-api\.js, expected/,
  ],
  ['a fixed chain', 'indexer', (t) => t.replaceAll('"$${1^^}"', 'BTC'), /instance ltc: --chain BTC, expected LTC/],
  [
    'a shell variable systemd would expand',
    'indexer',
    (t) => t.replaceAll('"$${1^^}"', '"${1^^}"'),
    /a \$\{…\} that systemd would expand itself/,
  ],
  [
    'credentials for the API',
    'api',
    (t) => t.replace(/^(EnvironmentFile=.*)$/m, '$1\nEnvironmentFile=/etc/addrsum/indexer-btc.env'),
    /reads an indexer's credentials/,
  ],
];

describe('each unit check catches a broken copy', () => {
  it.each(BROKEN)('%s (%s)', (_what, role, breakIt, expected) => {
    const broken = breakIt(read(role));
    expect(broken).not.toBe(read(role));
    const problems = unitProblems(role, broken);
    expect(
      problems.some((p) => expected.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });
});

const ANALYZE = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const HAS_ANALYZE = ANALYZE.status === 0;
if (!HAS_ANALYZE)
  console.warn('systemd.test.ts: systemd-analyze is not installed, `systemd-analyze verify` is SKIPPED (the key checks above still run)');

describe.skipIf(!HAS_ANALYZE)('systemd-analyze verify', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-systemd-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Verifies `text` as `name` (an instance of a template is loaded from the template file). */
  function verify(file: string, text: string, unitName = file) {
    // verify checks that ExecStart's program exists: point it at this machine's node.
    writeFileSync(path.join(dir, file), text.replaceAll('/usr/bin/node', process.execPath));
    return spawnSync('systemd-analyze', ['verify', path.join(dir, unitName)], { encoding: 'utf8', timeout: 60_000 });
  }

  it('accepts both units (and an indexer instance) without a warning', () => {
    for (const [file, name] of [
      [UNITS.api, UNITS.api],
      [UNITS.indexer, 'addrsum-indexer@ltc.service'],
    ] as const) {
      const text = readFileSync(path.join(UNIT_DIR, file), 'utf8');
      const run = verify(file, text, name);
      expect(run.stderr, name).toBe('');
      expect(run.status, name).toBe(0);
    }
  });

  it('reports a misspelt key or a bad value', () => {
    const run = verify(
      UNITS.indexer,
      read('indexer').replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes').replace('Restart=on-failure', 'Restart=sometimes'),
      'addrsum-indexer@btc.service',
    );
    expect(run.stderr).toMatch(/Unknown key 'NoNewPrivilege'/);
    expect(run.stderr).toMatch(/restart specifier.*sometimes/);
  });
});
