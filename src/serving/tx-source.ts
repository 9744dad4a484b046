/**
 * Transactions as the doors show them, read from the node without -txindex: the index knows the block
 * of every transaction history covers (IndexReader.txBlock), and the node answers getrawtransaction for
 * a confirmed transaction when told its block; an unconfirmed one it finds in its mempool. A transaction's
 * prevouts are the outputs of its funding transactions, read the same way, all of them at once through a
 * queue of the node's width, so a transaction with many inputs cannot crowd out the other callers.
 *
 * Confirmed transactions are kept decoded in a cache bounded by bytes (a block hash in the key: after a
 * reorg the same txid in another block is another entry); mempool ones are read each time, since they are
 * replaced and mined.
 */
import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import { ParseError } from '../chain/byte-reader.js';
import type { ChainCode } from '../chain/params.js';
import { toDisplayHex } from '../chain/hash.js';
import { decodeTransaction, type DecodedOutput, type DecodedTx } from '../chain/tx-decode.js';
import { isUnspendable } from '../chain/script.js';
import type { IndexReader } from '../store/ports.js';
import type { OutspendsRead } from '../store/spend-key.js';
import type { TxBlock } from '../store/tx-block.js';
import type { ChainNode } from './chain-node.js';
import { ServingError } from './errors.js';
import { askNode } from './node-answers.js';

/** The index reads a transaction lookup needs. */
export type TxIndex = Pick<IndexReader, 'txBlock' | 'outspends'>;

/**
 * What spent an output: null while unspent (or never spendable), else the input that spent it, with the
 * height of its block (null: in the mempool). `txid` and `vin` null: spent before the index kept spends
 * (an index that kept history before the spend index existed; turning history off and on builds them).
 */
export interface Outspend {
  /** Internal byte order. */
  readonly txid: Buffer | null;
  readonly vin: number | null;
  readonly height: number | null;
}

export interface FoundTx {
  readonly raw: Buffer;
  readonly tx: DecodedTx;
  /** Where the index holds it; null: in the node's mempool. */
  readonly block: TxBlock | null;
}

export interface TxSourceOptions {
  /** Bytes of decoded transactions kept (default 32 MiB). */
  readonly cacheBytes?: number;
  /** Node calls at once (the chain node's sockets). */
  readonly width?: number;
}

/** A decoded transaction holds its raw bytes and about twice as much in views and objects. */
const DECODED_BYTES_PER_RAW_BYTE = 3;

export class TxSource {
  private readonly cache: LRUCache<string, FoundTx>;
  private readonly queue: PQueue;

  constructor(
    readonly chain: ChainCode,
    private readonly node: ChainNode,
    opts: TxSourceOptions = {},
  ) {
    this.cache = new LRUCache({
      maxSize: opts.cacheBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (f) => Math.max(1, f.raw.length * DECODED_BYTES_PER_RAW_BYTE),
    });
    this.queue = new PQueue({ concurrency: opts.width ?? 4 });
  }

  /** The transaction (txid in internal byte order) in the indexed blocks or the node's mempool; null: neither. */
  async find(index: TxIndex, txid: Buffer): Promise<FoundTx | null> {
    const hex = toDisplayHex(txid);
    const confirmed = async (): Promise<FoundTx | null> => {
      const block = await index.txBlock(txid);
      if (block === null) return null;
      const key = `${hex}:${block.hash.toString('hex')}`;
      const kept = this.cache.get(key);
      if (kept !== undefined) return kept;
      const blockHash = toDisplayHex(block.hash);
      const raw = await this.ask(hex, [hex, false, blockHash], { hash: blockHash, height: block.height });
      // The node has left that block (a reorg the index has not followed yet): as not confirmed.
      if (raw === null) return null;
      const found = { raw, tx: this.decode(raw, txid), block };
      this.cache.set(key, found);
      return found;
    };
    const inBlock = await confirmed();
    if (inBlock !== null) return inBlock;
    const raw = await this.ask(hex, [hex, false]);
    if (raw !== null) return { raw, tx: this.decode(raw, txid), block: null };
    // Mined (and indexed) between the two asks: the index knows it now.
    return confirmed();
  }

