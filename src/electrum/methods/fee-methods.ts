/**
 * Fees from the node: `blockchain.estimatefee`, `blockchain.relayfee` (before 1.6), `mempool.get_info`
 * (from 1.6, its replacement) and `mempool.get_fee_histogram`. Answers are shared for a few seconds
 * (ttl-cache.ts): a histogram walks the node's whole mempool, and every wallet asks for these at each
 * connection.
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
/** estimatesmartfee's estimate_mode values (Core reads them in any case). */
const MODES = ['UNSET', 'ECONOMICAL', 'CONSERVATIVE'] as const;

interface MempoolInfo {
  readonly mempoolminfee: number;
  readonly minrelaytxfee: number;
  readonly incrementalrelayfee: number;
}

function modeParam(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const mode = typeof v === 'string' ? v.toUpperCase() : undefined;
  if (mode === undefined || !(MODES as readonly string[]).includes(mode))
    throw new RpcError('INVALID_PARAMS', `mode must be one of ${MODES.join(', ')}`);
  return mode;
}

function feeRate(v: unknown, from: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RpcError('DAEMON_ERROR', `daemon error: ${from} gave no fee rate`);
  return v;
}

export function feeMethods(node: NodeLink, now: () => number = Date.now): Record<string, MethodSpec> {
  const estimates = new TtlCache<string, number>(FEE_TTL_MS, now);
  const relay = new TtlCache<'relay', number>(RELAY_TTL_MS, now);
  const mempoolInfo = new TtlCache<'info', MempoolInfo>(FEE_TTL_MS, now);
  const histogram = new TtlCache<'histogram', [number, number][]>(FEE_TTL_MS, now);
  return {
    'blockchain.estimatefee': {
      cost: NODE_CACHED,
      params: ['number', 'mode'],
      handler: async ([n, modeValue]) => {
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_TARGET)
          throw new RpcError('INVALID_PARAMS', `number must be an integer from 1 to ${MAX_TARGET}`);
        // From 1.6 a mode goes to the node as estimate_mode; without one the node's default stands.
        const mode = modeParam(modeValue);
        return estimates.get(`${n}:${mode ?? ''}`, async () => {
          const got = await node.call<{ feerate?: unknown }>('estimatesmartfee', mode === undefined ? [n] : [n, mode]);
          // No estimate yet (a fresh node, regtest): -1, as ElectrumX.
          return typeof got.feerate === 'number' ? got.feerate : -1;
        });
      },
    },
    'blockchain.relayfee': {
      cost: NODE_CACHED,
      params: [],
      until: '1.6',
      handler: async () =>
        relay.get('relay', async () => feeRate((await node.call<{ relayfee?: unknown }>('getnetworkinfo')).relayfee, 'getnetworkinfo')),
    },
    'mempool.get_info': {
      cost: NODE_CACHED,
      params: [],
      since: '1.6',
      handler: async () =>
        mempoolInfo.get('info', async () => {
          const info = await node.call<Record<string, unknown>>('getmempoolinfo');
          // Core 24 and later name the increment here; older nodes (litecoind 0.21) only in getnetworkinfo.
          const incremental = info.incrementalrelayfee ?? (await node.call<{ incrementalfee?: unknown }>('getnetworkinfo')).incrementalfee;
          return {
            mempoolminfee: feeRate(info.mempoolminfee, 'getmempoolinfo'),
            minrelaytxfee: feeRate(info.minrelaytxfee, 'getmempoolinfo'),
            incrementalrelayfee: feeRate(incremental, 'getnetworkinfo'),
          };
        }),
    },
    'mempool.get_fee_histogram': {
      cost: NODE_CACHED,
      params: [],
      handler: async () => histogram.get('histogram', async () => feeHistogram(mempoolFees(await node.call('getrawmempool', [true])))),
    },
  };
}
