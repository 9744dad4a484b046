/**
 * The one way tests reach their data: files under test/fixtures (origins in test/fixtures/README.md).
 * Everything a test reads lives in the repository, so a plain clone runs the whole suite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(relative, new URL('../fixtures/', import.meta.url)));
}

export function readFixture(relative: string): Buffer {
  return readFileSync(fixturePath(relative));
}

export function readJsonFixture<T>(relative: string): T {
  return JSON.parse(readFixture(relative).toString('utf8')) as T;
}

/** A raw block or transaction kept as a hex text file. */
export function readHexFixture(relative: string): Buffer {
  return Buffer.from(readFixture(relative).toString('utf8').trim(), 'hex');
}

export function listFixtures(relativeDir: string, suffix: string): string[] {
  return readdirSync(fixturePath(relativeDir))
    .filter((f) => f.endsWith(suffix))
    .sort();
}