  /**
   * Each input's prevout: the funding transaction's output, or null for a coinbase's input and for one
   * whose funding transaction the index does not know (below a snapshot's base, where history starts).
   */
  async prevouts(index: TxIndex, tx: DecodedTx): Promise<readonly (DecodedOutput | null)[]> {
    const funding = new Map<string, Promise<FoundTx | null>>();
    for (const input of tx.inputs) {
      if (input.prevTxid === null) continue;
      const key = input.prevTxid.toString('hex');
      if (!funding.has(key))
        funding.set(
          key,
          this.queue.add(() => this.find(index, input.prevTxid!)),
        );
    }
    const found = new Map<string, FoundTx | null>();
    await Promise.all([...funding].map(async ([key, pending]) => found.set(key, await pending)));
    return tx.inputs.map((input) => {
      if (input.prevTxid === null) return null;
      return found.get(input.prevTxid.toString('hex'))?.tx.outputs[input.vout] ?? null;
    });
  }

  /**
   * What spent each output of `found` (one read of the index's spend index), or null while the index
   * keeps no history. Several confirmed candidates under one spend key (another txid sharing its
   * prefix, spend-key.ts) are told apart by the spending transactions themselves, as is the input of a
   * mempool spender.
   */
  async outspends(index: TxIndex, found: FoundTx): Promise<readonly (Outspend | null)[] | null> {
    const read = await index.outspends(found.tx.txid, found.tx.outputs.length);
    if (read === null || read.spendsFrom === null) return null;
    return Promise.all(found.tx.outputs.map((_, vout) => this.spendOf(index, found, read, vout)));
  }

  /**
   * What spent output `vout` of `found` (as outspends, but the spending transactions of its other outputs
   * are not read): `spend` null while unspent; null while the index keeps no history.
   */
  async outspend(index: TxIndex, found: FoundTx, vout: number): Promise<{ readonly spend: Outspend | null } | null> {
    if (vout >= found.tx.outputs.length) throw new RangeError(`transaction has no output ${vout}`);
    const read = await index.outspends(found.tx.txid, vout + 1);
    if (read === null || read.spendsFrom === null) return null;
    return { spend: await this.spendOf(index, found, read, vout) };
  }

  private async spendOf(index: TxIndex, found: FoundTx, read: OutspendsRead, vout: number): Promise<Outspend | null> {
    const { tx } = found;
    /** The input of `spender` that spends output `vout` of this transaction; null when none does. */
    const inputOf = async (spender: Buffer): Promise<number | null> => {
      const got = await this.queue.add(() => this.find(index, spender));
      const vin = got?.tx.inputs.findIndex((i) => i.prevTxid?.equals(tx.txid) === true && i.vout === vout) ?? -1;
      return vin < 0 ? null : vin;
    };
    const o = read.outputs[vout];
    if (o === undefined || isUnspendable(tx.outputs[vout]!.script)) return null;
    const [only, ...more] = o.spenders;
    if (only !== undefined && more.length === 0) return only;
    for (const candidate of o.spenders) if ((await inputOf(candidate.txid)) === candidate.vin) return candidate;
    if (o.mempool !== null) return { txid: o.mempool, vin: await inputOf(o.mempool), height: null };
    // In the UTXO set, or an output of a mempool transaction nothing spends yet.
    if (o.unspent || found.block === null) return null;
    return { txid: null, vin: null, height: null };
  }

  private async ask(hex: string, params: readonly unknown[], block?: { hash: string; height: number }): Promise<Buffer | null> {
    const answer = await askNode<unknown>(this.chain, this.node, 'getrawtransaction', params, block);
    if (answer === null) return null;
    if (typeof answer !== 'string' || !/^(?:[0-9a-f]{2})+$/i.test(answer))
      throw new ServingError('NODE_UNAVAILABLE', `the ${this.chain} node's getrawtransaction ${hex} gave no transaction`);
    return Buffer.from(answer, 'hex');
  }

  private decode(raw: Buffer, txid: Buffer): DecodedTx {
    let tx: DecodedTx;
    try {
      tx = decodeTransaction(raw);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      throw new ServingError(
        'NODE_UNAVAILABLE',
        `the ${this.chain} node's transaction ${toDisplayHex(txid)} cannot be decoded: ${err.message}`,
      );
    }
    if (!tx.txid.equals(txid))
      throw new ServingError('NODE_UNAVAILABLE', `the ${this.chain} node answered another transaction for ${toDisplayHex(txid)}`);
    return tx;
  }
}
