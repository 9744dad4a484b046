/**
 * Bootstrapping from a UTXO snapshot (IndexWriter.loadSnapshot): the index equals the model at the
 * snapshot's base block (aggregates from the source's sums or built from the coins, coins in txid order
 * or not), blocks go on from there, nothing at or below the base rolls back (BELOW_BASE), a second load
 * is refused (NOT_EMPTY), a coin given twice (DUPLICATE_COIN) or a source that fails the load leaves the
 * empty index.
 * A load killed in the middle (reading coins, or building the aggregates) leaves an index with no tip
 * that refuses block sync (BOOTSTRAP_PENDING) and shows readers how far it got; loading the same
 * snapshot again resumes after its committed chunks, another one discards them.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { BaseBlock } from '../../../src/store/index-model.js';
import { WriterChild } from '../child-run.js';
import type { EngineFactory } from '../engine.js';
import { Rng } from '../../support/blocks.js';
import { extend, scriptPool } from '../chain-gen.js';
import { expectedViews, expectIndex, type OpenIndex } from '../expect-index.js';
import { ChainModel, displayHex, keyHex } from '../model.js';
import { CHAIN, closeIndex, openIndex, writerOptions } from '../open-index.js';
import { makeSnapshot } from '../snapshot-gen.js';

const UNDO_DEPTH = 8;
const CHILD = fileURLToPath(new URL('../bootstrap-child.ts', import.meta.url));

/** What the ports answer of a bootstrapped index equals the model at its tip; nothing below `base` is known. */
async function expectBootstrapped(
  ix: OpenIndex,
  model: ChainModel,
  base: BaseBlock,
  scripts: readonly Buffer[],
  headersFrom = base.height + 1,
): Promise<void> {
  const tip = model.tip!;
  const hex = (headers: readonly Buffer[] | undefined) => headers?.map((h) => h.toString('hex'));
  const at = { height: tip.height, hash: displayHex(tip.hash) };
  const totals = model.totals();
  const views = await ix.reader.views(scripts, true);
  const summary = await ix.reader.summary(scripts[0]!);
  const report = await ix.verifier.aggregates();
  const got = {
    tip: await ix.writer.tip().then((t) => t && { height: t.height, hash: displayHex(t.hash) }),
    base: await ix.writer.base(),
    below: await ix.writer.hashAt(base.height - 1),
    atBase: await ix.writer.hashAt(base.height).then((h) => h && displayHex(h)),
    totals: await ix.writer.totals(),
    status: await ix.reader.status().then((s) => s && { height: s.tipHeight, hash: s.tipHash }),
    views: views && { height: views.tipHeight, items: views.items },
    summary: summary && [summary.balanceSats, summary.utxoCount],
    bootstrap: await ix.reader.bootstrap(),
    aggregates: [report.differenceCount, report.scripts, report.utxos, report.amount],
    problems: await ix.verifier.chain(),
    headersFrom: [await ix.writer.headersFrom(), await ix.reader.status().then((s) => s?.headersFrom)],
    headers: await ix.reader.headers(headersFrom, 1000).then((r) => r && [r.headersFrom, hex(r.headers)]),
    belowHeaders: await ix.reader.headers(headersFrom - 1, 1000).then((r) => hex(r?.headers)),
  };
  const sum = model.sums().get(keyHex(scripts[0]!)) ?? { balance: 0n, count: 0 };
  expect(got).toEqual({
    tip: at,
    base: base.height,
    below: null,
    atBase: displayHex(base.hash),
    totals,
    status: at,
    views: { height: tip.height, items: expectedViews(model, scripts, null, true) },
    summary: [sum.balance, sum.count],
    bootstrap: null,
    aggregates: [0, totals.scripts, totals.utxos, totals.amount],
    problems: [],
    // A snapshot holds no headers: blocks after its base add theirs, the backfill those below.
    headersFrom: [headersFrom, headersFrom > 0 ? headersFrom : undefined],
    headers: [headersFrom, hex(model.blocks.slice(headersFrom).map((b) => b.header))],
    belowHeaders: [],
  });
}

