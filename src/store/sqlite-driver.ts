/**
 * The one place better-sqlite3 is loaded, in the major that is safe on the running Node:
 * - Node 20: 12.x (13.x needs Node >= 22 and crashes on 20);
 * - Node >= 22: 13.x, built on Node-API. 12.x derives its Database and Statement from the raw
 *   node::ObjectWrap, whose destructor on Node >= 24.19 asserts that a JavaScript environment is
 *   current; a statement collected by an idle GC, or at exit, then aborts the process (SIGABRT,
 *   "Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook).
 * Both majors have the same JavaScript API; the types are 12.x's (@types/better-sqlite3).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const SQLITE_PACKAGE = nodeMajor >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3';

const Database = require(SQLITE_PACKAGE) as typeof BetterSqlite3;

/** The same package by path, for worker threads that load it themselves (checkpointer.ts). */
export const SQLITE_MODULE_PATH = require.resolve(SQLITE_PACKAGE);

export default Database;
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement<P extends unknown[], R> = BetterSqlite3.Statement<P, R>;
