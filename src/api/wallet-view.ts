/**
 * The JSend body of a wallet (xpub) answer: the sums over its derived scripts, read in one snapshot,
 * and with `?details=funded` one entry per script that holds coins. Every amount is written by the
 * address route's own amounts() (address-view.ts), so a wallet entry reads exactly like an address
 * summary. With history, the wallet's own txCount (distinct transactions, read with the views), and
 * received and sent summed over its scripts.
 */
import { Coins, Sats } from '../chain/amount.js';
import { scriptToAddress } from '../chain/address.js';
import { scripthashOf } from '../serving/scripthash-param.js';
import type { ChainCode } from '../chain/params.js';
import type { DerivedScript } from '../wallet/derive.js';
import { amounts, grossAmounts, unconfirmedAmounts } from './address-view.js';
import type { ChainHandle } from '../serving/chain-handle.js';
import type { ScriptView, ScriptViews } from './deps.js';

export interface WalletAnswer {
  readonly range: number;
  readonly descriptors: readonly string[];
  /** `?details=funded`: list the scripts holding coins. */
  readonly funded: boolean;
}

/**
 * A script is listed when it holds confirmed coins or, with `?mempool=true`, when the mempool touches
 * it; `fundedAddresses` counts the first kind only, as `scantxoutset` would.
 */
function listed(view: ScriptView): boolean {
  return view.utxoCount > 0 || (view.unconfirmed !== undefined && view.unconfirmed.txCount > 0);
}

export function walletBody(
  chain: ChainCode,
  handle: ChainHandle,
  answer: WalletAnswer,
  scripts: readonly DerivedScript[],
  views: ScriptViews,
): object {
  if (views.items.length !== scripts.length) throw new Error('the index answered another number of scripts than asked');
  // Sums over scripts are bigints: many balances together (and lifetime sums) can pass 2^53.
  let balance = 0n;
  let utxoCount = 0;
  let fundedAddresses = 0;
  const pending: { balanceSats: bigint; utxoCount: number; received?: bigint; sent?: bigint } = { balanceSats: 0n, utxoCount: 0 };
  const history = { received: 0n, sent: 0n };
  const addresses: object[] = [];
  views.items.forEach((view, i) => {
    balance += view.balanceSats;
    utxoCount += view.utxoCount;
    if (view.utxoCount > 0) fundedAddresses += 1;
    if (view.history) {
      history.received += view.history.received;
      history.sent += view.history.sent;
    }
    const u = view.unconfirmed;
    if (u) {
      pending.balanceSats += u.balanceSats;
      pending.utxoCount += u.utxoCount;
      if (u.received !== undefined && u.sent !== undefined) {
        pending.received = (pending.received ?? 0n) + u.received;
        pending.sent = (pending.sent ?? 0n) + u.sent;
      }
    }
    if (answer.funded && listed(view)) {
      const { path, script } = scripts[i]!;
      // Bare multisig and P2PK have no address form: null, and the scripthash names them instead.
      addresses.push({ path, address: scriptToAddress(handle.params, script), scripthash: scripthashOf(script), ...amounts(view) });
    }
  });
  const mempool = views.items[0]?.unconfirmed !== undefined;
  const data: Record<string, unknown> = {
    chain,
    balanceSatoshi: new Sats(balance),
    balance: new Coins(balance),
    utxoCount,
    // Only with the distinct count: per-script txCounts cannot be added (a transaction may touch several scripts).
    ...(views.distinctTxCount !== undefined && {
      txCount: views.distinctTxCount,
      receivedSatoshi: new Sats(history.received),
      received: new Coins(history.received),
      sentSatoshi: new Sats(history.sent),
      sent: new Coins(history.sent),
    }),
    fundedAddresses,
    ...(mempool && {
      // No txCount: one transaction may touch several scripts of the wallet, and the per-script counts cannot
      // say. Received and sent are sums over the scripts: a payment from one of them to another counts in both.
      unconfirmed: { ...unconfirmedAmounts(pending), ...grossAmounts(pending) },
    }),
    range: answer.range,
    descriptors: answer.descriptors,
    ...(answer.funded && { addresses }),
    blockHeight: views.tipHeight,
    blockHash: views.tipHash,
  };
  return { status: 'success', data };
}
