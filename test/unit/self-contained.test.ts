/**
 * The repository stands alone: a plain clone (no sibling folders, nothing untracked) holds every fixture
 * the tests name, and no file reads or names a path outside the repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOADER_CALL = /\b(?:readFixture|readJsonFixture(?:<[^>]*>)?|readHexFixture|fixturePath|listFixtures)\(\s*(['`])([^'`]*)\1/g;
/** A relative path in a string literal: `'../x'`, `'./x'`, `` `../x/${y}` ``. */
const RELATIVE_LITERAL = /(['"`])((?:\.\.?\/)+[^'"`\s]*)\1/g;
// Built from parts so this file does not match its own check.
const FORBIDDEN = ['..' + '/shared/', 'shared' + '/testdata', '/work' + '/'];
const TEXT_FILE = /\.(ts|js|json|md|sh|yml|yaml|toml|sql|service|txt)$|^(Dockerfile|\.ci\/run)$/;

let clone = '';
let files: string[] = [];

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-clone-'));
  clone = path.join(dir, 'addrsum');
  if (existsSync(path.join(ROOT, '.git'))) {
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    files = execFileSync('git', ['ls-files'], { cwd: clone, encoding: 'utf8' }).split('\n');
  } else {
    // Not a git checkout (an unpacked archive): check the tree as it is, without what installs and runs make.
    clone = ROOT;
    files = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => !/^(node_modules|\.cache|dist|data)(\/|$)/.test(f));
  }
  files = files.filter((f) => f !== '' && TEXT_FILE.test(f));
}, 60_000);

afterAll(() => {
  if (clone !== ROOT) rmSync(path.dirname(clone), { recursive: true, force: true });
});

const read = (file: string) => readFileSync(path.join(clone, file), 'utf8');

describe('a fresh clone', () => {
  it('holds every fixture a test names through the fixture loader', () => {
    const named: string[] = [];
    for (const file of files.filter((f) => f.startsWith('test/') && f.endsWith('.ts'))) {
      for (const m of read(file).matchAll(LOADER_CALL)) {
        // A template literal names a file inside a directory: check the directory part.
        const literal = m[2]!;
        named.push(literal.includes('${') ? literal.slice(0, literal.lastIndexOf('/', literal.indexOf('${')) + 1) : literal);
      }
    }
    expect(named.length).toBeGreaterThan(5);
    const missing = named.filter((f) => !existsSync(path.join(clone, 'test/fixtures', f)));
    expect(missing).toEqual([]);
  });

  it('has no relative path that leads outside the repository', () => {
    const escaping: string[] = [];
    for (const file of files.filter((f) => /\.(ts|js|sh)$/.test(f))) {
      for (const m of read(file).matchAll(RELATIVE_LITERAL)) {
        const target = path.resolve(path.dirname(path.join(clone, file)), m[2]!);
        if (path.relative(clone, target).startsWith('..')) escaping.push(`${file}: ${m[2]}`);
      }
    }
    expect(escaping).toEqual([]);
  });

  it('names no folder outside the repository', () => {
    const hits = files.flatMap((file) => {
      const text = read(file);
      return FORBIDDEN.filter((s) => text.includes(s)).map((s) => `${file}: ${s}`);
    });
    expect(hits).toEqual([]);
  });
});
