/**
 * Reads everything the ports answer about an index and compares it, as one object, with what the
 * models predict: tip and hashes, totals, every script's summary and views (by script and by key, with
 * and without the mempool), the mempool's size, the verifier's reports and, with history, every
 * script's pages (with the mempool too: its transactions first, a child before what it spends) and its
 * whole history read at once (scriptTxs), and the pages of all the scripts merged as a wallet's
 * (wallet-pages.ts).
 */
import { expect } from 'vitest';
import type { IndexReader, IndexVerifier, IndexWriter } from '../../src/store/ports.js';
import type { HistoryPosition, ScriptView } from '../../src/store/index-model.js';
import type { ScriptTxList } from '../../src/store/script-txs.js';
import { displayHex, keyHex, outId, type ChainModel, type HistoryLine, type HistorySum } from './model.js';
import { expectedUnconfirmedLine, unconfirmedLine, type MempoolLine, type MempoolModel, type UnconfirmedLine } from './mempool-model.js';
import { expectedWalletLines, expectedWalletUnconfirmed, walletPageAll } from './wallet-pages.js';

export interface OpenIndex {
  writer: IndexWriter;
  reader: IndexReader;
  verifier: IndexVerifier;
  /** Whether the index keeps history: its summaries and views then carry the model's history figures. */
  history: boolean;
}

const figures = (h: HistorySum | undefined): HistorySum =>
  h
    ? { txCount: h.txCount, received: h.received, sent: h.sent, funded: h.funded, spent: h.spent }
    : { txCount: 0, received: 0n, sent: 0n, funded: 0, spent: 0 };

/**
 * Every history line of `key`, paged `limit` at a time from the newest, as the reader answers them; with
 * `mempool` the unconfirmed ones (first) apart, in the order read.
 */
async function pageAll(
  reader: IndexReader,
  key: Buffer,
  limit: number,
  mempool = false,
): Promise<{ lines: HistoryLine[]; tips: string[]; unconfirmed?: UnconfirmedLine[] } | null> {
  const lines: HistoryLine[] = [];
  const unconfirmed: UnconfirmedLine[] = [];
  const tips = new Set<string>();
  for (let after: HistoryPosition | null = null; ;) {
    const page = await reader.historyPage({ key, after, limit, mempool });
    if (!page?.page) return null;
    tips.add(page.tipHash);
    if (page.page.unconfirmed.length > 0 && lines.length > 0) throw new Error('a mempool transaction after a confirmed one');
    for (const u of page.page.unconfirmed) unconfirmed.push(unconfirmedLine(u));
    if (page.page.unconfirmed.length + page.page.items.length > limit) throw new Error('a page longer than its limit');
    for (const i of page.page.items)
      lines.push({ txid: displayHex(i.txid), height: i.height, position: i.position, received: i.received, sent: i.sent });
    if (page.page.items.length > limit) throw new Error('a page longer than its limit');
    if (page.page.next === null) return mempool ? { lines, tips: [...tips], unconfirmed } : { lines, tips: [...tips] };
    after = page.page.next;
  }
}

const NO_DELTA = { balanceSats: 0n, utxoCount: 0, txCount: 0, received: 0n, sent: 0n };

/** What views() must answer for `scripts` at the model's tip. */
export function expectedViews(
  model: ChainModel,
  scripts: readonly Buffer[],
  mempool: MempoolModel | null,
  withMempool: boolean,
  history = false,
): ScriptView[] {
  const sums = model.sums();
  const histories = history ? model.history() : null;
  const deltas = mempool?.deltas() ?? new Map();
  return scripts.map((s) => {
    const sum = sums.get(keyHex(s)) ?? { balance: 0n, count: 0 };
    const view: ScriptView = { balanceSats: sum.balance, utxoCount: sum.count };
    if (withMempool) {
      // Received and sent only beside confirmed history.
      const { received, sent, ...net } = deltas.get(keyHex(s)) ?? NO_DELTA;
      view.unconfirmed = history ? { ...net, received, sent } : net;
    }
    if (histories) view.history = figures(histories.get(keyHex(s)));
    return view;
  });
}

const tipOf = (s: { tipHeight: number; tipHash: string } | null): { height: number; hash: string } | null =>
  s && { height: s.tipHeight, hash: s.tipHash };

const byTxid = <T extends { txid: string }>(lines: readonly T[]): T[] => [...lines].sort((a, b) => a.txid.localeCompare(b.txid));

/** The mempool part of a script's pages: which transactions (by txid), and any listed after a held parent it spends. */
function mempoolPart<T extends { txid: string }>(got: readonly T[], parents: ReadonlyMap<string, readonly string[]>) {
  const at = new Map(got.map((l, i) => [l.txid, i]));
  const misordered = got.flatMap((l, i) =>
    (parents.get(l.txid) ?? []).filter((p) => (at.get(p) ?? Infinity) < i).map((p) => `${l.txid} after ${p}`),
  );
  return { unconfirmed: byTxid(got), misordered };
}

