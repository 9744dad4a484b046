/**
 * What every engine says of a snapshot bootstrap (the load itself is each engine's: sqlite/bulk-load.ts,
 * postgres/snapshot-load.ts): the refusals it causes and the progress record readers parse.
 */
import { toDisplayHex } from '../chain/hash.js';
import { StoreError } from './errors.js';
import type { BootstrapProgress, Tip } from './index-model.js';

/** Block sync must not start on the committed chunks of an interrupted load of the snapshot of block `base`. */
export function bootstrapPending(base: Buffer): StoreError {
  return new StoreError(
    'BOOTSTRAP_PENDING',
    `the index holds part of a bootstrap from the snapshot of block ${toDisplayHex(base)}: run the indexer with --bootstrap and that file again to finish it, or delete this chain's database to sync from genesis`,
  );
}

/** A rollback of `tip`, at or below the snapshot's base height: the index knows nothing older. */
export function belowBase(tip: Tip): StoreError {
  return new StoreError(
    'BELOW_BASE',
    `reorg below the snapshot base block ${tip.height} (${toDisplayHex(tip.hash)}): the index was bootstrapped there and knows nothing older; ` +
      "delete this chain's database and bootstrap again from a snapshot of the node's current chain",
  );
}

/** The progress record a load writes with each committed chunk (JSON {phase, coins, total}); null when unreadable. */
export function parseBootstrapProgress(text: unknown): BootstrapProgress | null {
  if (typeof text !== 'string') return null;
  try {
    const p = JSON.parse(text) as Partial<BootstrapProgress>;
    return typeof p.phase === 'string' && Number.isSafeInteger(p.coins)
      ? { phase: p.phase, coins: p.coins!, total: Number.isSafeInteger(p.total) ? p.total! : null }
      : null;
  } catch {
    return null;
  }
}
