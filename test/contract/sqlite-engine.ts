/**
 * The SQLite engine for the contract suite: each index is a file in a temporary directory removed at the
 * end. Also the child module (engine.ts ChildEngineModule) writer-child.ts loads, so it imports no vitest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteReader, openSqliteVerifier, openSqliteWriter } from '../../src/store/sqlite/engine.js';
import type { IndexWriter } from '../../src/store/ports.js';
import type { EngineFactory, EngineIndex, WriterOptions } from './engine.js';

const MODULE = fileURLToPath(import.meta.url);

export function openWriter(location: string, opts: WriterOptions): Promise<IndexWriter> {
  // A small page cache: several writers and children share a 2-core test machine.
  return Promise.resolve(openSqliteWriter(location, { ...opts, cacheMiB: 8 }));
}

export function sqliteEngine(): EngineFactory {
  let dir: string | null = null;
  let made = 0;
  return {
    async create({ chain, network }) {
      dir ??= mkdtempSync(join(tmpdir(), 'addrsum-contract-'));
      const path = join(dir, `index-${++made}.sqlite`);
      // Readers open only an initialised file: the first writer creates and migrates it.
      await (await openWriter(path, { chain, network, undoDepth: 1 })).close();
      const index: EngineIndex = {
        openWriter: (opts) => openWriter(path, opts),
        openReader: () => Promise.resolve(openSqliteReader(path)),
        openVerifier: () => Promise.resolve(openSqliteVerifier(path)),
        child: { module: MODULE, location: path },
      };
      return index;
    },
    dispose() {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = null;
      return Promise.resolve();
    },
  };
}
