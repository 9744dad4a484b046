/**
 * How the index-backed Electrum methods reach a chain's index: the API's chain handle (acquired per
 * request, as the HTTP routes do), narrowed to the reads they need. What cannot be read is an RpcError
 * the client can act on (retry later), never an internal error.
 */
import type { ChainHandle, SummarySource } from '../../serving/chain-handle.js';
import type { IndexReader } from '../../store/ports.js';
import { RpcError } from '../wire.js';

/** The reads of the Electrum methods: one snapshot each (ports.ts). */
export type ElectrumIndex = Pick<IndexReader, 'status' | 'keyViews' | 'scriptTxs' | 'utxoPage' | 'headers' | 'txBlock' | 'feed'>;

/** The chain's index now; throws SERVER_BUSY when it cannot be read (not created yet, reopening). */
export type IndexAccess = () => ElectrumIndex;

function complete(source: SummarySource): source is SummarySource & ElectrumIndex {
  return (
    source.scriptTxs !== undefined &&
    source.utxoPage !== undefined &&
    source.headers !== undefined &&
    source.txBlock !== undefined &&
    source.feed !== undefined
  );
}

export function indexAccess(handle: ChainHandle | undefined): IndexAccess {
  return () => {
    const acquired = handle?.acquire();
    if (!acquired?.ok)
      throw new RpcError('SERVER_BUSY', `the index cannot be read right now (${acquired?.reason ?? 'no index'}); retry shortly`);
    if (!complete(acquired.source)) throw new RpcError('SERVER_BUSY', 'this index cannot answer Electrum requests');
    return acquired.source;
  };
}

/** Nothing indexed yet (a read answered null): the client should retry later. */
export function notIndexed(): RpcError {
  return new RpcError('SERVER_BUSY', 'nothing is indexed yet; retry shortly');
}
