import path from 'node:path';
import type { ChainCode } from '../chain/params.js';
import { redactUrl } from '../redact.js';

/** Where a chain's index lives: `<dataDir>/btc.sqlite`, `<dataDir>/ltc.sqlite` (README: Configuration). */
export function chainDbPath(dataDir: string, chain: ChainCode): string {
  return path.join(dataDir, `${chain.toLowerCase()}.sqlite`);
}

/** A chain's index: its SQLite file, or PostgreSQL when `chains.<C>.indexUrl` is set (docs/scale-out.md). */
export type IndexLocation = { readonly engine: 'sqlite'; readonly file: string } | { readonly engine: 'postgres'; readonly url: string };

export function indexLocation(dataDir: string, chain: ChainCode, indexUrl: string | undefined): IndexLocation {
  return indexUrl === undefined ? { engine: 'sqlite', file: chainDbPath(dataDir, chain) } : { engine: 'postgres', url: indexUrl };
}

/** The location as it may be printed: the file's full path, or the URL without its password. */
export function describeLocation(where: IndexLocation): string {
  return where.engine === 'sqlite' ? path.resolve(where.file) : redactUrl(where.url);
}
