/**
 * Benchmark "disk": bytes per UTXO of our chain database, for the benchmark chain's index as the real
 * indexer left it (bench/node.ts keeps it under data/bench/index-<version>/; built here if absent).
 *
 *   npx tsx bench/disk.ts          (or: npm run bench -- disk)
 *
 * Works on a temporary copy (the cache is never touched): checkpoint the WAL into the main file
 * (TRUNCATE), then file size (main + WAL) ÷ UTXO count; also after VACUUM (VACUUM INTO another copy),
 * and per table from SQLite's dbstat. Reference, for scale: litecoind's own UTXO database (chainstate,
 * LevelDB, compressed coins) for the same chain. Goal: ≤ 100 bytes per UTXO.
 */
import Database from '../src/store/sqlite/sqlite-driver.js';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chainCacheDir, ensureBenchChain, type BenchChain } from './bench-chain.js';
import { copyIndex, ensureBenchIndex } from './bench-index.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, today, writeSection } from './report.js';

const GOAL = 100;

export interface TableSize {
  name: string;
  rows: number;
  bytes: number;
  /** Bytes of row data (keys and values) in its cells, without SQLite's page and cell overhead. */
  payload: number;
  /** Bytes of its pages not used by any cell. */
  unused: number;
}

export interface DiskBenchResult {
  chain: BenchChain;
  utxos: number;
  scripts: number;
  /** Main file + WAL after a TRUNCATE checkpoint. */
  fileBytes: number;
  walBytesBefore: number;
  vacuumedBytes: number;
  freeBytes: number;
  pageSize: number;
  tables: TableSize[];
  nodeChainstateBytes: number;
  bytesPerUtxo: number;
  vacuumedBytesPerUtxo: number;
  nodeBytesPerUtxo: number;
  goalMet: boolean;
}

async function sizeOf(path: string): Promise<number> {
  return existsSync(path) ? (await stat(path)).size : 0;
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? await dirBytes(p) : (await stat(p)).size;
  }
  return total;
}

