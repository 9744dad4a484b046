/** Compares what an index says with what a test knows independently (a node's scan, a built chain). */
import { ChainReader } from '../src/store/sqlite/chain-reader.js';
import { verifyAggregates, verifyChain } from '../src/store/sqlite/verify.js';

export interface Expected {
  /** What the mismatch report calls it: an address, or a script's hex. */
  label: string;
  script: Uint8Array;
  sats: number;
  utxos: number;
}

export interface IndexReport {
  tipHeight: number | null;
  tipHash: string | null;
  mismatches: string[];
  /** Computed from the UTXO table; the aggregates are checked against it in the same snapshot. */
  totals: { sats: number; utxos: number };
  aggregateDifferences: number;
  chainProblems: string[];
}

/** Opens the index read-only (as the API does), checks every expectation, and closes it again. */
export function checkIndex(dbPath: string, expected: readonly Expected[]): IndexReport {
  const reader = ChainReader.open(dbPath);
  try {
    const status = reader.status();
    const mismatches: string[] = [];
    for (const e of expected) {
      const got = reader.summary(e.script);
      // Regtest amounts are small: a number holds them exactly, as the expectations do.
      const sats = Number(got?.balanceSats ?? 0n);
      const utxos = got?.utxoCount ?? 0;
      if (sats !== e.sats || utxos !== e.utxos) {
        mismatches.push(`${e.label}: index ${sats} sat / ${utxos} utxos, expected ${e.sats} sat / ${e.utxos} utxos`);
      }
    }
    const report = verifyAggregates(reader.db);
    return {
      tipHeight: status?.tipHeight ?? null,
      tipHash: status?.tipHash ?? null,
      mismatches,
      totals: { sats: Number(report.amount), utxos: report.utxos },
      aggregateDifferences: report.differenceCount,
      chainProblems: verifyChain(reader.db),
    };
  } finally {
    reader.close();
  }
}

/** The tip the index has reached, or null (no database yet, or nothing indexed). */
export function indexedTip(dbPath: string): { height: number; hash: string } | null {
  let reader: ChainReader;
  try {
    reader = ChainReader.open(dbPath);
  } catch {
    return null;
  }
  try {
    const s = reader.status();
    return s && { height: s.tipHeight, hash: s.tipHash };
  } finally {
    reader.close();
  }
}
