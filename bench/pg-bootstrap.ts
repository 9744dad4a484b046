/**
 * Benchmark "pg-bootstrap": the UTXO-snapshot bootstrap on both engines side by side, on one synthetic
 * Bitcoin Core snapshot of N coins (bench/scale-snapshot.ts: mainnet's script mix and address reuse,
 * txids ascending as in a real dump), loaded by the real bootstrap path (indexer/bootstrap.ts: the
 * file's decoder, its per-script sums and coinbases) into
 *   - SQLite: a fresh file (src/store/sqlite), and
 *   - PostgreSQL: a fresh schema on a throwaway primary (harness/postgres.ts) with the settings below
 *     (src/store/postgres/snapshot-load.ts: binary COPY straight into utxos without its key, then the
 *     key and the aggregates built in bulk).
 *
 *   npx tsx bench/pg-bootstrap.ts <N> [--write]       (e.g. 2000000; --write: BENCHMARKS.md's section)
 *   npx tsx bench/pg-bootstrap.ts <N> --postgres-only (PostgreSQL alone: the 185M run, whose two indexes
 *                                                      side by side do not fit this machine's disk)
 *   ADDRSUM_BENCH_PG_BOOTSTRAP_LOG=1 …                (also the server's statements over 100 ms)
 *
 * Prints, per engine: elapsed wall time, coins/s, the time of each load phase, and bytes per UTXO
 * (SQLite: the file's used pages; PostgreSQL: pg_total_relation_size of every table of the chain's
 * schema, indexes and TOAST included). Files go to ADDRSUM_BENCH_PG_BOOTSTRAP_DIR (default
 * data/bench/pg-bootstrap), the cluster to the system's temp directory (TMPDIR); both are deleted
 * afterwards (the files this run wrote, and the whole cluster).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { startPrimary, type PgCluster } from '../harness/postgres.js';
import { loadSnapshot } from '../indexer/bootstrap.js';
import { SnapshotFile } from '../indexer/snapshot-reader.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../src/store/sqlite/engine.js';
import { openPostgresWriter } from '../src/store/postgres/engine.js';
import { chainSchema } from '../src/store/postgres/chain-schema.js';
import type { BootstrapWriter } from '../indexer/bootstrap.js';
import type { Totals } from '../src/store/index-model.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, today, writeSection } from './report.js';
import { BASE_HEIGHT } from './scale.js';
import { writeSyntheticSnapshot, type SyntheticSnapshot } from './scale-snapshot.js';

/**
 * The server's settings for a bulk load on a small machine: a bigger cache than the harness's 32 MB, WAL
 * room so that the index build is not cut by checkpoints, sort memory for the index build.
 */
const PG_SETTINGS = { shared_buffers: '512MB', max_wal_size: '8GB', maintenance_work_mem: '512MB', work_mem: '256MB' };

/** ADDRSUM_BENCH_PG_BOOTSTRAP_LOG=1: the server logs every statement over 100 ms, printed after the runs (where the time goes). */
const STATEMENT_LOG = process.env.ADDRSUM_BENCH_PG_BOOTSTRAP_LOG === '1';

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

interface EngineRun {
  engine: string;
  seconds: number;
  totals: Totals;
  bytes: number;
  /** Seconds from the start to each phase's start. */
  phases: Record<string, number>;
}

const say = (line: string): void => void process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** Runs the real bootstrap of `file` into `writer`; returns its wall time, totals and phase starts. */
async function bootstrap(file: string, snap: SyntheticSnapshot, writer: BootstrapWriter & { totals(): Promise<Totals> }) {
  const phases: Record<string, number> = {};
  const log = {
    info: (obj: object, msg: string): void => {
      const o = obj as { phase?: string; seconds?: number };
      if (o.phase !== undefined && o.seconds !== undefined) phases[o.phase] = o.seconds;
      say(`  ${msg}`);
    },
  };
  const t = performance.now();
  await loadSnapshot(
    { file: SnapshotFile.open(file, 'BTC', 'regtest'), height: BASE_HEIGHT, hash: snap.baseHash, prevHash: Buffer.alloc(32) },
    writer,
    log,
  );
  return { seconds: (performance.now() - t) / 1000, totals: await writer.totals(), phases };
}

async function runSqlite(dir: string, file: string, snap: SyntheticSnapshot): Promise<EngineRun> {
  const dbPath = join(dir, 'btc.sqlite');
  for (const p of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) rmSync(p, { force: true });
  const store = ChainStore.open(dbPath, { chain: 'BTC', network: 'regtest' });
  try {
    const run = await bootstrap(file, snap, new SqliteIndexWriter(store, 'BTC', 'regtest'));
    const db = store.db;
    const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
    return { engine: 'SQLite', ...run, bytes: pages * (db.pragma('page_size', { simple: true }) as number) };
  } finally {
    store.close();
    for (const p of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) rmSync(p, { force: true });
  }
}