/** A txid no chain holds: txBlock answers null. */
const UNKNOWN_TXID = 'ee'.repeat(32);

/** Each txid of `lines` (the first line of a txid two blocks hold), and the unknown one, with the block txBlock names. */
async function txBlocksOf(reader: IndexReader, lines: readonly HistoryLine[]) {
  const txids = [...new Set(lines.map((l) => l.txid)), UNKNOWN_TXID].sort();
  // One after the other: a pool has a bounded queue of waiting callers.
  const got: Awaited<ReturnType<IndexReader['txBlock']>>[] = [];
  for (const t of txids) got.push(await reader.txBlock(Buffer.from(t, 'hex').reverse()));
  return Object.fromEntries(
    txids.map((t, i) => [t, got[i] && { height: got[i].height, hash: displayHex(got[i].hash), position: got[i].position }]),
  );
}

/** What txBlocksOf must answer, from the model's history lines. */
function expectedTxBlocks(model: ChainModel, lines: readonly HistoryLine[]) {
  const first = new Map<string, HistoryLine>();
  for (const l of [...lines].sort((a, b) => a.height - b.height || a.position - b.position)) if (!first.has(l.txid)) first.set(l.txid, l);
  const want: Record<string, { height: number; hash: string; position: number } | null> = { [UNKNOWN_TXID]: null };
  for (const [txid, l] of first) want[txid] = { height: l.height, hash: displayHex(model.blocks[l.height]!.hash), position: l.position };
  return want;
}

/** A scriptTxs list as the contract compares it: txids in display hex, blockchain order. */
const txList = (txs: ScriptTxList) => ({
  confirmedCount: txs.confirmedCount,
  txids: Array.from({ length: txs.heights.length }, (_, i) => displayHex(txs.txids.subarray(i * 32, i * 32 + 32))),
  heights: [...txs.heights],
  unconfirmed: byTxid(txs.unconfirmed.map(unconfirmedLine)),
});

/**
 * Each script's whole history as scriptTxs reads it; read after its newest confirmed transaction (none
 * listed) and after the number below that (the newest alone listed: the one before it has a lower number);
 * and whether a read allowing one transaction fewer than it holds says too large.
 */
async function scriptTxsOf(reader: IndexReader, keys: readonly Buffer[]) {
  const out = [];
  const last = (await reader.feed.bounds())?.last ?? 0;
  // One after the other: a pool has a bounded queue of waiting callers.
  for (const key of keys) {
    const whole = await reader.scriptTxs(key, 10_000);
    if (whole?.txs?.tooLarge !== false) throw new Error('a whole-history read refused');
    const { newest } = whole.txs;
    const [none, one] = [await reader.scriptTxs(key, 10_000, newest), await reader.scriptTxs(key, 10_000, newest - 1)];
    if (none?.txs?.tooLarge !== false || one?.txs?.tooLarge !== false) throw new Error('a history read refused');
    const count = whole.txs.confirmedCount + whole.txs.unconfirmed.length;
    out.push({
      ...txList(whole.txs),
      after: [txList(none.txs), txList(one.txs)],
      newest: [none.txs.newest, one.txs.newest].map((n) => n === newest),
      // Nothing is written while the index is observed: each read names the feed's newest row.
      feedSeqs: [whole.feedSeq, none.feedSeq, one.feedSeq].map((seq) => seq === last),
      tooLarge: count === 0 ? null : (await reader.scriptTxs(key, count - 1))?.txs?.tooLarge,
    });
  }
  return out;
}

/** The transactions whose outspends the contract compares: every one of the chain but genesis's, each with one output more than it has. */
function spendProbes(model: ChainModel): [Buffer, number][] {
  return model.blocks.slice(1).flatMap((b) => b.txs.map((tx): [Buffer, number] => [tx.txid, tx.outputs.length + 1]));
}

/** outspends of each probe, as the contract compares them (txids in display hex). */
async function outspendsOf(reader: IndexReader, probes: readonly [Buffer, number][]) {
  const got = [];
  // One after the other: a pool has a bounded queue of waiting callers.
  for (const [txid, n] of probes) {
    const r = await reader.outspends(txid, n);
    got.push(
      r && {
        spendsFrom: r.spendsFrom,
        outputs: r.outputs.map((o) => ({
          unspent: o.unspent,
          spenders: o.spenders.map((s) => ({ txid: displayHex(s.txid), vin: s.vin, height: s.height })),
          mempool: o.mempool && displayHex(o.mempool),
        })),
      },
    );
  }
  return got;
}

