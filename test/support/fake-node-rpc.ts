/**
 * The RPC methods of the fake bitcoind, answered from a live BtcChain. Shapes, error codes and messages
 * follow Bitcoin Core (rpc/blockchain.cpp, rpc/protocol.h) for the subset an indexer uses.
 */
import type { BtcBlock, BtcChain } from './btc-chain.js';

/** Bitcoin Core's RPCErrorCode values used here (rpc/protocol.h). */
export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_IN_WARMUP = -28;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_PARSE_ERROR = -32700;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Named-parameter order per method, so `{"params": {"height": 3}}` works as with Core. */
const PARAM_NAMES: Record<string, readonly string[]> = {
  getblockhash: ['height'],
  getblockheader: ['blockhash', 'verbose'],
  getblock: ['blockhash', 'verbosity'],
  getchaintxstats: ['nblocks', 'blockhash'],
  getrawmempool: ['verbose'],
  getrawtransaction: ['txid', 'verbose'],
};

/** Regtest difficulty as Core prints it for nBits 0x207fffff (GetDifficulty). */
const REGTEST_DIFFICULTY = 4.656542373906925e-10;

function positional(method: string, params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  if (typeof params === 'object') {
    return (PARAM_NAMES[method] ?? []).map((name) => (params as Record<string, unknown>)[name]);
  }
  throw new RpcError(RPC_INVALID_REQUEST, 'Params must be an array or object');
}

/** Core's ParseHashV: a 64-character hex string, else RPC_INVALID_PARAMETER. */
function parseHash(value: unknown, name: string): string {
  if (typeof value !== 'string') {
    throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonType(value)} is not of expected type string`);
  }
  if (value.length !== 64) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${value.length}, for '${value}')`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${value}')`);
  }
  return value.toLowerCase();
}

