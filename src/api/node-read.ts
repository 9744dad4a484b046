/**
 * What the transaction and block routes share: the chain's node views (404 NODE_NOT_CONFIGURED without
 * a node), their ids read one way (INVALID_TXID, INVALID_BLOCK_ID), and reads of the index that answer
 * its 503s as every other route does.
 */
import type { Request } from 'express';
import { fromDisplayHex } from '../chain/hash.js';
import type { ChainCode } from '../chain/params.js';
import type { ChainHandle, IndexStatus, SummarySource } from '../serving/chain-handle.js';
import { ServingError, quote } from '../serving/errors.js';
import { nodeMissing } from '../serving/node-answers.js';
import type { NodeViews } from '../serving/node-views.js';
import type { IndexReader } from '../store/ports.js';
import { parseChain } from './chain-param.js';
import type { AppDeps } from './deps.js';
import { checkAnswering, readIndex, unavailable, type HeaderSink } from './index-read.js';
import { historyBuilding, historyOff } from './routes/transactions.js';

export interface NodeRoute {
  readonly chain: ChainCode;
  readonly handle: ChainHandle;
  readonly views: NodeViews;
}

export function nodeRoute(deps: AppDeps, req: Request): NodeRoute {
  return chainRoute(deps, parseChain(String(req.params.chain)));
}

/** The chain's node views; CHAIN_UNAVAILABLE when it is not served, NODE_NOT_CONFIGURED without its node. */
export function chainRoute(deps: AppDeps, chain: ChainCode): NodeRoute {
  const handle = deps.chains.get(chain);
  if (!handle?.configured) throw unavailable(chain, 'this service is not configured for it');
  const views = deps.nodeViews?.get(chain);
  if (views === undefined) throw nodeMissing(chain);
  return { chain, handle, views };
}

const HASH = /^[0-9a-fA-F]{64}$/;
/** Heights are int32 in Core's block index. */
const MAX_HEIGHT = 2 ** 31 - 1;

/** A txid in internal byte order; INVALID_TXID unless it is 64 hex digits. */
export function parseTxid(text: string): Buffer {
  if (!HASH.test(text)) throw new ServingError('INVALID_TXID', `${quote(text, 70)} is not a txid: 64 hex digits`);
  return fromDisplayHex(text);
}

export type BlockId = { readonly height: number } | { readonly hash: string };

/** A block height or hash (display hex, lower case); INVALID_BLOCK_ID for anything else. */
export function parseBlockId(text: string): BlockId {
  if (HASH.test(text)) return { hash: text.toLowerCase() };
  if (/^(?:0|[1-9]\d{0,9})$/.test(text) && Number(text) <= MAX_HEIGHT) return { height: Number(text) };
  throw new ServingError(
    'INVALID_BLOCK_ID',
    `${quote(text, 70)} is not a block id: a height (0 to ${MAX_HEIGHT}) or a block hash of 64 hex digits`,
  );
}

/** The reads of the transaction and block views. */
export type ViewIndex = Pick<IndexReader, 'txBlock' | 'headers' | 'outspends'>;

/**
 * The chain's index for the views, each read on the source acquired at that moment: a request's reads
 * (a transaction, then its prevouts, then its block's header) span node calls, during which the handle
 * may drop a damaged or replaced source and open a new one. A failed read answers the index's 503.
 */
function viewIndex({ chain, handle }: NodeRoute): ViewIndex {
  const read = <T>(fn: (source: SummarySource) => Promise<T> | undefined): Promise<T> =>
    readIndex(chain, handle, async (source) => {
      const pending = fn(source);
      if (pending === undefined) throw new Error('this index cannot read transactions or headers');
      return pending;
    }) as Promise<T>;
  return {
    txBlock: (txid) => read((s) => s.txBlock?.(txid)),
    headers: (from, count) => read((s) => s.headers?.(from, count)),
    outspends: (txid, outputs) => read((s) => s.outspends?.(txid, outputs)),
  };
}

/**
 * The index's status after the checks every route makes (nothing indexed, stale, behind the node: 503),
 * and `withHistory`: history kept (404 HISTORY_DISABLED, 503 HISTORY_BUILDING otherwise), since only
 * history knows which block holds a transaction; with the index the views read.
 */
export async function answeringIndex(
  deps: AppDeps,
  route: NodeRoute,
  res: HeaderSink,
  withHistory: boolean,
): Promise<IndexStatus & { readonly index: ViewIndex }> {
  const { chain, handle } = route;
  const status = await readIndex(chain, handle, (source) => source.status());
  checkAnswering(deps, chain, status, res);
  if (withHistory) {
    const state = status.historyState;
    if (state === undefined) throw historyOff(chain);
    if (state.state === 'building') throw historyBuilding(chain, { height: state.builtHeight, tipHeight: status.tipHeight });
  }
  return { ...status, index: viewIndex(route) };
}