/** What outspendsOf must answer, from the models: spenders by the chain's inputs, unspent by its coins. */
function expectedOutspends(model: ChainModel, mempool: MempoolModel | null, probes: readonly [Buffer, number][], history: boolean) {
  const spentBy = new Map<string, { txid: string; vin: number; height: number }[]>();
  for (const b of model.blocks.slice(1))
    for (const tx of b.txs)
      if (!tx.coinbase)
        tx.inputs.forEach((i, vin) => {
          const id = outId(i.prevTxid, i.vout);
          spentBy.set(id, [...(spentBy.get(id) ?? []), { txid: displayHex(tx.txid), vin, height: b.height }]);
        });
  const inMempool = new Map<string, string>();
  for (const tx of mempool?.txs.values() ?? []) for (const i of tx.inputs) inMempool.set(outId(i.prevTxid, i.vout), displayHex(tx.txid));
  return probes.map(([txid, n]) =>
    model.tip === null
      ? null
      : {
          spendsFrom: history ? 0 : null,
          outputs: history
            ? Array.from({ length: n }, (_, vout) => ({
                unspent: model.coins.has(outId(txid, vout)),
                spenders: spentBy.get(outId(txid, vout)) ?? [],
                mempool: inMempool.get(outId(txid, vout)) ?? null,
              }))
            : [],
        },
  );
}

async function observe(
  ix: OpenIndex,
  scripts: readonly Buffer[],
  tipHeight: number,
  mempool: MempoolModel | null,
  probes: readonly [Buffer, number][],
) {
  const parents = new Map([...(mempool?.lines().values() ?? [])].flat().map((l) => [l.txid, l.parents]));
  const keys = scripts.map((s) => Buffer.from(keyHex(s), 'hex'));
  const [confirmed, withMempool, byKey, byKeyMempool, withFunded] = await Promise.all([
    ix.reader.views(scripts, false),
    ix.reader.views(scripts, true),
    ix.reader.keyViews(keys, false),
    ix.reader.keyViews(keys, true),
    ix.reader.keyViews(keys, true, { fundedOutputs: true }),
  ]);
  const summaries = await Promise.all(scripts.map((s) => ix.reader.summary(s)));
  const tip = await ix.writer.tip();
  const hashes = await Promise.all(Array.from({ length: tipHeight + 2 }, (_, h) => ix.writer.hashAt(h)));
  const report = await ix.verifier.aggregates();
  const pages = ix.history && tipHeight >= 0 ? await Promise.all(keys.map((k) => pageAll(ix.reader, k, 3))) : undefined;
  const headers = async (from: number, count: number) => {
    const r = await ix.reader.headers(from, count);
    return r && { tip: r.tipHeight, headersFrom: r.headersFrom, headers: r.headers.map((h) => h.toString('hex')) };
  };
  return {
    writerTip: tip && { height: tip.height, hash: displayHex(tip.hash) },
    hashes: hashes.map((h) => h && displayHex(h)),
    totals: await ix.writer.totals(),
    status: tipOf(await ix.reader.status()),
    views: confirmed && { tip: tipOf(confirmed), items: confirmed.items },
    mempoolViews: withMempool && { tip: tipOf(withMempool), items: withMempool.items },
    keyViews: byKey && { tip: tipOf(byKey), items: byKey.items },
    keyMempoolViews: byKeyMempool && { tip: tipOf(byKeyMempool), items: byKeyMempool.items },
    fundedOutputs: withFunded && withFunded.items.map((i) => i.unconfirmed?.funded),
    summaries: summaries.map((s) => s && { tip: tipOf(s), balanceSats: s.balanceSats, utxoCount: s.utxoCount, history: s.history }),
    // Every header; then at the tip's edges: the last two, the tip's alone, none above it, and none for a count of 0.
    headers: [
      await headers(0, tipHeight + 2),
      await headers(tipHeight - 1, 2),
      await headers(tipHeight, 5),
      await headers(tipHeight + 1, 5),
      await headers(0, 0),
    ],
    mempoolTxs: await ix.reader.mempoolTxs(),
    mempoolSize: await ix.writer.mempool.size(),
    outspends: await outspendsOf(ix.reader, probes),
    aggregates: {
      differences: report.differences,
      differenceCount: report.differenceCount,
      scripts: report.scripts,
      utxos: report.utxos,
      amount: report.amount,
    },
    problems: await ix.verifier.chain(),
    pages,
    txBlocks:
      pages &&
      (await txBlocksOf(
        ix.reader,
        pages.flatMap((p) => p?.lines ?? []),
      )),
    mempoolPages:
      ix.history && tipHeight >= 0
        ? await Promise.all(
            keys.map(async (k) => {
              const got = await pageAll(ix.reader, k, 2, true);
              return got && { lines: got.lines, tips: got.tips, ...mempoolPart(got.unconfirmed ?? [], parents) };
            }),
          )
        : undefined,
    scriptTxs: ix.history && tipHeight >= 0 ? await scriptTxsOf(ix.reader, keys) : undefined,
    walletPages: ix.history && tipHeight >= 0 ? await walletPageAll(ix.reader, scripts, 3, false) : undefined,
    walletMempoolPages:
      ix.history && tipHeight >= 0
        ? await walletPageAll(ix.reader, scripts, 2, true).then((got) => got && { ...got, ...mempoolPart(got.unconfirmed, parents) })
        : undefined,
  };
}

