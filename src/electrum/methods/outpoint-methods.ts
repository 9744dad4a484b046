/**
 * blockchain.outpoint.subscribe / get_status / unsubscribe (protocol 1.6, from spesmilo's draft; what
 * Lightning wallets watch a channel's funding output with): an outpoint's funding and spending
 * transactions, read from the index's history and spend index with the node's help
 * (outpoint-status.ts). spk_hint is never needed; it is checked for its form, and a subscription to an
 * outpoint whose funding transaction is unknown yet watches the hinted script for it.
 */
import { fromDisplayHex } from '../../chain/hash.js';
import type { ChainCode } from '../../chain/params.js';
import { scriptKey } from '../../store/script-key.js';
import { noNode } from '../node/node-link.js';
import type { OutpointSubscriptions } from '../index/outpoint-subscriptions.js';
import { readOutpoint, type OutpointSource } from '../index/outpoint-status.js';
import { heightParam, txHashParam } from '../index/params.js';
import { RpcError } from '../wire.js';
import type { MethodSpec } from './registry.js';

/** A status reads the funding transaction, the spend index and up to two mempool entries. */
const STATUS = 2;
const LIGHT = 0.5;

/** Output scripts are at most 10,000 bytes (consensus' MAX_SCRIPT_SIZE). */
const MAX_SCRIPT_HEX = 20_000;

export interface OutpointDeps {
  /** null: the chain has no node, and these methods answer so. */
  readonly source: OutpointSource | null;
  readonly subscriptions: OutpointSubscriptions | null;
}

function outpointParams(hash: unknown, vout: unknown): { txid: Buffer; vout: number } {
  return { txid: fromDisplayHex(txHashParam(hash)), vout: heightParam(vout, 'txout_idx') };
}

/** The hint's script key; null when absent. */
function hintParam(v: unknown): Buffer | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > MAX_SCRIPT_HEX || !/^(?:[0-9a-fA-F]{2})*$/.test(v))
    throw new RpcError('INVALID_PARAMS', 'spk_hint must be an output script in hex');
  return scriptKey(Buffer.from(v, 'hex'));
}

export function outpointMethods(chain: ChainCode, deps: OutpointDeps): Record<string, MethodSpec> {
  const need = <T>(v: T | null): T => {
    if (v === null) throw noNode(chain);
    return v;
  };
  const method = (cost: number, params: readonly string[], handler: MethodSpec['handler']): MethodSpec => ({
    cost,
    params,
    handler,
    since: '1.6',
  });
  return {
    'blockchain.outpoint.subscribe': method(STATUS, ['tx_hash', 'txout_idx', 'spk_hint'], async ([hash, index, hint], session) => {
      const { txid, vout } = outpointParams(hash, index);
      return need(deps.subscriptions).subscribe(session, txid, vout, hintParam(hint));
    }),
    'blockchain.outpoint.get_status': method(STATUS, ['tx_hash', 'txout_idx', 'spk_hint'], async ([hash, index, hint]) => {
      const { txid, vout } = outpointParams(hash, index);
      hintParam(hint);
      return (await readOutpoint(need(deps.source), txid, vout)).status;
    }),
    'blockchain.outpoint.unsubscribe': method(LIGHT, ['tx_hash', 'txout_idx'], async ([hash, index], session) => {
      const { txid, vout } = outpointParams(hash, index);
      return deps.subscriptions?.unsubscribe(session, txid, vout) ?? false;
    }),
  };
}
