/**
 * One item of a UTXO listing page, as the …/utxos routes answer it: the outpoint in Core's spelling
 * (display txid, vout), the amount in satoshis and in coins through the summaries' serializer (Coins:
 * exactly 8 decimals), the height and whether it is a coinbase output (null: unknown, src/store/sqlite/utxo-page.ts).
 * With `?mempool=true` each item also says whether it is unconfirmed and whether the mempool spends it.
 */
import { Coins, Sats } from '../chain/amount.js';
import { toDisplayHex } from '../chain/hash.js';
import { decodeOutpoint } from '../store/outpoint.js';
import type { UtxoRow } from '../store/index-model.js';

export function utxoItem(row: UtxoRow, mempool: boolean): Record<string, unknown> {
  const { txid, vout } = decodeOutpoint(row.outpoint);
  const item: Record<string, unknown> = {
    txid: toDisplayHex(txid),
    vout,
    valueSatoshi: new Sats(row.valueSats),
    value: new Coins(row.valueSats),
    height: row.height,
    coinbase: row.coinbase,
  };
  if (mempool) {
    item.unconfirmed = row.height === null;
    item.spentInMempool = row.spentInMempool === true;
  }
  return item;
}
