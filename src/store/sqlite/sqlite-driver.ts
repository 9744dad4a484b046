/**
 * The one place better-sqlite3 is loaded, in the major that is safe on the running Node:
 * - Node 20: 12.x (13.x needs Node >= 22 and crashes on 20);
 * - Node >= 22: 13.x, built on Node-API. 12.x derives its Database and Statement from the raw
 *   node::ObjectWrap, whose destructor on Node >= 24.19 asserts that a JavaScript environment is
 *   current; a statement collected by an idle GC, or at exit, then aborts the process (SIGABRT,
 *   "Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook).
 * Both majors have the same JavaScript API; the types are 12.x's (@types/better-sqlite3). 13.x is an
 * optional dependency (`better-sqlite3-node22`), which npm installs only on a Node it supports, so an
 * install made on Node 20 lacks it on a newer Node: say so rather than fail with a bare MODULE_NOT_FOUND.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const SQLITE_PACKAGE = nodeMajor >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3';

function load(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_PACKAGE) as typeof BetterSqlite3;
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || SQLITE_PACKAGE === 'better-sqlite3') throw err;
    throw new Error(
      `${SQLITE_PACKAGE} is not installed: node_modules was installed on an older Node; run \`npm ci\` on Node ${process.versions.node}`,
      { cause: err },
    );
  }
}

const Database = load();

/** The same package by path, for worker threads that load it themselves (checkpointer.ts). */
export const SQLITE_MODULE_PATH = require.resolve(SQLITE_PACKAGE);

export default Database;
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement<P extends unknown[], R> = BetterSqlite3.Statement<P, R>;
