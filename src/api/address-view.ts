/**
 * What the single address route and the batch route share: the `?mempool=` flag and the JSend body of
 * one address (the per-address check is src/serving/address-param.ts).
 * A batch entry is byte for byte the body the single route answers for that address at the same tip.
 */
import { hash } from 'node:crypto';
import type { Request } from 'express';
import { CoinDelta, Coins, Sats } from '../chain/amount.js';
import { scriptToAddress } from '../chain/address.js';
import type { ChainCode } from '../chain/params.js';
import type { ChainHandle } from '../serving/chain-handle.js';
import type { ScriptView } from './deps.js';
import { ServingError } from '../serving/errors.js';
import { jsendBody } from './errors.js';

/** `?mempool=true|1` asks for the unconfirmed side; `false|0` or absent is the confirmed-only answer. */
export function mempoolRequested(req: Request): boolean {
  const at = req.originalUrl.indexOf('?');
  if (at < 0) return false;
  const values = new URLSearchParams(req.originalUrl.slice(at + 1)).getAll('mempool');
  // Said twice, the caller's intent is unknown (and a proxy may read the other one): refuse rather than pick.
  if (values.length > 1) throw new ServingError('BAD_REQUEST', 'the mempool parameter is given more than once');
  const value = values[0] ?? null;
  if (value === null || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ServingError('BAD_REQUEST', 'the mempool parameter must be true or false');
}

/** The success body of one address; `unconfirmed` only when the view carries mempool deltas. */
export function summaryBody(
  chain: ChainCode,
  handle: ChainHandle,
  address: string,
  script: Uint8Array,
  view: ScriptView,
  tipHeight: number,
  tipHash: string,
): object {
  // The canonical spelling: Litecoin `3…` aliases answer as `M…`, upper-case bech32 as lower case,
  // so every spelling of one script gets the identical body and ETag.
  const named = { address: scriptToAddress(handle.params, script) ?? address };
  return { status: 'success', data: { chain, ...named, ...amounts(view), blockHeight: tipHeight, blockHash: tipHash } };
}

/** The same body for a script named by its Electrum scripthash (routes/scripthash.ts). */
export function scripthashBody(chain: ChainCode, scripthash: string, view: ScriptView, tipHeight: number, tipHash: string): object {
  return { status: 'success', data: { chain, scripthash, ...amounts(view), blockHeight: tipHeight, blockHash: tipHash } };
}

/**
 * balanceSatoshi, balance, utxoCount, (while the index keeps history) txCount, received and sent, and
 * (when asked for) unconfirmed: what every summary says of its scripts. Satoshis go out through Sats
 * (every digit of the bigint), coins through Coins/CoinDelta.
 */
export function amounts(view: ScriptView): Record<string, unknown> {
  const data: Record<string, unknown> = {
    balanceSatoshi: new Sats(view.balanceSats),
    balance: new Coins(view.balanceSats),
    utxoCount: view.utxoCount,
  };
  const h = view.history;
  if (h) {
    data.txCount = h.txCount;
    data.receivedSatoshi = new Sats(h.received);
    data.received = new Coins(h.received);
    data.sentSatoshi = new Sats(h.sent);
    data.sent = new Coins(h.sent);
  }
  const u = view.unconfirmed;
  if (u) data.unconfirmed = { ...unconfirmedAmounts(u), txCount: u.txCount, ...grossAmounts(u) };
  return data;
}

/** The unconfirmed side's Δ balance and Δ UTXO count: every `unconfirmed` object starts with them. */
export function unconfirmedAmounts(u: { readonly balanceSats: bigint; readonly utxoCount: number }): Record<string, unknown> {
  return { balanceSatoshi: new Sats(u.balanceSats), balance: new CoinDelta(u.balanceSats), utxoCount: u.utxoCount };
}

/**
 * While the index keeps history, what mempool transactions pay to the script(s) and spend of them
 * (received − sent = the Δ balance); nothing otherwise, so `unconfirmed` keeps its shape without history.
 */
export function grossAmounts(u: { readonly received?: bigint; readonly sent?: bigint }): Record<string, unknown> {
  if (u.received === undefined || u.sent === undefined) return {};
  return { receivedSatoshi: new Sats(u.received), received: new Coins(u.received), sentSatoshi: new Sats(u.sent), sent: new Coins(u.sent) };
}

export function failBody(error: ServingError): object {
  return jsendBody(error);
}

/**
 * ETag of an address answer: a digest of chain, network, script and the tip (and, for a mempool answer,
 * the script's deltas), so it changes exactly when the body may. A scripthash answer passes its script
 * key as `script`: ETags are compared per URL, so the two kinds never meet.
 */
export function etagOf(handle: ChainHandle, script: Uint8Array, view: ScriptView, tipHeight: number, tipHash: string): string {
  const { chain, network } = handle.params;
  const u = view.unconfirmed;
  const gross = u?.received === undefined ? '' : `|${u.received}|${u.sent}`;
  const mempool = u ? `|m|${u.balanceSats}|${u.utxoCount}|${u.txCount}${gross}` : '';
  const text = `v1|${chain}|${network}|${Buffer.from(script).toString('hex')}|${tipHeight}|${tipHash}${mempool}`;
  return `"${hash('sha256', text, 'base64url').slice(0, 27)}"`;
}