/** Every table of the schema with its indexes and TOAST, as the server stores it. */
async function schemaBytes(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string }>(
      "SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC",
      [schema],
    );
    // Where the bytes are, for the notes: the biggest tables with their indexes.
    for (const r of rows.slice(0, 3)) say(`  ${r.name}: ${fmt(Number(r.bytes))} bytes with its indexes`);
    return rows.reduce((sum, r) => sum + Number(r.bytes), 0);
  } finally {
    await client.end();
  }
}

async function runPostgres(cluster: PgCluster, file: string, snap: SyntheticSnapshot): Promise<EngineRun> {
  const writer = await openPostgresWriter(cluster.url, { chain: 'BTC', network: 'regtest' });
  try {
    const run = await bootstrap(file, snap, writer);
    return { engine: 'PostgreSQL', ...run, bytes: await schemaBytes(cluster.url, chainSchema('BTC')) };
  } finally {
    await writer.close();
  }
}

function table(runs: readonly EngineRun[]): string[] {
  const phaseNames = ['reading coins in txid order', 'building aggregates', 'committing'];
  const lines = [
    '| engine | elapsed | coins/s | reading coins | building aggregates | committing | B/UTXO | scripts |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of runs) {
    const starts = phaseNames.map((p) => r.phases[p]);
    const spans = starts.map((s, i) => {
      if (s === undefined) return '–';
      const end = starts.slice(i + 1).find((x) => x !== undefined) ?? r.seconds;
      return `${fmt(end - s, 1)} s`;
    });
    lines.push(
      `| ${r.engine} | ${fmt(r.seconds, 1)} s | ${fmt(r.totals.utxos / r.seconds)} | ${spans.join(' | ')} | ${fmt(r.bytes / r.totals.utxos, 1)} | ${fmt(r.totals.scripts)} |`,
    );
  }
  return lines;
}

export async function runPgBootstrapBench(coins: number, write: boolean, postgresOnly = false): Promise<EngineRun[]> {
  if (!Number.isSafeInteger(coins) || coins < 1000) throw new Error('N must be an integer ≥ 1,000');
  const dir = process.env.ADDRSUM_BENCH_PG_BOOTSTRAP_DIR ?? fileURLToPath(new URL('../data/bench/pg-bootstrap', import.meta.url));
  trackDir(dir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `utxo-${coins}.dat`);
  let cluster: PgCluster | undefined;
  try {
    let t = performance.now();
    const snap = writeSyntheticSnapshot(file, coins, BASE_HEIGHT);
    say(
      `wrote ${fmt(snap.bytes)} bytes (${fmt(coins)} coins, ${fmt(snap.scripts)} scripts) in ${fmt((performance.now() - t) / 1000, 1)} s`,
    );
    t = performance.now();
    cluster = await startPrimary({ settings: { ...PG_SETTINGS, ...(STATEMENT_LOG && { log_min_duration_statement: '100' }) } });
    say(`PostgreSQL primary up in ${fmt((performance.now() - t) / 1000, 1)} s`);
    const runs: EngineRun[] = [];
    if (!postgresOnly) {
      say('SQLite:');
      runs.push(await runSqlite(dir, file, snap));
    }
    say('PostgreSQL:');
    runs.push(await runPostgres(cluster, file, snap));
    if (STATEMENT_LOG) process.stdout.write(cluster.logTail());
    const lines = table(runs);
    for (const l of lines) process.stdout.write(`${l}\n`);
    const [a, b] = runs;
    if (a && b && (a.totals.utxos !== b.totals.utxos || a.totals.amount !== b.totals.amount || a.totals.scripts !== b.totals.scripts))
      throw new Error(
        `the engines disagree: ${JSON.stringify([a.totals, b.totals], (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
      );
    if (write)
      writeSection(
        postgresOnly ? 'pg-bootstrap-alone' : 'pg-bootstrap',
        [
          postgresOnly
            ? '## pg-bootstrap-alone — the UTXO-snapshot bootstrap on PostgreSQL alone, at the goal size (issue 34)'
            : '## pg-bootstrap — the UTXO-snapshot bootstrap, PostgreSQL (binary COPY) beside SQLite (issue 34)',
          '',
          `Command: \`npx tsx bench/pg-bootstrap.ts ${coins}${postgresOnly ? ' --postgres-only' : ''} --write\`. Goal: the 185,000,000-coin bootstrap through COPY in at most 45 minutes.`,
          `Bootstrap of a synthetic snapshot of ${fmt(coins)} coins on ${postgresOnly ? 'PostgreSQL alone' : 'both engines'} (bench/pg-bootstrap.ts, ${today()}; ${machineLine()}; load average ${fmt(loadavg()[0]!, 1)}).`,
          `PostgreSQL ${Object.entries(PG_SETTINGS)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}; B/UTXO: SQLite used pages, PostgreSQL pg_total_relation_size of the schema's tables.`,
          '',
          ...lines,
        ].join('\n'),
      );
    return runs;
  } finally {
    await cluster?.stop();
    rmSync(file, { force: true });
    untrackDir(dir);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const coins = Number(args.find((a) => !a.startsWith('--')) ?? 2_000_000);
  runPgBootstrapBench(coins, args.includes('--write'), args.includes('--postgres-only')).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
