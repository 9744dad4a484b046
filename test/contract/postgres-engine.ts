/**
 * The PostgreSQL engine for the contract suite: ONE throwaway primary (harness/postgres.ts), started on
 * the first `create`, and a fresh database on it per index; dispose stops the cluster, and with it every
 * database. Also the child module (engine.ts ChildEngineModule) writer-child.ts loads, so it imports no
 * vitest and starts no cluster when loaded.
 */
import { fileURLToPath } from 'node:url';
import { startPrimary, type PgCluster } from '../../harness/postgres.js';
import { openPostgresReader, openPostgresVerifier, openPostgresWriter } from '../../src/store/postgres/engine.js';
import type { IndexWriter } from '../../src/store/ports.js';
import type { EngineFactory, EngineIndex, WriterOptions } from './engine.js';

const MODULE = fileURLToPath(import.meta.url);

export function openWriter(location: string, opts: WriterOptions): Promise<IndexWriter> {
  return openPostgresWriter(location, opts);
}

/** Every feature of the contract (issue 34). */
export const POSTGRES_FEATURES = { history: true, mempool: true, utxoList: true, snapshot: true } as const;

/** `url` with its database name replaced. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface PostgresEngine extends EngineFactory {
  /** The primary the indexes live on (started if not yet). */
  primary(): Promise<PgCluster>;
}

export function postgresEngine(): PostgresEngine {
  let cluster: Promise<PgCluster> | null = null;
  let made = 0;
  const primary = (): Promise<PgCluster> => (cluster ??= startPrimary());
  return {
    features: POSTGRES_FEATURES,
    primary,
    async create({ chain, network }) {
      const name = `addrsum_test_${++made}`;
      await (await primary()).sql(`CREATE DATABASE ${name}`);
      const location = databaseUrl((await primary()).url, name);
      // Readers open only a created schema: the first writer creates and migrates it.
      await (await openWriter(location, { chain, network, undoDepth: 1 })).close();
      const index: EngineIndex = {
        openWriter: (opts) => openWriter(location, opts),
        openReader: () => openPostgresReader(location, { chain, network }),
        openVerifier: () => openPostgresVerifier(location, chain),
        child: { module: MODULE, location },
      };
      return index;
    },
    async dispose() {
      const started = cluster;
      cluster = null;
      if (started) await (await started).stop();
    },
  };
}
