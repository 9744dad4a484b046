/**
 * Benchmark "utxos": what the opt-in UTXO listing costs and how fast it pages.
 *
 *   npx tsx bench/utxos.ts            (ADDRSUM_BENCH_UTXOS=N for another size; default 10,000,000)
 *
 * Index: LTC mainnet, N UTXOs written through ChainStore.applyBlocks (50,000 outputs per block): every
 * tenth output to one script (the heavy address: 1,000,000 UTXOs at N = 10M), the rest spread over N/3
 * other scripts. Built once with the listing off and cached under data/bench/ (keyed by VERSION, N and
 * the schema version). Measured, side by side in one run:
 * - bytes per UTXO: used pages (page_count − freelist_count) × page_size ÷ UTXOs, without and with the
 *   listing (built on a copy by setUtxoList, as an operator's first start with it on does), and the
 *   listing index's own bytes (dbstat); goal ≤ 150 B with the listing on;
 * - the first and the 500th page of 100 of the heavy address, ChainReader.utxoPage (the API's read, in
 *   one read transaction with the tip), p99 of PAGE_SAMPLES each; goal ≤ 5 ms;
 * - block apply: the same BLOCKS blocks (TXS_PER_BLOCK transactions each spending two existing UTXOs
 *   and paying two outputs) applied one commit per block to a copy without and a copy with the listing,
 *   alternating which goes first; goal: throughput with ≥ 0.8× without.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { syntheticHeader } from '../src/chain/block-header.js';
import { ChainReader } from '../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SCHEMA_VERSION } from '../src/store/sqlite/migrate.js';
import { decodeOutpoint } from '../src/store/outpoint.js';
import { scriptKey } from '../src/store/script-key.js';
import { ALL_SHARDS, shardIndexName } from '../src/store/sqlite/utxo-list-shards.js';
import { WriterLock } from '../src/store/sqlite/writer-lock.js';
import { SeededRng } from '../harness/seeded-rng.js';
import { machineLine, percentile, today, writeSection } from './report.js';
import { p2wpkh, sha, SyntheticChain } from './synthetic-chain.js';
import type { BlockToApply, UtxoPosition } from '../src/store/index-model.js';

const VERSION = 'utxos-v1';
const TOTAL = Number(process.env.ADDRSUM_BENCH_UTXOS ?? 10_000_000);
const CACHE_DIR = fileURLToPath(new URL(`../data/bench/${VERSION}-${TOTAL}-schema${SCHEMA_VERSION}/`, import.meta.url));
const OUTPUTS_PER_TX = 1_000;
const TXS_PER_BLOCK_BUILD = 50;
const HEAVY_EVERY = 10;
const PAGE = 100;
const DEEP_PAGE = 500;
const PAGE_SAMPLES = 2_000;
const BLOCKS = 30;
const TXS_PER_BLOCK = 1_500;
const BYTES_GOAL = 150;
const PAGE_GOAL_MS = 5;
const APPLY_GOAL = 0.8;

const heavyScript = p2wpkh(`${VERSION} heavy`);
const otherScript = (i: number): Buffer => p2wpkh(`${VERSION} s ${i}`);
const removeDb = (file: string): void => ['', '-wal', '-shm', '.lock'].forEach((x) => rmSync(file + x, { force: true }));

/** Builds (or reuses) the index without the listing; returns its path and how long the build took (null: cached). */
function baseIndex(): { file: string; buildSeconds: number | null } {
  const file = path.join(CACHE_DIR, 'base.sqlite');
  if (existsSync(path.join(CACHE_DIR, 'done'))) return { file, buildSeconds: null };
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${file}.building`;
  removeDb(building);
  const started = performance.now();
  const store = ChainStore.open(building, { chain: 'LTC', network: 'mainnet', undoDepth: 1 });
  try {
    const chain = new SyntheticChain(VERSION);
    store.applyBlocks([chain.block([])]);
    const rng = new SeededRng(`${VERSION} scripts`);
    const scripts = Math.max(1, Math.floor(TOTAL / 3));
    let k = 0;
    let tx = 0;
    while (k < TOTAL) {
      const batch: BlockToApply[] = [];
      for (let b = 0; b < 2 && k < TOTAL; b++) {
        const txs: ParsedTx[] = [];
        for (let t = 0; t < TXS_PER_BLOCK_BUILD && k < TOTAL; t++, tx++) {
          const outputs: ParsedTx['outputs'] = [];
          for (let o = 0; o < OUTPUTS_PER_TX && k < TOTAL; o++, k++) {
            const script = k % HEAVY_EVERY === 0 ? heavyScript : otherScript(rng.int(scripts));
            outputs.push({ script, value: BigInt(546 + ((k * 7_919) % 100_000_000)) });
          }
          txs.push(chain.tx(`tx ${tx}`, outputs, t === 0));
        }
        batch.push(chain.block(txs));
      }
      store.applyBlocks(batch);
      if (k % 1_000_000 < 100_000) process.stdout.write(`  built ${k.toLocaleString('en-US')} UTXOs\n`);
    }
    const tip = store.tip()!;
    store.setNodeHeight(tip.height, new Date());
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
  rmSync(WriterLock.lockPathFor(building), { force: true });
  renameSync(building, file);
  writeFileSync(path.join(CACHE_DIR, 'done'), `${new Date().toISOString()}\n`);
  return { file, buildSeconds: (performance.now() - started) / 1000 };
}

function usedBytes(store: ChainStore): number {
  const p = (name: string): number => store.db.pragma(name, { simple: true }) as number;
  return (p('page_count') - p('freelist_count')) * p('page_size');
}

/** Blocks spending two existing UTXOs per transaction (read from `file`), paying two fresh outputs. */
function applyBlocks(file: string, firstHeight: number, firstPrev: Buffer): BlockToApply[] {
  const store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet' });
  const rng = new SeededRng(`${VERSION} spends`);
  // A random txid position, then a random one of the outputs there: synthetic txs hold 1,000 outputs each.
  const pick = store.db.prepare<[Buffer, number], Buffer>('SELECT outpoint FROM utxos WHERE outpoint >= ? LIMIT 1 OFFSET ?').pluck();
  const taken = new Set<string>();
  const blocks: BlockToApply[] = [];
  let prev = firstPrev;
  try {
    for (let b = 0; b < BLOCKS; b++) {
      const height = firstHeight + b;
      const txs: ParsedTx[] = [
        {
          txid: sha(`${VERSION} apply cb ${height}`),
          inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
          outputs: [{ script: otherScript(height), value: 1n }],
          coinbase: true,
          hogEx: false,
          mweb: false,
        },
      ];
      for (let t = 0; t < TXS_PER_BLOCK; t++) {
        const inputs: ParsedTx['inputs'] = [];
        while (inputs.length < 2) {
          const op = pick.get(sha(`${VERSION} pick ${rng.int(2 ** 30)}`), rng.int(OUTPUTS_PER_TX / 2));
          if (op === undefined || taken.has(op.toString('hex'))) continue;
          taken.add(op.toString('hex'));
          const { txid, vout } = decodeOutpoint(op);
          inputs.push({ prevTxid: txid, vout });
        }
        const outputs = [0, 1].map((o) => ({ script: otherScript(rng.int(TOTAL)), value: BigInt(1_000 + o) }));
        txs.push({ txid: sha(`${VERSION} apply ${height} ${t}`), inputs, outputs, coinbase: false, hogEx: false, mweb: false });
      }
      const { header, hash } = syntheticHeader(
        prev,
        txs.map((tx) => tx.txid),
        0,
        height,
      );
      blocks.push({ height, hash, prevHash: prev, header, txs });
      prev = hash;
    }
  } finally {
    store.close();
  }
  return blocks;
}

function pageTimes(reader: ChainReader, key: Buffer, after: UtxoPosition | null): number[] {
  const times: number[] = [];
  const req = { keys: [key], after, limit: PAGE, mempool: false, check: () => undefined };
  for (let i = 0; i < PAGE_SAMPLES + 100; i++) {
    const t0 = performance.now();
    const r = reader.utxoPage(req);
    const ms = performance.now() - t0;
    if (r?.listing.kind !== 'page' || r.listing.rows.length !== PAGE) throw new Error('utxos bench: the heavy page is not full');
    if (i >= 100) times.push(ms);
  }
  return times.sort((a, b) => a - b);
}

export async function runUtxosBench(): Promise<{ goalMet: boolean }> {
  const load = loadavg()[0]!;
  const { file: base, buildSeconds } = baseIndex();
  const work = path.join(CACHE_DIR, 'run');
  mkdirSync(work, { recursive: true });
  const without = path.join(work, 'without.sqlite');
  const withList = path.join(work, 'with.sqlite');
  for (const f of [without, withList]) {
    removeDb(f);
    copyFileSync(base, f);
  }
  // The listing built as an operator's first start with it on builds it.
  const listed = ChainStore.open(withList, { chain: 'LTC', network: 'mainnet' });
  let listBuild = 0;
  listed.setUtxoList(true, (e) => {
    if (e.kind === 'built') listBuild = e.seconds;
  });
  listed.db.pragma('wal_checkpoint(TRUNCATE)');
  const utxos = listed.totals().utxos;
  const bytesWith = usedBytes(listed);
  const shardBytes = listed.db.prepare('SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = ?').pluck();
  const indexBytes = ALL_SHARDS.reduce((sum, k) => sum + (shardBytes.get(shardIndexName(k)) as number), 0);
  const tip = listed.tip()!;
  listed.close();
  const plain = ChainStore.open(without, { chain: 'LTC', network: 'mainnet' });
  const bytesWithout = usedBytes(plain);
  plain.close();
  process.stdout.write(
    `  listing built in ${listBuild.toFixed(1)} s; ${(bytesWith / utxos).toFixed(1)} B/UTXO with, ${(bytesWithout / utxos).toFixed(1)} without\n`,
  );

  // Pages of the heavy address: the first, and the 500th (its position found by walking the first 499).
  const reader = ChainReader.open(withList);
  const heavyKey = scriptKey(heavyScript);
  let after: UtxoPosition | null = null;
  for (let p = 1; p < DEEP_PAGE; p++) {
    const r = reader.utxoPage({ keys: [heavyKey], after, limit: PAGE, mempool: false, check: () => undefined });
    if (r?.listing.kind !== 'page' || r.listing.next === null) throw new Error(`utxos bench: no page ${p + 1}`);
    after = r.listing.next;
  }
  process.stdout.write(`  walked to page ${DEEP_PAGE}\n`);
  const first = pageTimes(reader, heavyKey, null);
  const deep = pageTimes(reader, heavyKey, after);
  reader.close();

  // Block apply, the same blocks on both copies, alternating which goes first.
  process.stdout.write(`  pages timed; making ${BLOCKS} blocks\n`);
  const blocks = applyBlocks(without, tip.height + 1, tip.hash);
  process.stdout.write(`  applying them\n`);
  // Copies for the catch-up shape (every block in one commit), taken before either side applies anything.
  const batchCopies = { without: `${without}.batch`, with: `${withList}.batch` };
  for (const side of ['without', 'with'] as const) {
    removeDb(batchCopies[side]);
    copyFileSync(side === 'without' ? without : withList, batchCopies[side]);
  }
  const stores = {
    without: ChainStore.open(without, { chain: 'LTC', network: 'mainnet' }),
    with: ChainStore.open(withList, { chain: 'LTC', network: 'mainnet' }),
  };
  const spent = { without: 0, with: 0 };
  try {
    blocks.forEach((block, i) => {
      for (const side of i % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        const t0 = performance.now();
        stores[side].applyBlocks([block]);
        spent[side] += performance.now() - t0;
      }
    });
  } finally {
    stores.without.close();
    stores.with.close();
  }
  const ratio = spent.without / spent.with;
  // Catch-up: all the blocks in one transaction (the indexer commits many blocks at once while behind).
  const batch = { without: 0, with: 0 };
  for (const side of ['without', 'with'] as const) {
    const store = ChainStore.open(batchCopies[side], { chain: 'LTC', network: 'mainnet' });
    try {
      const t0 = performance.now();
      store.applyBlocks(blocks);
      batch[side] = performance.now() - t0;
    } finally {
      store.close();
    }
    removeDb(batchCopies[side]);
  }
  const perUtxo = bytesWith / utxos;
  const goals = {
    bytes: perUtxo <= BYTES_GOAL,
    first: percentile(first, 0.99) <= PAGE_GOAL_MS,
    deep: percentile(deep, 0.99) <= PAGE_GOAL_MS,
    apply: ratio >= APPLY_GOAL,
  };
  const goalMet = Object.values(goals).every(Boolean);
  const yes = (b: boolean): string => (b ? 'yes' : '**no**');
  const ms = (v: number): string => `${v.toFixed(2)} ms`;
  const txsPerBlock = TXS_PER_BLOCK + 1;
  writeSection(
    'utxos',
    `## utxos — the opt-in UTXO listing (\`ADDRSUM_UTXO_LIST\`)

\`npx tsx bench/utxos.ts\` (\`npm run bench -- utxos\`), ${today()}, ${machineLine()}, load average ${load.toFixed(1)} at the start.
Index: ${utxos.toLocaleString('en-US')} UTXOs written through the store's write path (one script holds every tenth: ${Math.ceil(utxos / HEAVY_EVERY).toLocaleString('en-US')}; the rest over ${Math.floor(TOTAL / 3).toLocaleString('en-US')} scripts)${buildSeconds === null ? ', cached from an earlier run' : `, built in ${buildSeconds.toFixed(0)} s`}. The listing's index was built on a copy in ${listBuild.toFixed(1)} s (16 shards, one CREATE INDEX each, as the indexer's first start with the setting on).

| figure | without the listing | with the listing | goal | met |
|---|---|---|---|---|
| bytes per UTXO (used pages ÷ UTXOs, no VACUUM) | ${(bytesWithout / utxos).toFixed(1)} B | **${perUtxo.toFixed(1)} B** (the index alone: ${(indexBytes / utxos).toFixed(1)} B) | ≤ ${BYTES_GOAL} B | ${yes(goals.bytes)} |
| first page of ${PAGE}, heavy address, p50 / p99 (${PAGE_SAMPLES} reads) | — | ${ms(percentile(first, 0.5))} / **${ms(percentile(first, 0.99))}** | p99 ≤ ${PAGE_GOAL_MS} ms | ${yes(goals.first)} |
| page ${DEEP_PAGE} of ${PAGE}, heavy address, p50 / p99 | — | ${ms(percentile(deep, 0.5))} / **${ms(percentile(deep, 0.99))}** | p99 ≤ ${PAGE_GOAL_MS} ms | ${yes(goals.deep)} |
| block apply, ${BLOCKS} blocks of ${txsPerBlock} txs (2 spends + 2 outputs each), one commit per block | ${ms(spent.without / BLOCKS)} per block | ${ms(spent.with / BLOCKS)} per block: **${ratio.toFixed(2)}×** the throughput | ≥ ${APPLY_GOAL}× | ${yes(goals.apply)} |
| the same ${BLOCKS} blocks in one commit (catch-up's shape; one sample each) | ${ms(batch.without)} | ${ms(batch.with)}: ${(batch.without / batch.with).toFixed(2)}× | — | — |

Pages are read with ChainReader.utxoPage (the API's read: tip, listing state and rows in one read
transaction), without HTTP and JSON. Page ${DEEP_PAGE} costs what page 1 costs: keyset paging seeks the
index at the cursor's (height, outpoint), never an offset.

Why block apply costs what it does: every created output adds, and every spend removes, one entry of
the listing's index, which is ordered by script key, so each lands on a random page of a b-tree about as
large as the UTXO table itself: a block dirties (and writes to the WAL) about twice the pages it does
without the listing. That is inherent to any script→outpoint access path kept in the block's own
transaction; what it buys is that the listing can never disagree with the balances. An operator who
needs the listing pays it on every block; one who does not keeps the default (off).

The 185M-UTXO figures (bytes per UTXO, the bootstrap with the listing built at its end, block apply at
185M) are measured from a snapshot by \`npm run bench -- utxos-scale\` (section utxos-scale).
`,
  );
  process.stdout.write(
    `  pages p99: first ${ms(percentile(first, 0.99))}, #${DEEP_PAGE} ${ms(percentile(deep, 0.99))}; apply ratio ${ratio.toFixed(2)}×\n`,
  );
  for (const f of [without, withList]) removeDb(f);
  return { goalMet };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { goalMet } = await runUtxosBench();
  process.stdout.write(`utxos goal ${goalMet ? 'met' : 'NOT met'}\n`);
}
