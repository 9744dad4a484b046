/**
 * The node's failures as serving errors, for the doors that read transactions and blocks through the
 * serving layer (tx-source.ts, block-source.ts): a node that cannot answer is a 503 with a code (the
 * process lives), a block the node has pruned names itself, and "not found" is the caller's to decide.
 */
import type { ChainCode } from '../chain/params.js';
import { NodeError } from '../node/node-client.js';
import { settingWithVariables } from '../setting-variables.js';
import { nodeRpcCode, nodeSaid, type ChainNode } from './chain-node.js';
import { ServingError } from './errors.js';

/** Seconds a client should wait before asking again when the node did not answer. */
const RETRY_SECONDS = '5';

/** Bitcoin Core's RPC_INVALID_ADDRESS_OR_KEY: no such transaction or block. */
export const RPC_NOT_FOUND = -5;
/** Bitcoin Core's RPC_METHOD_NOT_FOUND: a node without the call (submitpackage before Core 28, litecoind). */
export const RPC_METHOD_NOT_FOUND = -32601;
/** submitpackage's limit on a package (Core's MAX_PACKAGE_COUNT), which every door that relays packages keeps. */
export const MAX_PACKAGE_TXS = 25;
/** RPC_MISC_ERROR, which getblock and getrawtransaction answer for a block whose data is pruned. */
const RPC_MISC_ERROR = -1;

export function nodeMissing(chain: ChainCode): ServingError {
  return new ServingError(
    'NODE_NOT_CONFIGURED',
    `this server has no ${chain} node to read transactions and blocks from: its operator sets ${settingWithVariables(`chains.${chain}.rpcUrl`)}`,
  );
}

/** The error a failed node call answers as; `block` names the block asked for, if any. */
export function nodeFailure(chain: ChainCode, err: unknown, method: string, block?: { hash: string; height: number }): ServingError {
  if (!(err instanceof NodeError))
    return new ServingError('NODE_UNAVAILABLE', `the ${chain} node's ${method} failed`, undefined, { 'Retry-After': RETRY_SECONDS });
  if (block !== undefined && nodeRpcCode(err) === RPC_MISC_ERROR && /not available|prune/i.test(err.details.nodeMessage ?? ''))
    return new ServingError(
      'BLOCK_PRUNED',
      `the ${chain} node has pruned block ${block.hash} (height ${block.height}), so its transactions cannot be read here`,
      { blockHash: block.hash, height: block.height },
    );
  return new ServingError('NODE_UNAVAILABLE', `the ${chain} node's ${method} failed: ${nodeSaid(err)}`, undefined, {
    'Retry-After': RETRY_SECONDS,
  });
}

/** `node.call`, its failure a serving error; null when the node answers "not found" (-5). */
export async function askNode<T>(
  chain: ChainCode,
  node: ChainNode,
  method: string,
  params: readonly unknown[],
  block?: { hash: string; height: number },
): Promise<T | null> {
  try {
    return await node.call<T>(method, params);
  } catch (err) {
    if (nodeRpcCode(err) === RPC_NOT_FOUND) return null;
    throw nodeFailure(chain, err, method, block);
  }
}

/**
 * The node's JSON with each amount as the node wrote it (eight decimals: `2.00000000`, never `2` or
 * `1e-7`), where the runtime lets a reviver see the source text (Node 21 and later); plain numbers
 * otherwise. Numbers written without a point or exponent (heights, counts, JSON-RPC error codes) stay
 * numbers.
 */
export function keepingFractions(text: string): unknown {
  const raw = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && raw !== undefined && context?.source !== undefined && /[.eE]/.test(context.source)
      ? raw(context.source)
      : value,
  );
}
