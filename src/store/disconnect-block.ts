/**
 * The UTXO effects of disconnecting the tip block, as a change set (change-set.ts) computed without a
 * database, as Core's DisconnectBlock: the coins the block created leave, the coins it spent (its undo
 * record, undo.ts) come back. An outpoint a duplicate coinbase overwrote is in both lists: its new coin
 * leaves and the old one returns.
 */
import { DeltaCollector, type ChangeSet, type Coin } from './change-set.js';
import { StoreError } from './errors.js';
import type { Tip } from './index-model.js';
import { formatOutpoint } from './outpoint.js';
import type { BlockUndo } from './undo.js';

/** The outpoints whose current coins disconnecting needs, by id: those the block created. */
export function outpointsToRestore(undo: BlockUndo): Map<string, Buffer> {
  return new Map(undo.created.map((key) => [key.toString('latin1'), key]));
}

/**
 * The change set of disconnecting block `height` from its undo record, given the coins the index holds
 * now at the outpoints outpointsToRestore listed (absent: not in the index) and the block below it
 * (the new tip; null when the index becomes empty). Throws StoreError MISSING_UTXO when a created
 * outpoint is not unspent.
 */
export function disconnectBlock(height: number, undo: BlockUndo, current: ReadonlyMap<string, Coin>, below: Tip | null): ChangeSet {
  const left = new Map(current);
  const deltas = new DeltaCollector();
  const spent: Coin[] = [];
  for (const outpoint of undo.created) {
    const id = outpoint.toString('latin1');
    const coin = left.get(id);
    if (!coin) {
      throw new StoreError('MISSING_UTXO', `rolling back block ${height}: its output ${formatOutpoint(outpoint)} is not in the UTXO set`);
    }
    left.delete(id);
    spent.push(coin);
    deltas.add(coin.scriptKey, -coin.value, -1);
  }
  for (const coin of undo.spent) deltas.add(coin.scriptKey, coin.value, 1);
  return { created: undo.spent, spent, ...deltas.result(), undo: [], utxos: deltas.utxos, amount: deltas.amount, tip: below };
}
