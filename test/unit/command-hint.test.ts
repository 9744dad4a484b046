/** Hints name the command that exists in the install at hand: npm script, linked bin, or `node <file>`. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { currentHintEnv, ownCommand, type HintEnv } from '../../src/command-hint.js';

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-hint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = path.join(dir, 'pkg');
const bins = { 'addrsum-keys': 'dist/src/keys/addrsum-keys.js' };
const env = (over: Partial<HintEnv>): HintEnv => ({ fromSources: false, hasTsx: false, pathDirs: [], cwd: root, bins, root, ...over });

describe('ownCommand', () => {
  it('names the npm script in a checkout running the sources with tsx installed', () => {
    expect(ownCommand('keys', 'create', env({ fromSources: true, hasTsx: true }))).toBe('npm run keys -- create');
    // This very test runs from the sources with dev dependencies: the checkout case.
    expect(ownCommand('keys', 'list', currentHintEnv())).toBe('npm run keys -- list');
  });

  it('names the bin when one is on PATH, else the compiled file by its path', () => {
    const binDir = path.join(dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(path.join(binDir, 'addrsum-keys'), '');
    expect(ownCommand('keys', 'create', env({ pathDirs: [binDir] }))).toBe('addrsum-keys create');
    // Sources without tsx (an --omit=dev install never runs them, but be safe): not the npm script.
    expect(ownCommand('keys', 'create', env({ fromSources: true, pathDirs: [binDir] }))).toBe('addrsum-keys create');
    expect(ownCommand('keys', 'create', env({}))).toBe('node dist/src/keys/addrsum-keys.js create');
    expect(ownCommand('keys', 'create', env({ cwd: path.join(dir, 'elsewhere') }))).toBe(
      `node ${path.join(root, 'dist/src/keys/addrsum-keys.js')} create`,
    );
  });
});
