/**
 * A change set: everything one commit does to the UTXO set and the per-script aggregates, as plain data.
 * Connecting blocks (connect-blocks.ts) and disconnecting one (disconnect-block.ts) compute it without a
 * database from the coins an engine resolved for them; the engine then writes it in one transaction.
 *
 * Outpoints and scripts are named by their id: the latin1 string of their key (outpoint.ts,
 * script-key.ts), one character per byte, so ids compare in the keys' byte order and serve as Map keys.
 */
import type { HistoryChange } from './history-change.js';
import type { Tip } from './index-model.js';
import type { BlockUndo, UndoCoin } from './undo.js';
import { formatOutpoint } from './outpoint.js';

/** A UTXO with its outpoint key: the shape of a utxos row and of an undo entry. */
export type Coin = UndoCoin;

/** Net change of one script's aggregate. */
export interface ScriptDelta {
  readonly key: Buffer;
  readonly balance: bigint;
  readonly count: number;
}

export interface UndoRow {
  readonly height: number;
  readonly undo: BlockUndo;
}

export interface ChangeSet {
  /**
   * Coins to add, in the order to insert them: ascending by outpoint for a connect (b-tree locality),
   * the undo record's order for a disconnect (the order a conflict is reported in).
   */
  readonly created: readonly Coin[];
  /** Coins that existed before and are gone after: the engine's resolver handed them over. */
  readonly spent: readonly Coin[];
  /** Non-zero aggregate changes, ascending by script key (the order they are written in). */
  readonly deltas: readonly ScriptDelta[];
  /** The same scripts in the order first touched: the change feed's row lists them so. */
  readonly touched: readonly Buffer[];
  /** Undo records to store, one per connected block inside the undo window. */
  readonly undo: readonly UndoRow[];
  /** Change of the UTXO count and of their amount. The script count needs the stored rows: the engine's. */
  readonly utxos: number;
  readonly amount: bigint;
  /** The tip after the commit (null: the index becomes empty). */
  readonly tip: Tip | null;
  /** Connecting with history kept: the batch's transactions and history entries (history-change.ts). */
  readonly history?: HistoryChange;
}

/** The values of `byId` ascending by id: the byte order of the keys the ids are the latin1 of. */
export function inIdOrder<T>(byId: ReadonlyMap<string, T>): T[] {
  // The default sort compares strings natively: far cheaper than a comparator called per comparison.
  return [...byId.keys()].sort().map((id) => byId.get(id)!);
}

/**
 * Per-script changes collected over a whole commit: a script touched by many outputs costs one aggregate
 * write. Amounts are bigints (src/chain/amount.ts), as the coins carry them: one bigint addition per
 * output or input for the script and one for the total.
 */
export class DeltaCollector {
  private readonly byScript = new Map<string, { key: Buffer; balance: bigint; count: number }>();
  utxos = 0;
  amount = 0n;

  /** Records `count` UTXOs of `value` satoshis in total entering (positive) or leaving (negative) a script. */
  add(scriptKey: Buffer, value: bigint, count: number): void {
    const id = scriptKey.toString('latin1');
    const d = this.byScript.get(id);
    if (d) {
      d.balance += value;
      d.count += count;
    } else {
      this.byScript.set(id, { key: scriptKey, balance: value, count });
    }
    this.utxos += count;
    this.amount += value;
  }

  /**
   * The non-zero changes in key order, and their scripts in the order first touched; with `unchanged`,
   * followed by the scripts whose coins came and went (history's scripts: every coin it records passes here).
   */
  result(unchanged = false): { deltas: ScriptDelta[]; touched: Buffer[] } {
    const changed = new Map<string, ScriptDelta>();
    const same: Buffer[] = [];
    for (const [id, d] of this.byScript)
      if (d.balance !== 0n || d.count !== 0) changed.set(id, d);
      else if (unchanged) same.push(d.key);
    return { touched: [...[...changed.values()].map((d) => d.key), ...same], deltas: inIdOrder(changed) };
  }
}

/** `touched` followed by the scripts of `more` it lacks, each once (the change feed's order). */
export function withScripts(touched: readonly Buffer[], more: Iterable<Buffer>): Buffer[] {
  const seen = new Set(touched.map((k) => k.toString('latin1')));
  const out = [...touched];
  for (const key of more) {
    const id = key.toString('latin1');
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(key);
  }
  return out;
}

/** Connecting: a new coin at an outpoint the index holds unspent (Core's logic_error for a non-coinbase overwrite). */
export const createdAgain = (coin: Coin): string =>
  `${formatOutpoint(coin.outpoint)} created at height ${coin.height} is already unspent in the index`;

/** Disconnecting block `height`: a coin to restore at an outpoint the index holds unspent. */
export const restoredAgain =
  (height: number) =>
  (coin: Coin): string =>
    `rolling back block ${height}: outpoint ${formatOutpoint(coin.outpoint)} to restore is already unspent`;
