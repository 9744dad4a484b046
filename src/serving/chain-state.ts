/**
 * Whether a chain can answer now. The index answers while
 *   - it exists and can be read (a damaged file answers INDEX_DAMAGED, a missing one CHAIN_UNAVAILABLE),
 *   - the indexer heard from its node within `staleAfterSeconds` (a dead indexer, or one that cannot reach
 *     its node, must not leave old balances looking current),
 *   - the tip block is younger than `maxTipAgeSeconds` (a node stuck on an old tip; unset = its
 *     network's default in its chain module), and
 *   - it is within `syncLagBlocks` of the node's height as last recorded by the indexer.
 */
import type { ChainParams } from '../chain/params.js';
import type { ChainHandle, IndexStatus, SummarySource } from './chain-handle.js';
import type { BootstrapProgress } from '../store/index-model.js';

/** When an index stops counting as current (0 = that check is off; absent: see each field). */
export interface Freshness {
  /** The indexer must have heard from its node within this many seconds (absent = off). */
  readonly staleAfterSeconds?: number;
  /** The tip block's header time must be within this many seconds (absent = the network's default, chain-state.ts). */
  readonly maxTipAgeSeconds?: number;
}

/** The tip-age limit for one chain: the setting when given (0 = off), else its network's default. */
export function maxTipAgeFor(settings: Freshness, params: Pick<ChainParams, 'defaultMaxTipAgeSeconds'> | undefined): number {
  if (settings.maxTipAgeSeconds !== undefined) return settings.maxTipAgeSeconds;
  return params?.defaultMaxTipAgeSeconds ?? 0;
}

export type ChainState =
  | { readonly kind: 'unavailable'; readonly reason: string; readonly damaged?: boolean }
  /** The database exists but holds no block yet (the indexer has just started, or is loading a snapshot). */
  | { readonly kind: 'empty'; readonly source: SummarySource; readonly bootstrap: BootstrapProgress | null }
  | { readonly kind: 'stale'; readonly source: SummarySource; readonly status: IndexStatus; readonly ages: Ages; readonly reason: string }
  | { readonly kind: 'syncing'; readonly source: SummarySource; readonly status: IndexStatus; readonly ages: Ages; readonly lag: number }
  | {
      readonly kind: 'ready';
      readonly source: SummarySource;
      readonly status: IndexStatus;
      readonly ages: Ages;
      readonly lag: number | null;
    };

/** Whole seconds since the indexer last heard from the node / since the tip block's time; null = unknown. */
export interface Ages {
  readonly nodeSeenAgeSeconds: number | null;
  readonly tipAgeSeconds: number | null;
}

export interface ChainStateSettings extends Freshness {
  readonly syncLagBlocks: number;
}

/** Blocks the node is ahead of the index; 0 when the index is level or ahead (a node resyncing after a reorg). */
export function lagOf(status: Pick<IndexStatus, 'tipHeight' | 'nodeHeight'>): number | null {
  return status.nodeHeight === null ? null : Math.max(0, status.nodeHeight - status.tipHeight);
}

function ageSeconds(at: Date | null | undefined, now: number): number | null {
  // A clock a little behind the indexer's would give a negative age: count it as fresh.
  return at ? Math.max(0, Math.floor((now - at.getTime()) / 1000)) : null;
}

export function agesOf(status: IndexStatus, now: number): Ages {
  return { nodeSeenAgeSeconds: ageSeconds(status.nodeSeenAt, now), tipAgeSeconds: ageSeconds(status.tipTime, now) };
}

/** Why the index must not answer as current, or null when it is fresh enough. */
export function staleness(ages: Ages, settings: Freshness, params?: Pick<ChainParams, 'defaultMaxTipAgeSeconds'>): string | null {
  const staleAfter = settings.staleAfterSeconds ?? 0;
  if (staleAfter > 0) {
    if (ages.nodeSeenAgeSeconds === null) return 'the indexer has not recorded hearing from its node';
    if (ages.nodeSeenAgeSeconds > staleAfter) {
      return `the indexer last heard from its node ${ages.nodeSeenAgeSeconds} s ago (limit ${staleAfter} s): is it running, and can it reach the node?`;
    }
  }
  const maxTipAge = maxTipAgeFor(settings, params);
  if (maxTipAge > 0 && ages.tipAgeSeconds !== null && ages.tipAgeSeconds > maxTipAge) {
    return `the indexed tip block is ${ages.tipAgeSeconds} s old (limit ${maxTipAge} s): is the node following the network?`;
  }
  return null;
}

/** What a read status allows: stale, too far behind the node, or ready to answer. */
export type Judgement =
  | { readonly kind: 'stale'; readonly ages: Ages; readonly reason: string }
  | { readonly kind: 'syncing'; readonly ages: Ages; readonly lag: number }
  | { readonly kind: 'ready'; readonly ages: Ages; readonly lag: number | null };

/** The freshness and lag checks above, on a status read by the caller (alone, or with the answer it guards). */
export function judge(
  status: IndexStatus,
  settings: ChainStateSettings,
  now: number,
  params?: Pick<ChainParams, 'defaultMaxTipAgeSeconds'>,
): Judgement {
  const ages = agesOf(status, now);
  const stale = staleness(ages, settings, params);
  if (stale !== null) return { kind: 'stale', ages, reason: stale };
  const lag = lagOf(status);
  if (lag !== null && lag > settings.syncLagBlocks) return { kind: 'syncing', ages, lag };
  return { kind: 'ready', ages, lag };
}

export async function chainState(handle: ChainHandle, settings: ChainStateSettings, now: number): Promise<ChainState> {
  const acquired = handle.acquire();
  if (!acquired.ok) return { kind: 'unavailable', reason: acquired.reason, ...(acquired.damaged === true && { damaged: true }) };
  const { source } = acquired;
  let status: IndexStatus | null;
  let bootstrap: BootstrapProgress | null;
  try {
    // Asked together, not one after the other: one wait, and the load's progress is read at the moment the status is.
    [status, bootstrap] = await Promise.all([source.status(), source.bootstrap?.() ?? null]);
  } catch (err) {
    const failure = handle.failed?.(err);
    if (!failure) throw err;
    return { kind: 'unavailable', reason: failure.reason, ...(failure.damaged && { damaged: true }) };
  }
  if (status === null) return { kind: 'empty', source, bootstrap };
  return { ...judge(status, settings, now, handle.params), source, status };
}
