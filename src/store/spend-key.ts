/**
 * The spend index (history's, issue 45): for every output a numbered transaction spent, which
 * transaction and input spent it. Rows are keyed by the spent output's txid prefix and vout, so that
 * connecting a block writes each input's row without looking anything up (the funding transaction's
 * number would cost a read per input), and a lookup is one key range.
 *
 *   spend key = txid[0 … SPEND_PREFIX_BYTES) ‖ vout as 1–4 big-endian bytes (outpoint.ts's minimal form)
 *
 * Another funding transaction sharing the prefix and the vout gives a second row under the key: at 8
 * bytes that is expected about once in the life of Bitcoin mainnet's 3 × 10^9 spent outputs, and a reader
 * given several candidates checks them against the spending transactions (src/serving/tx-source.ts).
 */
import { TXID_BYTES } from './outpoint.js';

export const SPEND_PREFIX_BYTES = 8;

/** The spend key of an outpoint key (outpoint.ts: txid ‖ minimal big-endian vout). */
export function spendKey(outpoint: Buffer): Buffer {
  return Buffer.concat([outpoint.subarray(0, SPEND_PREFIX_BYTES), outpoint.subarray(TXID_BYTES)]);
}

/** Every spend key of a txid lies in [txid prefix, the bound this gives): the keys of all its outputs. */
export function spendKeysEnd(txid: Buffer): Buffer {
  const end = Buffer.from(txid.subarray(0, SPEND_PREFIX_BYTES));
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  // A prefix of 0xff bytes: nothing sorts above it but longer keys starting with it.
  return Buffer.alloc(SPEND_PREFIX_BYTES + 5, 0xff);
}

/** A confirmed transaction's input that spent an output, as the spend index names it. */
export interface Spender {
  /** Internal byte order. */
  readonly txid: Buffer;
  readonly vin: number;
  readonly height: number;
}

/** What the index knows of one output's spending (IndexReader.outspends). */
export interface OutputSpends {
  /** The output is in the UTXO set. */
  readonly unspent: boolean;
  /** The confirmed inputs under its spend key: one, or several when another txid shares the key. */
  readonly spenders: readonly Spender[];
  /** The mempool transaction spending it, if any (internal byte order). */
  readonly mempool: Buffer | null;
}

/** IndexReader.outspends' answer, in one snapshot with the tip. */
export interface OutspendsRead {
  readonly tipHeight: number;
  /**
   * The spend index holds the inputs of transactions numbered from this on (0: all of history's; more for
   * an index that kept history before the spend index existed); null while history is off.
   */
  readonly spendsFrom: number | null;
  /** Per output, in order; empty while history is off. */
  readonly outputs: readonly OutputSpends[];
}
