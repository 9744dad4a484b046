/**
 * Where the package's own files are (config/, migrations/, package.json), whether the code runs from
 * the TypeScript sources (`src/…`) or from the build (`dist/src/…`): the nearest folder above this
 * module that holds package.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export function packageFile(...segments: string[]): string {
  return path.join(PACKAGE_ROOT, ...segments);
}

export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
