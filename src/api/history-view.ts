/**
 * A history page as the …/transactions routes answer it: with `?mempool=true` the unconfirmed
 * transactions first (`height: null`), then the confirmed ones, each `{txid, height, receivedSatoshi,
 * received, sentSatoshi, sent}` (amounts through the summaries' serializer: exactly 8 decimals), and the
 * `next` cursor sealed for the history's scope (the mempool flag included) and tip.
 */
import { Coins, Sats } from '../chain/amount.js';
import { toDisplayHex } from '../chain/hash.js';
import type { HistoryItem, HistoryPosition, UnconfirmedItem } from '../store/index-model.js';
import { encodeHistoryCursor } from './history-cursor.js';
import type { CursorScope } from './utxo-cursor.js';

/** A page as a script's or a wallet's history read answers it (WalletHistoryPage adds each item's parts). */
interface Page<U extends UnconfirmedItem, I extends HistoryItem> {
  readonly unconfirmed: readonly U[];
  readonly items: readonly I[];
  readonly next: HistoryPosition | null;
  readonly tipHeight: number;
  readonly tipHash: Buffer;
  readonly secret: Buffer;
}

interface HistoryLine {
  readonly txid: Buffer;
  readonly height: number | null;
  readonly received: bigint;
  readonly sent: bigint;
}

/** One transaction of a history page, as every history route writes it (`height` null: unconfirmed). */
export function historyItem({ txid, height, received, sent }: HistoryLine): Record<string, unknown> {
  return {
    txid: toDisplayHex(txid),
    height,
    receivedSatoshi: new Sats(received),
    received: new Coins(received),
    sentSatoshi: new Sats(sent),
    sent: new Coins(sent),
  };
}

/**
 * The page's transactions, unconfirmed first, each written by `write` (a wallet's adds its addresses),
 * and its `next` cursor (null on the last page).
 */
export function historyView<U extends UnconfirmedItem, I extends HistoryItem>(
  page: Page<U, I>,
  scope: CursorScope,
  write: (line: (U & { height: null }) | I) => Record<string, unknown>,
): { transactions: Record<string, unknown>[]; next: string | null } {
  const tip = { height: page.tipHeight, hash: page.tipHash };
  return {
    transactions: [...page.unconfirmed.map((u) => write({ ...u, height: null })), ...page.items.map(write)],
    next: page.next === null ? null : encodeHistoryCursor(page.secret, scope, tip, page.next),
  };
}
