/**
 * How the index-backed Electrum methods reach a chain's index: the API's chain handle (acquired per
 * request, as the HTTP routes do), narrowed to the reads they need. What cannot be read is an RpcError
 * the client can act on (retry later), never an internal error.
 */
import type { ChainHandle, SummarySource } from '../../serving/chain-handle.js';
import type { IndexReader } from '../../store/ports.js';
import { RpcError } from '../wire.js';

/** The reads of the Electrum methods: one snapshot each (ports.ts). */
export type ElectrumIndex = Pick<
  IndexReader,
  'status' | 'keyViews' | 'scriptTxs' | 'utxoPage' | 'headers' | 'txBlock' | 'outspends' | 'feed'
>;

/** The chain's index now; throws SERVER_BUSY when it cannot be read (not created yet, reopening). */
export type IndexAccess = () => ElectrumIndex;

function complete(source: SummarySource): source is SummarySource & ElectrumIndex {
  return (
    source.scriptTxs !== undefined &&
    source.utxoPage !== undefined &&
    source.headers !== undefined &&
    source.txBlock !== undefined &&
    source.outspends !== undefined &&
    source.feed !== undefined
  );
}

const busy = (reason: string): RpcError => new RpcError('SERVER_BUSY', `the index cannot be read right now (${reason}); retry shortly`);

const READS = ['status', 'keyViews', 'scriptTxs', 'utxoPage', 'headers', 'txBlock', 'outspends'] as const satisfies ReadonlyArray<
  keyof ElectrumIndex
>;

/**
 * The source's reads, a failure that is the index's (a damaged file, a database overloaded, unreachable or
 * cancelling a standby's read: handle.failed) answered SERVER_BUSY with its reason, as HTTP answers 503:
 * the client retries, and nothing is logged as a bug.
 */
function guarded(source: ElectrumIndex, handle: ChainHandle): ElectrumIndex {
  // The feed is the live hub's to tail, which handles its own failed reads.
  const reads: Record<string, unknown> = { feed: source.feed };
  for (const name of READS) {
    const read = (source[name] as (...args: unknown[]) => Promise<unknown>).bind(source);
    reads[name] = async (...args: unknown[]) => {
      try {
        return await read(...args);
      } catch (err) {
        const failure = handle.failed?.(err);
        if (failure) throw busy(failure.reason);
        throw err;
      }
    };
  }
  return reads as unknown as ElectrumIndex;
}

export function indexAccess(handle: ChainHandle | undefined): IndexAccess {
  // One guard per source the handle hands out (it reopens a damaged or dropped one as a new source).
  const guards = new WeakMap<object, ElectrumIndex>();
  return () => {
    const acquired = handle?.acquire();
    if (!acquired?.ok) throw busy(acquired?.reason ?? 'no index');
    const { source } = acquired;
    if (!complete(source)) throw new RpcError('SERVER_BUSY', 'this index cannot answer Electrum requests');
    let guard = guards.get(source);
    if (guard === undefined) guards.set(source, (guard = guarded(source, handle!)));
    return guard;
  };
}

/** Nothing indexed yet (a read answered null): the client should retry later. */
export function notIndexed(): RpcError {
  return new RpcError('SERVER_BUSY', 'nothing is indexed yet; retry shortly');
}
