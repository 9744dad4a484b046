/**
 * The chain's index as the node-backed methods read it: the handle the HTTP routes use (src/api/deps.ts),
 * acquired per call, its absence an error answer.
 */
import type { ChainHandle, SummarySource } from '../../api/deps.js';
import { RpcError } from '../wire.js';

export type IndexAccess = () => SummarySource;

export function indexAccess(handle: ChainHandle | undefined): IndexAccess {
  return () => {
    const state = handle?.acquire();
    if (!state) throw new RpcError('SERVER_BUSY', 'this chain has no index on this server');
    if (!state.ok) throw new RpcError('SERVER_BUSY', `the index cannot be read: ${state.reason}`);
    return state.source;
  };
}
