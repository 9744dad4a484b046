/**
 * One side of bench/engine-ports.ts, in a child process: bootstraps an index from a synthetic snapshot and
 * applies blocks on top, one commit per block, with the code of the repository at `root` — through the
 * writer port where that checkout has one (src/store/sqlite/engine.ts), else through ChainStore directly
 * (the code before the ports). Prints one JSON line of figures.
 *
 *   node --import tsx bench/engine-ports-probe.ts <root> <snapshot file> <db file> <base hash hex> <groups>
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASE_HEIGHT, blocksOnTop } from './scale.js';

/** What the probe needs of a writer, whichever code opened it. */
interface Writer {
  applyBlocks(blocks: unknown[]): unknown;
  close(): unknown;
}

const [root, snapshotFile, dbFile, baseHex, groupsText] = process.argv.slice(2) as [string, string, string, string, string];
const load = (rel: string): Promise<Record<string, unknown>> =>
  import(pathToFileURL(path.join(root, rel)).href) as Promise<Record<string, unknown>>;

async function openWriter(): Promise<{ writer: Writer; through: string }> {
  const opts = { chain: 'BTC', network: 'regtest' };
  if (existsSync(path.join(root, 'src/store/sqlite/engine.ts'))) {
    const { openSqliteWriter } = (await load('src/store/sqlite/engine.ts')) as { openSqliteWriter: (p: string, o: object) => Writer };
    return { writer: openSqliteWriter(dbFile, opts), through: 'writer port' };
  }
  const { ChainStore } = (await load('src/store/chain-store.ts')) as { ChainStore: { open: (p: string, o: object) => Writer } };
  return { writer: ChainStore.open(dbFile, opts), through: 'ChainStore' };
}

async function main(): Promise<void> {
  const { SnapshotFile } = (await load('indexer/snapshot-reader.ts')) as {
    SnapshotFile: { open: (file: string, chain: string, network: string) => unknown };
  };
  const { loadSnapshot } = (await load('indexer/bootstrap.ts')) as {
    loadSnapshot: (snap: object, store: Writer, log: object) => unknown;
  };
  const baseHash = Buffer.from(baseHex, 'hex');
  const { writer, through } = await openWriter();
  try {
    const quiet = { info: () => undefined, warn: () => undefined };
    const snap = {
      file: SnapshotFile.open(snapshotFile, 'BTC', 'regtest'),
      height: BASE_HEIGHT,
      hash: baseHash,
      prevHash: Buffer.alloc(32),
    };
    let t = performance.now();
    await loadSnapshot(snap, writer, quiet);
    const bootstrapSeconds = (performance.now() - t) / 1000;
    const blocks = blocksOnTop(Number(groupsText), baseHash, 'ascending');
    // This checkout builds the blocks with bigint values (issue 32); a checkout from before takes numbers.
    if (!readFileSync(path.join(root, 'src/chain/tx-parser.ts'), 'utf8').includes('value: bigint')) {
      for (const b of blocks) for (const tx of b.txs) for (const o of tx.outputs) (o as { value: unknown }).value = Number(o.value);
    }
    t = performance.now();
    for (const b of blocks) await writer.applyBlocks([b]);
    const blocksPerSec = blocks.length / ((performance.now() - t) / 1000);
    process.stdout.write(`${JSON.stringify({ through, bootstrapSeconds, blocksPerSec })}\n`);
  } finally {
    await writer.close();
  }
}

await main();
