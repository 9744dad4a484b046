/**
 * scripts/ensure-deps.sh decides by content: it installs npm packages when none are installed or when
 * package-lock.json differs from the one last installed, and never because of file dates.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/ensure-deps.sh', import.meta.url));
let dir = '';

/** A project copy with stand-ins: `npm ci` records its call and "installs" vitest; litecoind exists. */
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-deps-'));
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'bin'));
  copyFileSync(SCRIPT, path.join(dir, 'scripts/ensure-deps.sh'));
  writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
  const stub = (name: string, body: string) => {
    writeFileSync(path.join(dir, 'bin', name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(dir, 'bin', name), 0o755);
  };
  stub(
    'npm',
    `echo "$*" >> "${dir}/npm-calls"; mkdir -p node_modules/.bin; printf '#!/bin/sh\\n' > node_modules/.bin/vitest; chmod +x node_modules/.bin/vitest`,
  );
  stub('litecoind', 'exit 0');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(): number {
  execFileSync('bash', ['scripts/ensure-deps.sh'], {
    cwd: dir,
    env: { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}` },
    stdio: 'pipe',
  });
  try {
    return readFileSync(path.join(dir, 'npm-calls'), 'utf8').trim().split('\n').length;
  } catch {
    return 0;
  }
}

describe('ensure-deps', () => {
  it('installs once, and not again while the lock file is unchanged, even when it is newer', () => {
    expect(run()).toBe(1);
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(path.join(dir, 'package-lock.json'), future, future);
    expect(run()).toBe(1);
  });

  it('installs again when the lock file changes, or the packages are gone', () => {
    expect(run()).toBe(1);
    writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n');
    expect(run()).toBe(2);
    rmSync(path.join(dir, 'node_modules'), { recursive: true });
    expect(run()).toBe(3);
  });
});
