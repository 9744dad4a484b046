/**
 * Fees from the node: `blockchain.estimatefee`, `blockchain.relayfee` and `mempool.get_fee_histogram`.
 * Answers are shared for a few seconds (ttl-cache.ts): a histogram walks the node's whole mempool, and
 * every wallet asks for these at each connection.
 */
import type { NodeLink } from '../node/node-link.js';
import { mempoolFees } from '../../serving/mempool-fees.js';
import { feeHistogram } from '../node/fee-histogram.js';
import { TtlCache } from '../node/ttl-cache.js';
import { RpcError } from '../wire.js';
import type { MethodSpec } from './registry.js';

/** Cached node answers: half a keyless HTTP request (five server.* calls). */
const NODE_CACHED = 0.5;
const FEE_TTL_MS = 10_000;
const RELAY_TTL_MS = 60_000;
/** estimatesmartfee's range of confirmation targets (Core's MAX_BLOCK_CONFIRMS is 1008). */
const MAX_TARGET = 1008;

export function feeMethods(node: NodeLink, now: () => number = Date.now): Record<string, MethodSpec> {
  const estimates = new TtlCache<number, number>(FEE_TTL_MS, now);
  const relay = new TtlCache<'relay', number>(RELAY_TTL_MS, now);
  const histogram = new TtlCache<'histogram', [number, number][]>(FEE_TTL_MS, now);
  return {
    'blockchain.estimatefee': {
      cost: NODE_CACHED,
      params: ['number'],
      handler: async ([n]) => {
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_TARGET)
          throw new RpcError('INVALID_PARAMS', `number must be an integer from 1 to ${MAX_TARGET}`);
        return estimates.get(n, async () => {
          const got = await node.call<{ feerate?: unknown }>('estimatesmartfee', [n]);
          // No estimate yet (a fresh node, regtest): -1, as ElectrumX.
          return typeof got.feerate === 'number' ? got.feerate : -1;
        });
      },
    },
    'blockchain.relayfee': {
      cost: NODE_CACHED,
      params: [],
      handler: async () =>
        relay.get('relay', async () => {
          const info = await node.call<{ relayfee?: unknown }>('getnetworkinfo');
          if (typeof info.relayfee !== 'number') throw new RpcError('DAEMON_ERROR', 'daemon error: getnetworkinfo gave no relayfee');
          return info.relayfee;
        }),
    },
    'mempool.get_fee_histogram': {
      cost: NODE_CACHED,
      params: [],
      handler: async () => histogram.get('histogram', async () => feeHistogram(mempoolFees(await node.call('getrawmempool', [true])))),
    },
  };
}