/** The index equals the models at the model's tip; `scripts` should include one never paid. */
export async function expectIndex(
  ix: OpenIndex,
  model: ChainModel,
  scripts: readonly Buffer[],
  mempool: MempoolModel | null = null,
): Promise<void> {
  const tip = model.tip;
  const height = tip?.height ?? -1;
  const totals = model.totals();
  const at = tip && { height: tip.height, hash: displayHex(tip.hash) };
  const views = (withMempool: boolean) => at && { tip: at, items: expectedViews(model, scripts, mempool, withMempool, ix.history) };
  const sums = model.sums();
  const histories = ix.history ? model.history() : null;
  const mempoolLines = mempool?.lines() ?? new Map<string, (MempoolLine & { funded: number })[]>();
  const headers = (from: number, to: number) =>
    tip && {
      tip: height,
      headersFrom: 0,
      // Below height 0 nothing is stored: none from there.
      headers: from < 0 ? [] : model.blocks.slice(from, to + 1).map((b) => b.header.toString('hex')),
    };
  const want = {
    writerTip: at,
    headers: [headers(0, height), headers(height - 1, height), headers(height, height), headers(0, -1), headers(0, -1)],
    hashes: [...model.blocks.map((b) => displayHex(b.hash)), null],
    totals,
    status: at,
    views: views(false),
    mempoolViews: views(true),
    keyViews: views(false),
    keyMempoolViews: views(true),
    fundedOutputs: at && scripts.map((s) => (mempoolLines.get(keyHex(s)) ?? []).reduce((n, l) => n + l.funded, 0)),
    summaries: scripts.map((s) => {
      const sum = sums.get(keyHex(s)) ?? { balance: 0n, count: 0 };
      const history = histories ? figures(histories.get(keyHex(s))) : undefined;
      return at && { tip: at, balanceSats: sum.balance, utxoCount: sum.count, history };
    }),
    mempoolTxs: mempool?.txs.size ?? 0,
    mempoolSize: mempool?.txs.size ?? 0,
    outspends: expectedOutspends(model, mempool, spendProbes(model), ix.history),
    aggregates: { differences: [], differenceCount: 0, scripts: totals.scripts, utxos: totals.utxos, amount: totals.amount },
    problems: [],
    pages: histories && at ? scripts.map((s) => ({ lines: histories.get(keyHex(s))?.lines ?? [], tips: [at.hash] })) : undefined,
    txBlocks:
      histories && at
        ? expectedTxBlocks(
            model,
            scripts.flatMap((s) => histories.get(keyHex(s))?.lines ?? []),
          )
        : undefined,
    mempoolPages:
      histories && at
        ? scripts.map((s) => ({
            lines: histories.get(keyHex(s))?.lines ?? [],
            tips: [at.hash],
            unconfirmed: byTxid((mempoolLines.get(keyHex(s)) ?? []).map(expectedUnconfirmedLine)),
            misordered: [],
          }))
        : undefined,
    scriptTxs:
      histories && at
        ? scripts.map((s) => {
            const lines = [...(histories.get(keyHex(s))?.lines ?? [])].reverse();
            const unconfirmed = byTxid((mempoolLines.get(keyHex(s)) ?? []).map(expectedUnconfirmedLine));
            const list = (listed: readonly HistoryLine[]) => ({
              confirmedCount: lines.length,
              txids: listed.map((l) => l.txid),
              heights: listed.map((l) => l.height),
              unconfirmed,
            });
            return {
              ...list(lines),
              after: [list([]), list(lines.slice(-1))],
              newest: [true, true],
              feedSeqs: [true, true, true],
              tooLarge: lines.length + unconfirmed.length === 0 ? null : true,
            };
          })
        : undefined,
    walletPages: histories && at ? { lines: expectedWalletLines(histories, scripts), tips: [at.hash], unconfirmed: [] } : undefined,
    walletMempoolPages:
      histories && at
        ? {
            lines: expectedWalletLines(histories, scripts),
            tips: [at.hash],
            unconfirmed: expectedWalletUnconfirmed(mempoolLines, scripts),
            misordered: [],
          }
        : undefined,
  };
  expect(await observe(ix, scripts, height, mempool, spendProbes(model))).toEqual(want);
}
