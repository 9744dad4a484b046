/**
 * The summary a subscriber is pushed: exactly the `data` of the GET address route's body for that
 * address (address-view.ts summaryBody, read through routes/address.ts readIndex), for many
 * subscriptions in one snapshot of the index. Also the fingerprint that says whether it really changed:
 * the amounts only, so a block that leaves an address untouched pushes nothing for it.
 */
import type { ChainCode } from '../../chain/params.js';
import { summaryBody } from '../address-view.js';
import { judge } from '../chain-state.js';
import type { AppDeps, ChainHandle } from '../deps.js';
import { readIndex, syncing, unavailable } from '../routes/address.js';

/** One subscribed address (or script) of one client; `address` is how the client named it. */
export interface Watch {
  readonly chain: ChainCode;
  readonly address: string;
  readonly script: Uint8Array;
  /** The script's store key (16 bytes, latin1): what the change feed names. */
  readonly key: string;
  readonly mempool: boolean;
}

export interface Summary {
  /** The GET route's body `data`. */
  readonly data: object;
  /** Balance, UTXO count and (with mempool) the unconfirmed deltas: equal fingerprints, nothing to push. */
  readonly fingerprint: string;
}

/**
 * The current summaries of `watches` (all of one chain) in one read; throws the ApiError the GET route
 * would answer when the chain cannot answer now (no index, damaged, nothing indexed, stale, syncing).
 */
export function readSummaries(deps: AppDeps, chain: ChainCode, watches: readonly Watch[]): Summary[] {
  const handle: ChainHandle | undefined = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  const views = readIndex(chain, handle, (source) =>
    source.views(
      watches.map((w) => w.script),
      true,
    ),
  );
  if (views === null) throw syncing(chain, null, null);
  const judged = judge(views, deps.settings, (deps.clock ?? { now: Date.now }).now(), handle.params);
  if (judged.kind === 'stale') throw unavailable(chain, judged.reason);
  if (judged.kind === 'syncing') throw syncing(chain, views.tipHeight, views.nodeHeight);
  return watches.map((w, i) => {
    const item = views.items[i]!;
    const view = w.mempool ? item : { balanceSats: item.balanceSats, utxoCount: item.utxoCount };
    const body = summaryBody(chain, handle, w.address, w.script, view, views.tipHeight, views.tipHash) as { data: object };
    const u = view.unconfirmed;
    return {
      data: body.data,
      fingerprint: `${view.balanceSats}|${view.utxoCount}${u ? `|${u.balanceSats}|${u.utxoCount}|${u.txCount}` : ''}`,
    };
  });
}
