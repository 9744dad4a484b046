/**
 * A transaction as GET /api/v1/{chain}/tx/{txid} answers it (docs/api.md "Transactions and blocks"):
 * decoderawtransaction's fields in this API's names, each output with its address (null where a script
 * has none: P2PK, multisig, OP_RETURN, Litecoin's MWEB programs), Electrum scripthash and Core's script
 * type, each input with the output it spends, and the fee the inputs leave. Amounts through the
 * summaries' serializer (exactly 8 decimals). Pure.
 */
import { Coins, Sats } from '../chain/amount.js';
import { scriptToAddress } from '../chain/address.js';
import { toDisplayHex } from '../chain/hash.js';
import type { ChainParams } from '../chain/params.js';
import { scriptType } from '../chain/script-type.js';
import type { DecodedOutput, DecodedTx } from '../chain/tx-decode.js';
import type { Outspend } from '../serving/tx-source.js';
import { scripthashOf } from '../serving/scripthash-param.js';

/** Where a confirmed transaction is, as the index knows it. */
export interface TxStatus {
  readonly height: number;
  /** Display hex. */
  readonly blockHash: string;
  readonly blockTime: number | null;
  readonly position: number;
  readonly tipHeight: number;
}

/** An output's script as every view shows it. */
function scriptFacts(params: ChainParams, script: Buffer): Record<string, unknown> {
  return {
    scriptPubKey: script.toString('hex'),
    type: scriptType(script, params.mwebHrp !== null),
    address: scriptToAddress(params, script),
    scripthash: scripthashOf(script),
  };
}

function outputView(params: ChainParams, o: DecodedOutput): Record<string, unknown> {
  return { valueSatoshi: new Sats(o.value), value: new Coins(o.value), ...scriptFacts(params, o.script) };
}

/** Transparent inputs minus outputs; null for a coinbase or while a prevout is unknown. */
export function feeOf(tx: DecodedTx, prevouts: readonly (DecodedOutput | null)[]): bigint | null {
  if (tx.coinbase || prevouts.some((p) => p === null)) return null;
  const spent = prevouts.reduce((sum, p) => sum + p!.value, 0n);
  return spent - tx.outputs.reduce((sum, o) => sum + o.value, 0n);
}

/** Bitcoin Core's CFeeRate(fee, vsize).GetFeePerK(): satoshis per 1,000 virtual bytes, rounded down. */
export const feePerKvb = (fee: bigint, vsize: number): bigint => (vsize === 0 ? 0n : (fee * 1000n) / BigInt(vsize));

/** What spent an output, as `spent` and the outspends route write it. */
export function outspendView(o: Outspend | null): Record<string, unknown> | null {
  return o && { txid: o.txid && toDisplayHex(o.txid), vin: o.vin, height: o.height };
}

export function txView(
  params: ChainParams,
  tx: DecodedTx,
  prevouts: readonly (DecodedOutput | null)[],
  outspends: readonly (Outspend | null)[],
  status: TxStatus | null,
): Record<string, unknown> {
  const fee = feeOf(tx, prevouts);
  const rate = fee === null ? null : feePerKvb(fee, tx.vsize);
  return {
    txid: toDisplayHex(tx.txid),
    wtxid: toDisplayHex(tx.wtxid),
    version: tx.version,
    locktime: tx.locktime,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    coinbase: tx.coinbase,
    ...(params.mwebHrp !== null && { mweb: { hogEx: tx.hogEx, body: tx.mweb } }),
    feeSatoshi: fee === null ? null : new Sats(fee),
    fee: fee === null ? null : new Coins(fee),
    feePerKvbSatoshi: rate === null ? null : new Sats(rate),
    feePerKvb: rate === null ? null : new Coins(rate),
    inputs: tx.inputs.map((input, i) => {
      const prevout = prevouts[i] ?? null;
      return {
        txid: input.prevTxid === null ? null : toDisplayHex(input.prevTxid),
        vout: input.prevTxid === null ? null : input.vout,
        scriptSig: input.scriptSig.toString('hex'),
        sequence: input.sequence,
        witness: input.witness.map((w) => w.toString('hex')),
        prevout: prevout === null ? null : outputView(params, prevout),
      };
    }),
    outputs: tx.outputs.map((o, n) => ({ n, ...outputView(params, o), spent: outspendView(outspends[n] ?? null) })),
    status:
      status === null
        ? { confirmed: false }
        : {
            confirmed: true,
            height: status.height,
            blockHash: status.blockHash,
            blockTime: status.blockTime,
            position: status.position,
            confirmations: Math.max(0, status.tipHeight - status.height + 1),
          },
  };
}
