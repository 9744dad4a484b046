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

function run(...args: string[]): number {
  execFileSync('bash', ['scripts/ensure-deps.sh', ...args], {
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

  it('for the demo wants only litecoind; for the tests also the test tools, naming a lean apt line', () => {
    // PATH holds the stand-ins and the shell's own tools only: no redis-server, promtool, ….
    const env = { ...process.env, PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin` };
    const keep = ['bash', 'sha256sum', 'cut', 'cat', 'mkdir', 'dirname', 'chmod', 'printf'];
    const only = path.join(dir, 'only');
    mkdirSync(only);
    for (const tool of keep) {
      const found = execFileSync('bash', ['-c', `command -v ${tool}`], { env, encoding: 'utf8' }).trim();
      writeFileSync(path.join(only, tool), `#!/bin/sh\nexec ${found} "$@"\n`);
      chmodSync(path.join(only, tool), 0o755);
    }
    // As a normal user (no apt-get either): a missing tool stops the script with the line that installs it.
    writeFileSync(path.join(only, 'id'), '#!/bin/sh\necho 1000\n');
    chmodSync(path.join(only, 'id'), 0o755);
    const lean = { ...process.env, PATH: `${path.join(dir, 'bin')}:${only}` };
    expect(() => execFileSync('bash', ['scripts/ensure-deps.sh', 'demo'], { cwd: dir, env: lean, stdio: 'pipe' })).not.toThrow();
    const asUser = () => execFileSync(path.join(only, 'bash'), ['scripts/ensure-deps.sh', 'test'], { cwd: dir, env: lean, stdio: 'pipe' });
    expect(asUser).toThrow(/sudo apt-get install -y --no-install-recommends redis-server/);
  });
});
