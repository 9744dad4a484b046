/**
 * A wallet's merged history as the contract checks it (expect-index.ts): every page of walletHistoryPage
 * for a list of scripts (one of them given twice), with and without the mempool, against the models'
 * per-script histories merged by hand: each transaction once, its part per script under the index the
 * script first appears at, amounts summed.
 */
import type { IndexReader } from '../../src/store/ports.js';
import type { HistoryPart, HistoryPosition } from '../../src/store/index-model.js';
import { displayHex, keyHex, type HistoryLine } from './model.js';
import { expectedUnconfirmedLine, unconfirmedLine, type MempoolLine, type UnconfirmedLine } from './mempool-model.js';

export interface WalletLine {
  txid: string;
  height: number;
  position: number;
  received: bigint;
  sent: bigint;
  /** `script received sent`, in key-list order. */
  parts: string[];
}

export interface WalletUnconfirmed extends UnconfirmedLine {
  parts: string[];
}

/** The wallet the contract pages: the scripts, then the first one again (it must count once). */
export const walletOf = (scripts: readonly Buffer[]): Buffer[] => [...scripts, scripts[0]!];

const partText = (p: HistoryPart): string => `${p.script} ${p.received} ${p.sent}`;

/** Every page of the wallet's history, `limit` at a time; with `mempool` the unconfirmed part apart, in the order read. */
export async function walletPageAll(
  reader: IndexReader,
  scripts: readonly Buffer[],
  limit: number,
  mempool: boolean,
): Promise<{ lines: WalletLine[]; tips: string[]; unconfirmed: WalletUnconfirmed[] } | null> {
  const keys = walletOf(scripts).map((s) => Buffer.from(keyHex(s), 'hex'));
  const lines: WalletLine[] = [];
  const unconfirmed: WalletUnconfirmed[] = [];
  const tips = new Set<string>();
  for (let after: HistoryPosition | null = null; ;) {
    const got = await reader.walletHistoryPage({ keys, after, limit, mempool });
    if (!got?.page) return null;
    const page = got.page;
    tips.add(got.tipHash);
    if (page.unconfirmed.length > 0 && lines.length > 0) throw new Error('a mempool transaction after a confirmed one');
    if (page.unconfirmed.length + page.items.length > limit) throw new Error('a page longer than its limit');
    for (const u of page.unconfirmed) unconfirmed.push({ ...unconfirmedLine(u), parts: u.parts.map(partText) });
    for (const i of page.items)
      lines.push({
        txid: displayHex(i.txid),
        height: i.height,
        position: i.position,
        received: i.received,
        sent: i.sent,
        parts: i.parts.map(partText),
      });
    if (page.next === null) return { lines, tips: [...tips], unconfirmed };
    after = page.next;
  }
}

/** The scripts' lines merged by txid: each transaction once, its parts in key-list order. */
function merge<L extends { txid: string; received: bigint; sent: bigint }>(
  scripts: readonly Buffer[],
  linesOf: (key: string) => readonly L[],
): Map<string, { first: L; received: bigint; sent: bigint; parts: string[] }> {
  const byTx = new Map<string, { first: L; received: bigint; sent: bigint; parts: string[] }>();
  const seen = new Set<string>();
  walletOf(scripts).forEach((s, script) => {
    const key = keyHex(s);
    if (seen.has(key)) return;
    seen.add(key);
    for (const l of linesOf(key)) {
      const e = byTx.get(l.txid) ?? { first: l, received: 0n, sent: 0n, parts: [] };
      e.received += l.received;
      e.sent += l.sent;
      e.parts.push(`${script} ${l.received} ${l.sent}`);
      byTx.set(l.txid, e);
    }
  });
  return byTx;
}

/** The confirmed merged history: newest first (height, then position in the block, descending). */
export function expectedWalletLines(histories: ReadonlyMap<string, { lines: HistoryLine[] }>, scripts: readonly Buffer[]): WalletLine[] {
  return [...merge(scripts, (key) => histories.get(key)?.lines ?? []).values()]
    .map(({ first, received, sent, parts }) => ({
      txid: first.txid,
      height: first.height,
      position: first.position,
      received,
      sent,
      parts,
    }))
    .sort((a, b) => b.height - a.height || b.position - a.position);
}

/** The mempool part, by txid (its order is checked apart). */
export function expectedWalletUnconfirmed(
  lines: ReadonlyMap<string, readonly MempoolLine[]>,
  scripts: readonly Buffer[],
): WalletUnconfirmed[] {
  return [...merge(scripts, (key) => lines.get(key) ?? []).entries()]
    .map(([, { first, received, sent, parts }]) => ({ ...expectedUnconfirmedLine(first), received, sent, parts }))
    .sort((a, b) => a.txid.localeCompare(b.txid));
}
