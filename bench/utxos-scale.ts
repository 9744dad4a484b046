/**
 * Benchmark "utxos-scale" (issue 23 at mainnet size): the opt-in UTXO listing on an index of N coins
 * bootstrapped from a snapshot.
 *
 *   npm run bench -- utxos-scale                                            (N = 185,000,000)
 *   ADDRSUM_BENCH_UTXOS_SCALE_COINS=2000000 npx tsx bench/utxos-scale.ts    (a quick run)
 *
 * A synthetic Bitcoin Core snapshot of N coins (bench/scale-snapshot.ts, txids ascending as in a real
 * dump) is loaded by the real bootstrap path, then, on the same file, in this order:
 *   1. BLOCKS blocks of 3,000 txs (each spending a random old output and paying two) applied one commit
 *      per block without the listing: the reference;
 *   2. the listing built as the indexer's first start with `utxoList` on builds it (ChainStore.setUtxoList),
 *      timed, its progress events printed;
 *   3. the next BLOCKS blocks, same shape, applied with the listing.
 * A bootstrap with the listing on is the load followed by that build (indexer/main.ts), so its time is
 * the two added. Goals: that ≤ 30 min; ≤ 150 B/UTXO with the listing; block apply with it ≥ 0.8× without.
 * The reference runs first, on a file without the listing's pages: the order is part of what is measured,
 * and the section says so. Files go to ADDRSUM_BENCH_UTXOS_SCALE_DIR (default data/bench/utxos-scale) and
 * are deleted afterwards.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { freemem, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../src/store/sqlite/engine.js';
import { SnapshotFile } from '../indexer/snapshot-reader.js';
import { loadSnapshot } from '../indexer/bootstrap.js';
import { trackDir, untrackDir } from './emergency.js';
import { machineLine, today, writeSection } from './report.js';
import { BASE_HEIGHT, blocksOnTop, diskReadBytes } from './scale.js';
import { writeSyntheticSnapshot } from './scale-snapshot.js';
import type { UtxoListEvent } from '../src/store/index-model.js';

const BLOCKS = 40;
const GOALS = { bootstrapMinutes: 30, bytesPerUtxo: 150, applyRatio: 0.8 };

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const mark = (ok: boolean): string => (ok ? 'met' : '**missed**');
const minutes = (s: number): string => `${Math.floor(s / 60)} min ${fmt(s % 60, 0)} s`;

interface ApplyRun {
  blocksPerSec: number;
  readMiBPerBlock: number | null;
}

function usedBytes(store: ChainStore): number {
  const db = store.db;
  const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
  return pages * (db.pragma('page_size', { simple: true }) as number);
}

export async function runUtxosScaleBench(): Promise<{ goalMet: boolean }> {
  const coins = Number(process.env.ADDRSUM_BENCH_UTXOS_SCALE_COINS ?? 185_000_000);
  // 2 × BLOCKS × 3,000 spends of distinct txids (about 0.56 per coin).
  if (!Number.isSafeInteger(coins) || coins < 1_000_000) throw new Error('ADDRSUM_BENCH_UTXOS_SCALE_COINS must be an integer ≥ 1,000,000');
  const dir = process.env.ADDRSUM_BENCH_UTXOS_SCALE_DIR ?? fileURLToPath(new URL('../data/bench/utxos-scale', import.meta.url));
  const say = (line: string): void => void process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  trackDir(dir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `utxo-${coins}.dat`);
  const dbPath = join(dir, `btc-${coins}.sqlite`);
  const started = new Date().toISOString().slice(11, 16);
  try {
    let t = performance.now();
    const snap = writeSyntheticSnapshot(file, coins, BASE_HEIGHT);
    say(`wrote ${fmt(snap.bytes)} bytes (${fmt(coins)} coins) in ${fmt((performance.now() - t) / 1000, 1)} s`);
    const store = ChainStore.open(dbPath, { chain: 'BTC', network: 'regtest' });
    try {
      const log = { info: (_obj: object, msg: string): void => say(`  ${msg}`) };
      t = performance.now();
      await loadSnapshot(
        { file: SnapshotFile.open(file, 'BTC', 'regtest'), height: BASE_HEIGHT, hash: snap.baseHash, prevHash: Buffer.alloc(32) },
        new SqliteIndexWriter(store, 'BTC', 'regtest'),
        log,
      );
      const loadSeconds = (performance.now() - t) / 1000;
      rmSync(file, { force: true });
      say(
        `loaded in ${fmt(loadSeconds, 1)} s: ${fmt(usedBytes(store) / store.totals().utxos, 1)} B/UTXO, load average ${fmt(loadavg()[0]!, 1)}`,
      );

      const blocks = blocksOnTop(snap.groups, snap.baseHash, 'ascending', 2 * BLOCKS);
      const apply = (from: number, label: string): ApplyRun => {
        const before = diskReadBytes();
        const s = performance.now();
        for (const b of blocks.slice(from, from + BLOCKS)) store.applyBlocks([b]);
        const blocksPerSec = BLOCKS / ((performance.now() - s) / 1000);
        const readMiBPerBlock = before === null ? null : ((diskReadBytes() ?? 0) - before) / 2 ** 20 / BLOCKS;
        say(`${label}: ${fmt(blocksPerSec, 2)} blocks/s, ${readMiBPerBlock === null ? '?' : fmt(readMiBPerBlock, 1)} MiB read per block`);
        return { blocksPerSec, readMiBPerBlock };
      };
      const without = apply(0, `${BLOCKS} blocks without the listing`);
      // Both sizes after the same blocks: the listing's bytes alone, not the page splits the blocks made.
      const utxos = store.totals().utxos;
      const bytesWithout = usedBytes(store);

      const events: string[] = [];
      t = performance.now();
      store.setUtxoList(true, (e: UtxoListEvent) => {
        const line = `  listing: ${JSON.stringify(e)}`;
        events.push(line.trim());
        say(line);
      });
      const buildSeconds = (performance.now() - t) / 1000;
      const bytesWith = usedBytes(store);
      say(
        `listing built in ${fmt(buildSeconds, 1)} s: ${fmt(bytesWith / utxos, 1)} B/UTXO, free memory ${fmt(freemem() / 2 ** 30, 1)} GiB`,
      );
      const withList = apply(BLOCKS, `${BLOCKS} blocks with the listing`);

      const bootstrapSeconds = loadSeconds + buildSeconds;
      const ratio = withList.blocksPerSec / without.blocksPerSec;
      const bytesPerUtxo = bytesWith / utxos;
      const goals = {
        bootstrap: bootstrapSeconds <= GOALS.bootstrapMinutes * 60,
        bytes: bytesPerUtxo <= GOALS.bytesPerUtxo,
        apply: ratio >= GOALS.applyRatio,
      };
      const read = (r: ApplyRun): string =>
        r.readMiBPerBlock === null ? '' : `, ${fmt(r.readMiBPerBlock, 1)} MiB read from disk per block`;
      writeSection(
        'utxos-scale',
        `## utxos-scale — the UTXO listing at ${fmt(coins)} coins, bootstrapped from a snapshot

\`npm run bench -- utxos-scale\` (\`bench/utxos-scale.ts\`; \`ADDRSUM_BENCH_UTXOS_SCALE_COINS\` sets N), ${today()}, started ${started} UTC,
${machineLine()}, ${fmt(freemem() / 2 ** 30, 1)} GiB free at the end. A synthetic Bitcoin Core snapshot (\`bench/scale-snapshot.ts\`,
txids ascending as in a real dump) loaded by the real bootstrap path; then on the same file ${BLOCKS} blocks of 3,000
txs without the listing, the listing built (\`ChainStore.setUtxoList\`, what the indexer's first start with
\`utxoList\` on runs after a bootstrap), and the next ${BLOCKS} blocks with it. Each block spends 2,999 random old
outputs and pays two outputs per transaction, one commit per block.

| goal | measured | target | |
|---|---|---|---|
| bootstrap with the listing (load + build) | **${minutes(bootstrapSeconds)}** (load ${minutes(loadSeconds)}, build ${minutes(buildSeconds)}) | ≤ ${GOALS.bootstrapMinutes} min | ${mark(goals.bootstrap)} |
| bytes per UTXO with the listing (used pages ÷ UTXOs) | **${fmt(bytesPerUtxo, 1)} B** (without: ${fmt(bytesWithout / utxos, 1)} B) | ≤ ${GOALS.bytesPerUtxo} B | ${mark(goals.bytes)} |
| block apply with ÷ without the listing | **${fmt(ratio, 2)}×** (${fmt(withList.blocksPerSec, 2)} vs ${fmt(without.blocksPerSec, 2)} blocks/s) | ≥ ${GOALS.applyRatio}× | ${mark(goals.apply)} |

- Without the listing: ${fmt(without.blocksPerSec, 2)} blocks/s${read(without)}; with it: ${fmt(withList.blocksPerSec, 2)} blocks/s${read(withList)}.
- The build's progress events (the indexer logs one line each): ${events.length} in all; the first and the last two: ${[
          events[0],
          ...events.slice(-2),
        ]
          .filter((e) => e !== undefined)
          .map((e) => `\`${e.replace(/^listing: /, '')}\``)
          .join('; ')}.
- The reference ran first, on the file before the listing existed; the run with the listing followed its build.`,
      );
      return { goalMet: goals.bootstrap && goals.bytes && goals.apply };
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runUtxosScaleBench();
