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
import { txHashParam } from '../index/params.js';
import { MAX_PACKAGE_TXS, RPC_METHOD_NOT_FOUND, RPC_NOT_FOUND } from '../../serving/node-answers.js';
import type { BlockTxids } from '../node/block-txids.js';
import { nodeRpcCode, type NodeLink } from '../node/node-link.js';
import { speaksAtLeast } from '../version.js';
import { RpcError } from '../wire.js';
import type { MethodSpec } from './registry.js';

/** Node-backed: each costs the node a lookup, so ten times a server.* call (one keyless HTTP request). */
const NODE_LOOKUP = 1;
/** A relayed transaction costs the node its validation. */
const NODE_RELAY = 5;

export interface TransactionDeps {
  readonly index: IndexAccess;
  readonly node: NodeLink;
  readonly blockTxids: (height: number) => Promise<BlockTxids>;
  /** electrum.broadcast: relay wallets' transactions. */
  readonly broadcast: boolean;
  /** Litecoin: serve MWEB-form transactions without their MWEB part. */
  readonly stripMweb: boolean;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

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
      const h = txHashParam(hash);
      if (flag(verbose, 'verbose')) throw new RpcError('BAD_REQUEST', 'verbose transactions are not served');
      return served(await rawHex(h));
    }),
    'blockchain.transaction.get_merkle': method(NODE_LOOKUP, ['tx_hash', 'height'], async ([hash, heightParam], session) => {
      const h = txHashParam(hash);
      const leaf = fromDisplayHex(h);
      // From 1.6 the height may be left out: the index knows the block of every transaction it numbers.
      const v16 = speaksAtLeast(session.protocol, '1.6');
      let height: number;
      if (v16 && (heightParam === undefined || heightParam === null)) {
        const at = await deps.index().txBlock(leaf);
        if (at === null) throw new RpcError('BAD_REQUEST', `tx ${h} is not in a block of the index`);
        height = at.height;
      } else height = nonNegative(heightParam, 'height');
      const block = await deps.blockTxids(height);
      const pos = block.txids.findIndex((t) => t.equals(leaf));
      if (pos < 0) throw new RpcError('BAD_REQUEST', `tx ${h} is not in the block at height ${height}`);
      const answer = { block_height: height, merkle: merkleBranch(block.txids, pos).map(toDisplayHex), pos };
      return v16 ? { ...answer, block_hash: block.hash } : answer;
    }),
    'blockchain.transaction.id_from_pos': method(NODE_LOOKUP, ['height', 'tx_pos', 'merkle'], async ([height, txPos, merkle]) => {
      const withMerkle = flag(merkle, 'merkle');
      const { pos, txids } = await inBlock(height, txPos);
      const txHashHex = toDisplayHex(txids[pos]!);
      return withMerkle ? { tx_hash: txHashHex, merkle: merkleBranch(txids, pos).map(toDisplayHex) } : txHashHex;
    }),
    'blockchain.transaction.broadcast': method(NODE_RELAY, ['raw_tx'], async ([rawTx]) => {
      mustRelay(deps);
      if (typeof rawTx !== 'string' || !HEX.test(rawTx)) throw new RpcError('INVALID_PARAMS', 'raw_tx must be a transaction in hex');
      return relayed(deps, 'sendrawtransaction', [rawTx], 'the transaction', "this server's node cannot relay transactions");
    }),
    'blockchain.transaction.broadcast_package': {
      ...method(NODE_RELAY, ['raw_txs', 'verbose'], async ([rawTxs, verbose], session) => {
        mustRelay(deps);
        const txs = packageParam(rawTxs);
        const verbatim = flag(verbose, 'verbose');
        await session.charge((txs.length - 1) * NODE_RELAY);
        const result = await relayed(
          deps,
          'submitpackage',
          [txs],
          'the tx package',
          "this server's node cannot relay packages (submitpackage needs Bitcoin Core 28 or later): broadcast the transactions one by one",
        );
        return verbatim ? result : packageOutcome(result);
      }),
      since: '1.6',
    },
  };
}

function mustRelay(deps: TransactionDeps): void {
  if (!deps.broadcast)
    throw new RpcError(
      'BAD_REQUEST',
      `this server does not relay transactions: its operator turns it on with ${settingWithVariables('electrum.broadcast')}`,
    );
}

/**
 * The node's answer to a relaying call; what the node judged (RPC_VERIFY_*, RPC_DESERIALIZATION_ERROR) in
 * its words, and `unsupported` for a node without the call.
 */
async function relayed(
  deps: TransactionDeps,
  call: string,
  params: readonly unknown[],
  what: string,
  unsupported: string,
): Promise<unknown> {
  try {
    return await deps.node.call<unknown>(call, params);
  } catch (err) {
    const code = nodeRpcCode(err);
    if (code === RPC_METHOD_NOT_FOUND) throw new RpcError('BAD_REQUEST', unsupported);
    if (code !== undefined && err instanceof RpcError)
      throw new RpcError('BAD_REQUEST', `${what} was rejected by network rules: ${err.message.replace(`daemon error: ${call}: `, '')}`);
    throw err;
  }
}

function packageParam(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_PACKAGE_TXS)
    throw new RpcError('INVALID_PARAMS', `raw_txs must be a list of 1 to ${MAX_PACKAGE_TXS} transactions in hex`);
  v.forEach((tx, i) => {
    if (typeof tx !== 'string' || !HEX.test(tx)) throw new RpcError('INVALID_PARAMS', `raw_txs[${i}] must be a transaction in hex`);
  });
  return v as string[];
}

/** submitpackage's answer as 1.6's non-verbose result: success, and each refused transaction's txid and error. */
export function packageOutcome(result: unknown): { success: boolean; errors?: { txid: string; error: string }[] } {
  const r = (typeof result === 'object' && result !== null ? result : {}) as { package_msg?: unknown; 'tx-results'?: unknown };
  const txResults = typeof r['tx-results'] === 'object' && r['tx-results'] !== null ? Object.values(r['tx-results']) : [];
  const errors = (txResults as { txid?: unknown; error?: unknown }[])
    .filter((t) => typeof t?.txid === 'string' && typeof t.error === 'string')
    .map((t) => ({ txid: t.txid as string, error: t.error as string }));
  if (r.package_msg === 'success' && errors.length === 0) return { success: true };
  return { success: false, errors };
}