function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Chain work of a regtest chain: each 0x207fffff block is worth exactly 2 (Core's GetBlockProof). */
function chainwork(height: number): string {
  return (BigInt(height + 1) * 2n).toString(16).padStart(64, '0');
}

function findBlock(chain: BtcChain, hash: string): { block: BtcBlock; active: boolean } {
  const found = chain.lookup(hash);
  if (!found) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return found;
}

/** Median of the last 11 block times ending at `block`, on the block's own branch (GetMedianTimePast). */
function medianTime(chain: BtcChain, block: BtcBlock): number {
  const times: number[] = [];
  let cur: BtcBlock | undefined = block;
  while (cur && times.length < 11) {
    times.push(cur.time);
    cur = cur.height === 0 ? undefined : chain.lookup(cur.prevHash)?.block;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** Core's blockheaderToJSON. */
function headerJson(chain: BtcChain, block: BtcBlock, active: boolean): Record<string, unknown> {
  const raw = block.raw;
  const version = raw.readInt32LE(0);
  const bits = raw.readUInt32LE(72);
  const next = active ? chain.blocks[block.height + 1] : undefined;
  return {
    hash: block.hash,
    // A block off the active chain has -1 confirmations, as Core reports for stale blocks.
    confirmations: active ? chain.tipHeight - block.height + 1 : -1,
    height: block.height,
    version,
    versionHex: (version >>> 0).toString(16).padStart(8, '0'),
    merkleroot: Buffer.from(raw.subarray(36, 68)).reverse().toString('hex'),
    time: block.time,
    mediantime: medianTime(chain, block),
    nonce: raw.readUInt32LE(76),
    bits: bits.toString(16).padStart(8, '0'),
    difficulty: REGTEST_DIFFICULTY,
    chainwork: chainwork(block.height),
    nTx: block.txids.length,
    ...(block.height > 0 ? { previousblockhash: block.prevHash } : {}),
    ...(next ? { nextblockhash: next.hash } : {}),
  };
}

/** Dispatches one call. Throws RpcError for anything Core would answer with an error object. */
export function callRpc(chain: BtcChain, method: string, rawParams: unknown, mempool: ReadonlyMap<string, Buffer> = new Map()): unknown {
  const params = positional(method, rawParams);
  switch (method) {
    case 'getblockchaininfo': {
      const tip = chain.tip;
      return {
        chain: 'regtest',
        blocks: chain.tipHeight,
        headers: chain.tipHeight,
        bestblockhash: tip.hash,
        difficulty: REGTEST_DIFFICULTY,
        time: tip.time,
        mediantime: medianTime(chain, tip),
        verificationprogress: 1,
        initialblockdownload: false,
        chainwork: chainwork(chain.tipHeight),
        size_on_disk: chain.blocks.reduce((s, b) => s + b.raw.length, 0),
        pruned: false,
        warnings: '',
      };
    }
    case 'getnetworkinfo':
      return { version: 270000, subversion: '/Satoshi:27.0.0/', protocolversion: 70016, connections: 0, networkactive: true, warnings: '' };
    case 'getblockcount':
      return chain.tipHeight;
    case 'getbestblockhash':
      return chain.tip.hash;
    case 'getblockhash': {
      const height = params[0];
      if (typeof height !== 'number' || !Number.isInteger(height)) {
        throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonType(height)} is not of expected type number`);
      }
      if (height < 0 || height > chain.tipHeight) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
      return (chain.blocks[height] as BtcBlock).hash;
    }
    case 'getblockheader': {
      const { block, active } = findBlock(chain, parseHash(params[0], 'hash'));
      const verbose = params[1] ?? true;
      if (typeof verbose !== 'boolean') {
        throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonType(verbose)} is not of expected type bool`);
      }
      return verbose ? headerJson(chain, block, active) : block.raw.subarray(0, 80).toString('hex');
    }
    case 'getblock': {
      const { block, active } = findBlock(chain, parseHash(params[0], 'blockhash'));
      // Core accepts a bool here for backwards compatibility (false = 0, true = 1).
      const v = params[1] ?? 1;
      const verbosity = v === true ? 1 : v === false ? 0 : v;
      if (verbosity === 0) return block.raw.toString('hex');
      if (verbosity === 1) return { ...headerJson(chain, block, active), size: block.raw.length, tx: [...block.txids] };
      if (typeof verbosity !== 'number') {
        throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonType(v)} is not of expected type number`);
      }
      throw new RpcError(RPC_MISC_ERROR, `fake node: getblock verbosity ${verbosity} is not implemented`);
    }
    case 'getchaintxstats': {
      // Only the window-less form the indexer uses (nblocks 0): the chain's transaction count at a block.
      const { block, active } =
        params[1] === undefined ? { block: chain.tip, active: true } : findBlock(chain, parseHash(params[1], 'blockhash'));
      if (!active) throw new RpcError(RPC_INVALID_PARAMETER, 'Block is not in main chain');
      if (params[0] !== 0) throw new RpcError(RPC_MISC_ERROR, 'fake node: getchaintxstats supports nblocks 0 only');
      const txcount = chain.blocks.slice(0, block.height + 1).reduce((n, b) => n + b.txids.length, 0);
      return {
        time: block.time,
        txcount,
        window_final_block_hash: block.hash,
        window_final_block_height: block.height,
        window_block_count: 0,
      };
    }
    case 'getrawmempool':
      if ((params[0] ?? false) !== false) throw new RpcError(RPC_MISC_ERROR, 'fake node: verbose getrawmempool is not implemented');
      return [...mempool.keys()];
    case 'getrawtransaction': {
      // Without -txindex Core finds only mempool transactions (and those of a block named by hash).
      const raw = mempool.get(parseHash(params[0], 'parameter 1'));
      if (!raw) {
        throw new RpcError(
          RPC_INVALID_ADDRESS_OR_KEY,
          'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.',
        );
      }
      if ((params[1] ?? false) !== false && params[1] !== 0)
        throw new RpcError(RPC_MISC_ERROR, 'fake node: verbose getrawtransaction is not implemented');
      return raw.toString('hex');
    }
    default:
      throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
  }
}
