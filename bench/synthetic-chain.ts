/**
 * Synthetic blocks for benchmarks that build an index straight through ChainStore (no node): a chain of
 * hash-linked blocks whose hashes and txids derive from a label, so a build is the same every time.
 */
import { createHash } from 'node:crypto';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { syntheticHeader } from '../src/chain/block-header.js';
import type { BlockToApply } from '../src/store/index-model.js';

export const sha = (text: string): Buffer => createHash('sha256').update(text).digest();
export const p2wpkh = (seed: string): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), sha(seed).subarray(0, 20)]);
export const p2pkh = (seed: string): Buffer =>
  Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), sha(seed).subarray(0, 20), Buffer.from([0x88, 0xac])]);

const NULL_INPUT: ParsedTx['inputs'] = [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }];

/** Outputs as the benchmarks write them: small values as numbers (or bigints); the ParsedTx carries bigints. */
export type BenchOutputs = { script: Buffer; value: number | bigint }[];

export class SyntheticChain {
  private prev: Buffer = Buffer.alloc(32);
  private nextHeight = 0;

  constructor(private readonly label: string) {}

  /** The next block, linked to the previous one (height 0 first: like any genesis, its outputs never count). */
  block(txs: ParsedTx[]): BlockToApply {
    const height = this.nextHeight++;
    // The label in the nonce: two chains' blocks of the same transactions differ.
    const { header, hash } = syntheticHeader(
      this.prev,
      txs.map((tx) => tx.txid),
      0,
      sha(`${this.label} block ${height}`).readUInt32LE(0),
    );
    const block = { height, hash, prevHash: this.prev, header, txs };
    this.prev = hash;
    return block;
  }

  /** The txid of the transaction tx() names `name`. */
  txid(name: string): Buffer {
    return sha(`${this.label} ${name}`);
  }

  /**
   * A transaction with txid from `name`: a coinbase, or one with no inputs (pure creation of outputs), or
   * one spending `inputs`.
   */
  tx(name: string, outputs: BenchOutputs, coinbase: boolean, inputs: ParsedTx['inputs'] = []): ParsedTx {
    const parsed = outputs.map((o) => ({ script: o.script, value: BigInt(o.value) }));
    return { txid: this.txid(name), inputs: coinbase ? NULL_INPUT : inputs, outputs: parsed, coinbase, hogEx: false, mweb: false };
  }
}
