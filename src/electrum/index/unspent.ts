/**
 * blockchain.scripthash.listunspent from the opt-in UTXO listing, in one snapshot: the confirmed outputs
 * and the mempool's outputs to the script (height 0), less those a mempool transaction spends, as the
 * protocol says. Without the listing there is no answer: an error naming the variable that turns it on.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode } from '../../chain/params.js';
import { decodeOutpoint } from '../../store/outpoint.js';
import type { UtxoRow } from '../../store/index-model.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';

export interface Unspent {
  readonly tx_hash: string;
  readonly tx_pos: number;
  readonly height: number;
  readonly value: number;
}

/** The protocol's entries from the listing's rows: spent-in-mempool ones left out, unconfirmed at height 0. */
export function unspentOf(rows: readonly UtxoRow[]): Unspent[] {
  const out: Unspent[] = [];
  for (const row of rows) {
    if (row.spentInMempool === true) continue;
    const { txid, vout } = decodeOutpoint(row.outpoint);
    out.push({ tx_hash: toDisplayHex(txid), tx_pos: vout, height: row.height ?? 0, value: Number(row.valueSats) });
  }
  return out;
}

export async function readUnspent(index: ElectrumIndex, chain: ChainCode, key: Buffer, max: number): Promise<Unspent[]> {
  const read = await index.utxoPage({ keys: [key], after: null, limit: max, mempool: true, check: () => undefined });
  if (read === null) throw notIndexed();
  const { listing } = read;
  if (listing.kind === 'empty') return [];
  if (listing.kind === 'off') {
    throw new RpcError(
      'BAD_REQUEST',
      `listunspent needs the UTXO listing, which this server's ${chain} index does not keep (ADDRSUM_UTXO_LIST or ADDRSUM_${chain}_UTXO_LIST)`,
    );
  }
  if (listing.next !== null) throw new RpcError('HISTORY_TOO_LARGE', `too many unspent outputs: this server lists at most ${max}`);
  return unspentOf(listing.rows);
}
