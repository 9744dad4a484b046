/**
 * The `blockchain.transaction.*` methods, served from the node with the index's help (docs/electrum.md):
 * the node keeps no -txindex, so a confirmed transaction is asked for with its block, which the index
 * knows (IndexReader.txBlock); merkle branches come from the block's txids (block-txids.ts). Litecoin
 * transactions in MWEB form are served without their MWEB part, with the same txid
 * (src/chain/ltc/mweb-strip.ts), since Electrum cannot parse that form.
 */
import { ParseError } from '../../chain/byte-reader.js';
import { fromDisplayHex, toDisplayHex } from '../../chain/hash.js';
import { withoutMweb } from '../../chain/ltc/mweb-strip.js';
import { merkleBranch } from '../../chain/merkle.js';
import { settingWithVariables } from '../../setting-variables.js';
import type { IndexAccess } from '../index/access.js';
import type { BlockTxids } from '../node/block-txids.js';
import { nodeRpcCode, type NodeLink } from '../node/node-link.js';
import { RpcError } from '../wire.js';
import type { MethodSpec } from './registry.js';

/** Node-backed: each costs the node a lookup, so ten times a server.* call (one keyless HTTP request). */
const NODE_LOOKUP = 1;
/** A relayed transaction costs the node its validation. */
const NODE_RELAY = 5;

/** Bitcoin Core's RPC_INVALID_ADDRESS_OR_KEY: "No such mempool or blockchain transaction". */
const RPC_NOT_FOUND = -5;

export interface TransactionDeps {
  readonly index: IndexAccess;
  readonly node: NodeLink;
  readonly blockTxids: (height: number) => Promise<BlockTxids>;
  /** electrum.broadcast: relay wallets' transactions. */
  readonly broadcast: boolean;
  /** Litecoin: serve MWEB-form transactions without their MWEB part. */
  readonly stripMweb: boolean;
}

const HASH = /^[0-9a-fA-F]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function txHash(v: unknown): string {
  if (typeof v !== 'string' || !HASH.test(v)) throw new RpcError('INVALID_PARAMS', 'tx_hash must be 64 hex digits');
  return v.toLowerCase();
}

function nonNegative(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new RpcError('INVALID_PARAMS', `${name} must be a non-negative integer`);
  return v;
}

function flag(v: unknown, name: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new RpcError('INVALID_PARAMS', `${name} must be a boolean`);
  return v;
}

export function transactionMethods(deps: TransactionDeps): Record<string, MethodSpec> {
  const method = (cost: number, params: readonly string[], handler: MethodSpec['handler']): MethodSpec => ({ cost, params, handler });

  /** The node's hex of a confirmed (block from the index) or mempool transaction. */
  const rawHex = async (hash: string): Promise<string> => {
    const confirmed = async (): Promise<string | null> => {
      const at = await deps.index().txBlock(fromDisplayHex(hash));
      return at ? deps.node.call<string>('getrawtransaction', [hash, false, toDisplayHex(at.hash)]) : null;
    };
    const fromBlock = await confirmed();
    if (fromBlock !== null) return fromBlock;
    try {
      return await deps.node.call<string>('getrawtransaction', [hash, false]);
    } catch (err) {
      if (nodeRpcCode(err) !== RPC_NOT_FOUND) throw err;
      // Mined (and indexed) between the two asks: the index knows it now.
      const late = await confirmed();
      if (late !== null) return late;
      throw new RpcError('DAEMON_ERROR', `daemon error: no transaction ${hash} in the indexed blocks or the node's mempool`);
    }
  };

  const served = (hex: string): string => {
    if (typeof hex !== 'string' || !HEX.test(hex))
      throw new RpcError('DAEMON_ERROR', 'daemon error: getrawtransaction gave no transaction');
    if (!deps.stripMweb) return hex;
    try {
      const raw = Buffer.from(hex, 'hex');
      const out = withoutMweb(raw);
      return out === raw ? hex : out.toString('hex');
    } catch (err) {
      if (err instanceof ParseError)
        throw new RpcError('BAD_REQUEST', `this transaction cannot be served in a form Electrum reads: ${err.message}`);
      throw err;
    }
  };

  const inBlock = async (heightParam: unknown, posParam: unknown): Promise<{ pos: number; txids: readonly Buffer[] }> => {
    const height = nonNegative(heightParam, 'height');
    const pos = nonNegative(posParam, 'tx_pos');
    const { txids } = await deps.blockTxids(height);
    if (pos >= txids.length) throw new RpcError('BAD_REQUEST', `no tx at position ${pos} of the block at height ${height}`);
    return { pos, txids };
  };

  return {
    'blockchain.transaction.get': method(NODE_LOOKUP, ['tx_hash', 'verbose'], async ([hash, verbose]) => {
      const h = txHash(hash);
      if (flag(verbose, 'verbose')) throw new RpcError('BAD_REQUEST', 'verbose transactions are not served');
      return served(await rawHex(h));
    }),
    'blockchain.transaction.get_merkle': method(NODE_LOOKUP, ['tx_hash', 'height'], async ([hash, heightParam]) => {
      const h = txHash(hash);
      const height = nonNegative(heightParam, 'height');
      const { txids } = await deps.blockTxids(height);
      const leaf = fromDisplayHex(h);
      const pos = txids.findIndex((t) => t.equals(leaf));
      if (pos < 0) throw new RpcError('BAD_REQUEST', `tx ${h} is not in the block at height ${height}`);
      return { block_height: height, merkle: merkleBranch(txids, pos).map(toDisplayHex), pos };
    }),
    'blockchain.transaction.id_from_pos': method(NODE_LOOKUP, ['height', 'tx_pos', 'merkle'], async ([height, txPos, merkle]) => {
      const withMerkle = flag(merkle, 'merkle');
      const { pos, txids } = await inBlock(height, txPos);
      const txHashHex = toDisplayHex(txids[pos]!);
      return withMerkle ? { tx_hash: txHashHex, merkle: merkleBranch(txids, pos).map(toDisplayHex) } : txHashHex;
    }),
    'blockchain.transaction.broadcast': method(NODE_RELAY, ['raw_tx'], async ([rawTx]) => {
      if (!deps.broadcast)
        throw new RpcError(
          'BAD_REQUEST',
          `this server does not relay transactions: its operator turns it on with ${settingWithVariables('electrum.broadcast')}`,
        );
      if (typeof rawTx !== 'string' || !HEX.test(rawTx)) throw new RpcError('INVALID_PARAMS', 'raw_tx must be a transaction in hex');
      try {
        return await deps.node.call<string>('sendrawtransaction', [rawTx]);
      } catch (err) {
        const code = nodeRpcCode(err);
        // The node judged the transaction (RPC_VERIFY_* -25/-26/-27, RPC_DESERIALIZATION_ERROR -22): its words.
        if (code !== undefined && err instanceof RpcError)
          throw new RpcError(
            'BAD_REQUEST',
            `the transaction was rejected by network rules: ${err.message.replace(/^daemon error: sendrawtransaction: /, '')}`,
          );
        throw err;
      }
    }),
  };
}