export async function runDiskBench(opts: { write?: boolean; log?: (line: string) => void } = {}): Promise<DiskBenchResult> {
  const log = opts.log ?? console.log;
  const chain = await ensureBenchChain(log);
  const source = await ensureBenchIndex(log);
  const tmp = await mkdtemp(join(tmpdir(), 'addrsum-bench-disk-'));
  trackDir(tmp);
  try {
    const copy = join(tmp, 'ltc.sqlite');
    await copyIndex(source, copy);
    const walBytesBefore = await sizeOf(`${copy}-wal`);
    const vacuumed = join(tmp, 'vacuumed.sqlite');
    const db = new Database(copy);
    let tables: TableSize[];
    let utxos: number;
    let scripts: number;
    let pageSize: number;
    let freeBytes: number;
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
      utxos = db.prepare('SELECT COUNT(*) FROM utxos').pluck().get() as number;
      scripts = db.prepare('SELECT COUNT(*) FROM scripts').pluck().get() as number;
      pageSize = db.pragma('page_size', { simple: true }) as number;
      freeBytes = (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
      const stats = db
        .prepare(
          'SELECT name, SUM(pgsize) AS bytes, SUM(payload) AS payload, SUM(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC',
        )
        .all() as Omit<TableSize, 'rows'>[];
      const names = new Set(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
      tables = stats.map((t) => ({
        ...t,
        rows: names.has(t.name)
          ? (db
              .prepare(`SELECT COUNT(*) FROM "${t.name.replaceAll('"', '""')}"`)
              .pluck()
              .get() as number)
          : 0,
      }));
      db.prepare('VACUUM INTO ?').run(vacuumed);
    } finally {
      db.close();
    }
    // Closing the last connection checkpoints again and removes the WAL; measure after.
    const fileBytes = (await sizeOf(copy)) + (await sizeOf(`${copy}-wal`));
    const vacuumedBytes = await sizeOf(vacuumed);
    const nodeChainstateBytes = await dirBytes(join(chainCacheDir(), 'regtest', 'chainstate'));
    if (utxos !== chain.utxoCount) throw new Error(`disk bench: the index holds ${utxos} UTXOs, the chain ${chain.utxoCount}`);
    const result: DiskBenchResult = {
      chain,
      utxos,
      scripts,
      fileBytes,
      walBytesBefore,
      vacuumedBytes,
      freeBytes,
      pageSize,
      tables,
      nodeChainstateBytes,
      bytesPerUtxo: fileBytes / utxos,
      vacuumedBytesPerUtxo: vacuumedBytes / utxos,
      nodeBytesPerUtxo: nodeChainstateBytes / utxos,
      goalMet: fileBytes / utxos <= GOAL,
    };
    log(
      `disk: ${utxos} UTXOs, ${scripts} scripts; ${(fileBytes / 1e6).toFixed(2)} MB = ${result.bytesPerUtxo.toFixed(1)} B/UTXO ` +
        `(after VACUUM ${result.vacuumedBytesPerUtxo.toFixed(1)}; litecoind chainstate ${result.nodeBytesPerUtxo.toFixed(1)})`,
    );
    for (const t of tables)
      log(`  ${t.name.padEnd(14)} ${(t.bytes / 1e6).toFixed(2).padStart(7)} MB  ${(t.bytes / utxos).toFixed(1).padStart(6)} B/UTXO`);
    log(`  goal ≤ ${GOAL} B/UTXO: ${result.goalMet ? 'MET' : 'NOT MET'}`);
    if (opts.write !== false) writeSection('disk', report(result));
    return result;
  } finally {
    await rm(tmp, { recursive: true, force: true });
    untrackDir(tmp);
  }
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const b1 = (x: number): string => x.toFixed(1);

function report(r: DiskBenchResult): string {
  const rows = r.tables
    .map((t) => {
      const perRow = t.rows > 0 ? `${b1(t.bytes / t.rows)} (payload ${b1(t.payload / t.rows)})` : '–';
      const fill = t.bytes > 0 ? `${((1 - t.unused / t.bytes) * 100).toFixed(0)} %` : '–';
      return `| \`${t.name}\` | ${int(t.rows)} | ${int(t.bytes)} | ${perRow} | ${fill} | ${b1(t.bytes / r.utxos)} |`;
    })
    .join('\n');
  const ratio = r.bytesPerUtxo / r.nodeBytesPerUtxo;
  return `## disk — bytes per UTXO of the chain database

The index \`bench/node.ts\` built of the benchmark chain (${int(r.chain.height)} blocks, ${int(r.utxos)} UTXOs held by ${int(r.scripts)}
scripts; see the node section), as the real indexer left it, copied; the WAL (${int(r.walBytesBefore)} bytes as found)
checkpointed into the main file with \`wal_checkpoint(TRUNCATE)\`. Everything counts: every table, their
primary-key b-trees (there are no other indexes), undo data of the last 288 blocks, free pages.

| measurement | ours | reference | ratio | goal | met |
|---|---|---|---|---|---|
| bytes per UTXO (ltc.sqlite + WAL ÷ UTXOs) | **${b1(r.bytesPerUtxo)} B** (${int(r.fileBytes)} bytes) | litecoind's chainstate for the same chain (LevelDB, compressed coins, no per-address data): ${b1(r.nodeBytesPerUtxo)} B (${int(r.nodeChainstateBytes)} bytes) | ${ratio.toFixed(2)}× the node's | ≤ ${GOAL} B | ${r.goalMet ? 'yes' : '**no**'} |
| the same after \`VACUUM\` (for information) | ${b1(r.vacuumedBytesPerUtxo)} B (${int(r.vacuumedBytes)} bytes) | | | | |

**Goal met: ${r.goalMet ? 'yes' : 'no'}.**

Where the bytes are (SQLite \`dbstat\`, page size ${r.pageSize}, before VACUUM; free pages: ${int(r.freeBytes)} bytes):

| b-tree | rows | bytes | bytes per row | pages filled | bytes per UTXO |
|---|---|---|---|---|---|
${rows}

- A \`utxos\` row is a 33–36-byte outpoint key, a 16-byte script key, value and height; a \`scripts\` row is the
  16-byte script key, balance and count. This chain has ${(r.scripts / r.utxos).toFixed(2)} scripts per UTXO (most payments go to a fresh
  script), the costly case for the aggregates; mainnet reuses addresses far more (Bitcoin: roughly 0.3
  addresses with a balance per UTXO), and at 0.3 the row sizes above give ~${b1(perUtxoAt(r, 0.3))} B per UTXO (computed, not measured).
- Pages are ${fillOf(r, 'utxos')} (\`utxos\`) and ${fillOf(r, 'scripts')} (\`scripts\`) full: UTXOs arrive and leave in random key order, and b-tree
  splits leave room behind. VACUUM packs them; that is what an occasional \`VACUUM\` would reach.
${r.goalMet ? '' : closeTheGap(r)}- The node's figure is for scale only: it stores each coin compressed (script templates, varints) in
  LevelDB with Snappy, and has no index by address at all — answering one needs the full scan the node
  section measures.
- Command: \`npx tsx bench/disk.ts\` (or \`npm run bench -- disk\`; it builds the index first if bench/node.ts
  has not). Measured ${today()} on ${machineLine()}.`;
}

function table(r: DiskBenchResult, name: string): TableSize | undefined {
  return r.tables.find((t) => t.name === name);
}

function fillOf(r: DiskBenchResult, name: string): string {
  const t = table(r, name);
  return t && t.bytes > 0 ? `${((1 - t.unused / t.bytes) * 100).toFixed(0)} %` : '?';
}

/** Bytes per UTXO if the chain had `scriptsPerUtxo` scripts per UTXO, from this run's row sizes. */
function perUtxoAt(r: DiskBenchResult, scriptsPerUtxo: number): number {
  const scripts = table(r, 'scripts');
  const scriptRow = scripts && scripts.rows > 0 ? scripts.bytes / scripts.rows : 0;
  return r.bytesPerUtxo - (scripts?.bytes ?? 0) / r.utxos + scriptsPerUtxo * scriptRow;
}

/** Said when the goal is missed. */
function closeTheGap(r: DiskBenchResult): string {
  const reuse = perUtxoAt(r, 0.3);
  return `- What would close the gap (${b1(r.bytesPerUtxo)} B against ${GOAL} B): (1) a \`VACUUM\` once the initial sync is done:
  ${b1(r.vacuumedBytesPerUtxo)} B here (measured above)${r.vacuumedBytesPerUtxo <= GOAL ? ', enough on its own' : ''}; (2) dropping \`utxos.height\`, which only the undo path and one
  error message read: ~3–4 B per UTXO (computed); (3) the catch-up batching fix of the node section packs
  pages a little better (a trial build with 20,000-transaction commits, 2026-11-23: 99.0 B). At a
  mainnet-like address reuse the code as it stands ${reuse <= GOAL ? 'already meets the goal' : 'still misses it'} (~${b1(reuse)} B, above).
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDiskBench();
  process.exit(0);
}