export function bootstraps(engine: EngineFactory): void {
  it.each([
    ['aggregates from the source sums', true, false],
    ['aggregates from a GROUP BY over the coins', false, false],
    ['coins out of txid order', true, true],
  ])('a snapshot bootstrap (%s): blocks go on from its base, never below it', async (_name, withSums, shuffled) => {
    const snap = makeSnapshot(withSums ? 0xb007 : 0xb008, 30);
    const rows = shuffled ? [...snap.rows].reverse() : snap.rows;
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const phases: string[] = [];
      const totals = await ix.writer.loadSnapshot(() => rows, snap.base, {
        chunkCoins: 16,
        totalCoins: snap.rows.length,
        onPhase: (p) => phases.push(p),
        ...(withSums && { sums: () => snap.sums, coinbases: () => snap.coinbases }),
      });
      expect(totals).toEqual(snap.model.totals());
      expect(phases).toEqual([
        'reading coins in txid order',
        ...(shuffled ? ['reading and sorting coins'] : []),
        'building aggregates',
        'committing',
      ]);
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts);
      await expect(ix.writer.loadSnapshot(() => snap.rows, snap.base)).rejects.toMatchObject({ code: 'NOT_EMPTY' });
      await expect(ix.writer.refusePendingBootstrap()).resolves.toBeUndefined();

      // Blocks on top, then back down to the base, and no further.
      await ix.writer.applyBlocks(snap.after);
      for (const b of snap.after) snap.model.apply(b);
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts);
      for (let i = 0; i < snap.after.length; i++) {
        await ix.writer.rollbackTip();
        snap.model.rollback();
      }
      await expect(ix.writer.rollbackTip()).rejects.toMatchObject({ code: 'BELOW_BASE' });
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts);

      // The backfill's commits: runs that end just below the stored headers and link to them, else nothing.
      const all = snap.model.blocks.map((b) => b.header);
      const top = snap.base.height - 9;
      await expect(ix.writer.addHeaders(top - 1, all.slice(top - 1, -1))).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
      const broken = all.slice(top);
      broken[4] = all[0]!;
      await expect(ix.writer.addHeaders(top, broken)).rejects.toMatchObject({ code: 'BAD_HEADER' });
      // A run of another chain's headers, linked among themselves but not to the index's tip.
      const other = snap.after.map((b) => b.header);
      await expect(ix.writer.addHeaders(snap.base.height + 1 - other.length, other)).rejects.toMatchObject({ code: 'BAD_HEADER' });
      expect(await ix.writer.headersFrom()).toBe(snap.base.height + 1);
      expect(await ix.writer.addHeaders(top, all.slice(top))).toBe(top);
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts, top);
      expect(await ix.writer.addHeaders(0, all.slice(0, top))).toBe(0);
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts, 0);
      // Blocks on top of a complete run keep it complete; a rollback takes only the tip's.
      await ix.writer.applyBlocks(snap.after);
      for (const b of snap.after) snap.model.apply(b);
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts, 0);
      await ix.writer.rollbackTip();
      snap.model.rollback();
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts, 0);
    } finally {
      await closeIndex(ix);
    }
  });

  it('a coin given twice (DUPLICATE_COIN) or a source that fails leaves the empty index, loadable then', async () => {
    const snap = makeSnapshot(0xb00a, 20);
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const twice = [...snap.rows, snap.rows[3]!];
      await expect(ix.writer.loadSnapshot(() => twice, snap.base, { chunkCoins: 16 })).rejects.toMatchObject({ code: 'DUPLICATE_COIN' });
      expect([await ix.writer.tip(), await ix.reader.bootstrap(), await ix.writer.totals()]).toEqual([
        null,
        null,
        { utxos: 0, amount: 0n, scripts: 0 },
      ]);
      await ix.writer.refusePendingBootstrap();
      // A source that fails after some chunks committed (a file that ends early): its error, nothing kept.
      function* failing(): Generator<unknown[]> {
        yield* snap.rows.slice(0, 40);
        throw new Error('file ends early');
      }
      await expect(ix.writer.loadSnapshot(failing, snap.base, { chunkCoins: 16 })).rejects.toThrow('file ends early');
      expect([await ix.writer.tip(), await ix.reader.bootstrap()]).toEqual([null, null]);
      await ix.writer.refusePendingBootstrap();
      expect(await ix.writer.loadSnapshot(() => snap.rows, snap.base, { chunkCoins: 16 })).toEqual(snap.model.totals());
      await expectBootstrapped(ix, snap.model, snap.base, snap.scripts);
    } finally {
      await closeIndex(ix);
    }
  });

  it('after a load that failed, the empty index syncs blocks from genesis', async () => {
    const snap = makeSnapshot(0xb00c, 20);
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      // Chunks committed, then the file ends early: what the load changed (on PostgreSQL, the UTXO
      // table's key dropped while coins go in) must be undone for block sync.
      function* failing(): Generator<unknown[]> {
        yield* snap.rows.slice(0, 40);
        throw new Error('file ends early');
      }
      await expect(ix.writer.loadSnapshot(failing, snap.base, { chunkCoins: 16 })).rejects.toThrow('file ends early');
      const rng = new Rng(0xb00c);
      const pool = scriptPool(rng);
      const model = new ChainModel();
      for (let i = 0; i < 3; i++) {
        await ix.writer.applyBlocks(extend(rng, model, pool, 2, { txs: 8 }));
        await expectIndex(ix, model, pool);
      }
    } finally {
      await closeIndex(ix);
    }
  });

  it.each([
    ['while it reads coins', 'the same', 'coins'],
    ['while it reads coins', 'another', 'coins'],
    ['while it builds the aggregates', 'the same', 'sums'],
  ] as const)('a load killed %s refuses block sync, shows its progress; %s snapshot loaded then', async (_w, next, where) => {
    const seed = 0xb009;
    const chunk = 20;
    const snap = makeSnapshot(seed, 40);
    const stallAt = where === 'coins' ? 4 * chunk + 5 : 'sums';
    expect(snap.rows.length).toBeGreaterThan(4 * chunk + 5 + chunk);
    const index = await engine.create(CHAIN);
    const child = new WriterChild({ spec: index.child, writer: writerOptions(UNDO_DEPTH), seed, height: 40, chunk, stallAt }, CHILD);
    let ix: OpenIndex | undefined;
    try {
      await child.line((l) => l === `stall ${stallAt}`);
      await child.kill();
      ix = await openIndex(index, UNDO_DEPTH);
      expect(await ix.writer.tip()).toBeNull();
      expect(await ix.reader.status()).toBeNull();
      await expect(ix.writer.refusePendingBootstrap()).rejects.toMatchObject({ code: 'BOOTSTRAP_PENDING' });
      const genesis = snap.model.blocks[0]!;
      await expect(ix.writer.applyBlocks([genesis])).rejects.toMatchObject({ code: 'BOOTSTRAP_PENDING' });
      const progress = await ix.reader.bootstrap();
      expect(progress).toMatchObject({ phase: 'reading coins in txid order', total: snap.rows.length });
      // At least three chunks committed before the stall (an engine may end a chunk at a txid boundary).
      expect(progress!.coins).toBeGreaterThanOrEqual(3 * chunk);
      expect(progress!.coins).toBeLessThanOrEqual(where === 'coins' ? 4 * chunk + 5 : snap.rows.length);

      const load = next === 'the same' ? snap : makeSnapshot(seed + 1, 35);
      const resumed: Buffer[] = [];
      const discarded: Buffer[] = [];
      const totals = await ix.writer.loadSnapshot(() => load.rows, load.base, {
        chunkCoins: chunk,
        totalCoins: load.rows.length,
        sums: () => load.sums,
        onResume: (after) => resumed.push(after),
        onDiscard: (hash) => discarded.push(hash),
      });
      expect([resumed.length, discarded.map(displayHex)]).toEqual(next === 'the same' ? [1, []] : [0, [displayHex(snap.base.hash)]]);
      expect(totals).toEqual(load.model.totals());
      await expectBootstrapped(ix, load.model, load.base, load.scripts);
      await ix.writer.applyBlocks(load.after);
      for (const b of load.after) load.model.apply(b);
      await expectBootstrapped(ix, load.model, load.base, load.scripts);
    } finally {
      await child.kill();
      if (ix) await closeIndex(ix);
    }
  });
}
