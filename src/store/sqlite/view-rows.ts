/**
 * The rows the SQLite reader's balance statements answer (chain-reader.ts), and the views made of them:
 * amounts as bigints, history totals from the script's head (../history-chunk.ts).
 */
import { headTotals } from '../history-chunk.js';
import type { HistoryFigures, MempoolDelta, ScriptView } from '../index-model.js';

/** Integers of a statement read with safeIntegers(true) are bigints, of the others numbers. */
export type Int = number | bigint;

export interface ViewRow {
  balance: Int | null;
  utxo_count: Int | null;
  /** Only in the mempool statements' rows. */
  m_received?: Int | null;
  m_sent?: Int | null;
  m_utxo_count?: Int | null;
  m_tx_count?: Int | null;
  /** Only in the history statements' rows. */
  h_data?: Buffer | null;
}

export const sats = (v: Int | null | undefined): bigint => (v === null || v === undefined ? 0n : BigInt(v));

/** A script's history totals from its head; a script with no head has none yet. */
export function historyFigures(head: Buffer | null | undefined): HistoryFigures {
  if (!head) return { txCount: 0, received: 0n, sent: 0n, funded: 0, spent: 0 };
  const { txCount, received, sent, funded, spent } = headTotals(head);
  return { txCount, received, sent, funded, spent };
}

export function toView(row: ViewRow, mempool: boolean, history: boolean): ScriptView {
  const view: ScriptView = { balanceSats: sats(row.balance), utxoCount: Number(row.utxo_count ?? 0) };
  if (history) view.history = historyFigures(row.h_data);
  if (mempool) {
    const received = sats(row.m_received);
    const sent = sats(row.m_sent);
    const u: MempoolDelta = {
      balanceSats: received - sent,
      utxoCount: Number(row.m_utxo_count ?? 0),
      txCount: Number(row.m_tx_count ?? 0),
    };
    // The gross figures only beside confirmed history: without it `unconfirmed` keeps its older shape.
    if (history) Object.assign(u, { received, sent });
    view.unconfirmed = u;
  }
  return view;
}
