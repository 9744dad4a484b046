/**
 * The summary a subscriber is pushed: exactly the `data` of the GET route's body for what it watches
 * (an address: address-view.ts summaryBody; a scripthash: scripthashBody; a wallet: wallet-view.ts
 * walletBody without details, with history its distinct txCount), for many subscriptions in one snapshot
 * of the index. Also the fingerprint that says whether it really changed: the figures only, so a block
 * that leaves a watch untouched pushes nothing for it.
 */
import type { Sats } from '../../chain/amount.js';
import type { ChainCode } from '../../chain/params.js';
import type { DerivedScript } from '../../wallet/derive.js';
import { scripthashBody, summaryBody } from '../address-view.js';
import { judge } from '../../serving/chain-state.js';
import type { AppDeps, ScriptView, ScriptViews } from '../deps.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import { readIndex, syncing, unavailable } from '../index-read.js';
import { walletBody } from '../wallet-view.js';

interface WatchBase {
  readonly chain: ChainCode;
  /** The store keys (16 bytes, latin1) of every watched script: what the change feed names. */
  readonly keys: readonly string[];
  readonly mempool: boolean;
  /** Subscriptions it counts as against the caps (limits.ts). */
  readonly cost: number;
}

/** One subscribed address of one client; `address` is how the client named it. */
export interface AddressWatch extends WatchBase {
  readonly kind: 'address';
  readonly address: string;
  readonly script: Uint8Array;
}

/** One subscribed Electrum scripthash (lower-case hex). */
export interface ScripthashWatch extends WatchBase {
  readonly kind: 'scripthash';
  readonly scripthash: string;
}

/** One subscribed wallet: its derived scripts, in the xpub route's order. */
export interface WalletWatch extends WatchBase {
  readonly kind: 'wallet';
  /** wallet/fingerprint.ts: what names the wallet anywhere the key must not appear. */
  readonly fingerprint: string;
  readonly range: number;
  readonly descriptors: readonly string[];
  readonly scripts: readonly DerivedScript[];
}

export type Watch = AddressWatch | ScripthashWatch | WalletWatch;

export interface Summary {
  /** The GET route's body `data`. */
  readonly data: object;
  /** Balance, UTXO count and (with mempool) the unconfirmed deltas: equal fingerprints, nothing to push. */
  readonly fingerprint: string;
}

function printOf(view: ScriptView): string {
  const u = view.unconfirmed;
  // The history's count too: a transaction that paid and spent alike changes it, not the balance.
  const h = view.history ? `|h${view.history.txCount}` : '';
  // Received and sent too: a replacement may change them and leave the net figures as they were.
  const gross = u?.received === undefined ? '' : `|${u.received}|${u.sent}`;
  return `${view.balanceSats}|${view.utxoCount}${h}${u ? `|${u.balanceSats}|${u.utxoCount}|${u.txCount}${gross}` : ''}`;
}

/**
 * A watch's summary from its scripts' views (read with mempool; dropped again when it was not asked for);
 * `txCount`: a wallet's distinct count, read with the views while history is kept.
 */
function summaryOf(
  chain: ChainCode,
  handle: ChainHandle,
  w: Watch,
  read: ScriptView[],
  views: ScriptViews,
  txCount: number | undefined,
): Summary {
  const items = w.mempool ? read : read.map(({ unconfirmed: _, ...confirmed }) => confirmed);
  const { tipHeight, tipHash } = views;
  if (w.kind === 'wallet') {
    const answer = { range: w.range, descriptors: w.descriptors, funded: false };
    const { groupTxCounts: _, ...status } = views;
    const data = (
      walletBody(chain, handle, answer, w.scripts, { ...status, items, distinctTxCount: txCount }) as { data: Record<string, unknown> }
    ).data;
    const u = data.unconfirmed as { balanceSatoshi: Sats; utxoCount: number; receivedSatoshi?: Sats; sentSatoshi?: Sats } | undefined;
    // The history's figures too: a transaction that paid and spent alike changes them, not the balance.
    const history = data.txCount === undefined ? '' : `|h${data.txCount as number}|${(data.receivedSatoshi as Sats).sats}`;
    const print = `${(data.balanceSatoshi as Sats).sats}|${data.utxoCount as number}|${data.fundedAddresses as number}${history}`;
    const gross = u?.receivedSatoshi ? `|${u.receivedSatoshi.sats}|${u.sentSatoshi!.sats}` : '';
    return { data, fingerprint: u ? `${print}|${u.balanceSatoshi.sats}|${u.utxoCount}${gross}` : print };
  }
  const view = items[0]!;
  const body =
    w.kind === 'address'
      ? summaryBody(chain, handle, w.address, w.script, view, tipHeight, tipHash)
      : scripthashBody(chain, w.scripthash, view, tipHeight, tipHash);
  return { data: (body as { data: object }).data, fingerprint: printOf(view) };
}

/**
 * The current summaries of `watches` (all of one chain) in one read by store key; throws the ServingError
 * the GET route would answer when the chain cannot answer now (no index, damaged, nothing indexed,
 * stale, syncing).
 */
export async function readSummaries(deps: AppDeps, chain: ChainCode, watches: readonly Watch[]): Promise<Summary[]> {
  const handle: ChainHandle | undefined = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  // Each script read once, however many watches share it (a popular address, wallets that overlap).
  const slot = new Map<string, number>();
  for (const w of watches) for (const k of w.keys) if (!slot.has(k)) slot.set(k, slot.size);
  const keys = [...slot.keys()].map((k) => Buffer.from(k, 'latin1'));
  // Each wallet's distinct txCount, as its GET answer has it (read while history is kept, ignored otherwise).
  const wallets = watches.flatMap((w, i) => (w.kind === 'wallet' ? [i] : []));
  const groups = wallets.map((i) => watches[i]!.keys.map((k) => slot.get(k)!));
  const views = await readIndex(chain, handle, (source) => source.keyViews(keys, true, groups.length > 0 ? { groups } : {}));
  if (views === null) throw syncing(chain, null, null);
  const judged = judge(views, deps.settings, (deps.clock ?? { now: Date.now }).now(), handle.params);
  if (judged.kind === 'stale') throw unavailable(chain, judged.reason);
  if (judged.kind === 'syncing') throw syncing(chain, views.tipHeight, views.nodeHeight);
  const txCounts = new Map(wallets.map((w, g) => [w, views.groupTxCounts?.[g]]));
  return watches.map((w, i) => {
    const read = w.keys.map((k) => views.items[slot.get(k)!]!);
    return summaryOf(chain, handle, w, read, views, txCounts.get(i));
  });
}
