/**
 * Wallet-side building blocks for regtest chains: new addresses of each kind, exact-amount UTXO lists,
 * raw spends that empty chosen addresses, and MWEB moves. All amounts are integer satoshis; the node
 * gets them as 8-decimal strings (AmountFromValue accepts strings) and returns them as text (cliExact).
 */
import { parseCoins, formatCoins } from '../src/chain/amount.js';
import type { Litecoind } from './litecoind.js';
import type { AddressKind, ManifestAddress } from './regtest-manifest.js';
export { mapLimit } from './map-limit.js';

/** The part of a Litecoind these helpers use. */
export type RegtestNode = Pick<Litecoind, 'cli' | 'cliExact'>;

export interface Outpoint {
  txid: string;
  vout: number;
  sats: number;
}

export interface Utxo {
  txid: string;
  vout: number;
  sats: number;
  script: string;
  address: string | null;
  confirmations: number;
}

export function coins(sats: number): string {
  return formatCoins(BigInt(sats));
}

export async function scriptOf(node: RegtestNode, address: string): Promise<string> {
  const r = await node.cli<{ isvalid: boolean; scriptPubKey?: string }>('validateaddress', address);
  if (!r.isvalid || r.scriptPubKey === undefined) throw new Error(`node says ${address} is not a valid address`);
  return r.scriptPubKey;
}

/**
 * A fresh wallet address of a wallet-supported kind. Multisig kinds use `multisigKeys` (wallet
 * addresses whose keys go into the script, in that order: P2WSH takes the first 2 as 1-of-2, P2SH the
 * first 3 as 2-of-3) or fresh keys. Reusing keys in different orders still gives distinct scripts.
 */
export async function newWalletAddress(node: RegtestNode, kind: AddressKind, multisigKeys?: readonly string[]): Promise<ManifestAddress> {
  const keys = async (n: number): Promise<string[]> =>
    multisigKeys?.slice(0, n) ?? Promise.all(Array.from({ length: n }, () => node.cli<string>('getnewaddress', '', 'legacy')));
  let address: string;
  switch (kind) {
    case 'p2pkh':
      address = await node.cli<string>('getnewaddress', '', 'legacy');
      break;
    case 'p2sh-p2wpkh':
      address = await node.cli<string>('getnewaddress', '', 'p2sh-segwit');
      break;
    case 'p2wpkh':
      address = await node.cli<string>('getnewaddress', '', 'bech32');
      break;
    case 'p2wsh':
      address = (await node.cli<{ address: string }>('addmultisigaddress', 1, await keys(2), '', 'bech32')).address;
      break;
    case 'p2sh-multisig':
      address = (await node.cli<{ address: string }>('addmultisigaddress', 2, await keys(3), '', 'legacy')).address;
      break;
    default:
      throw new RangeError(`the wallet cannot make ${kind} addresses`);
  }
  return { address, kind, script: await scriptOf(node, address), owner: 'wallet' };
}

interface ListUnspentEntry {
  txid: string;
  vout?: number;
  amount: string;
  scriptPubKey?: string;
  address?: string;
  confirmations: number;
}

/**
 * The wallet's transparent UTXOs (MWEB coins, which listunspent shows without vout/scriptPubKey, are
 * left out), optionally only those of `addresses`.
 */
export async function walletUtxos(node: RegtestNode, opts: { addresses?: string[]; minconf?: number } = {}): Promise<Utxo[]> {
  const params: unknown[] = [opts.minconf ?? 1, 9_999_999];
  if (opts.addresses !== undefined) params.push(opts.addresses);
  const list = await node.cliExact<ListUnspentEntry[]>('listunspent', ...params);
  const out: Utxo[] = [];
  for (const u of list) {
    if (u.vout === undefined || u.scriptPubKey === undefined) continue;
    out.push({
      txid: u.txid,
      vout: u.vout,
      sats: Number(parseCoins(u.amount)),
      script: u.scriptPubKey,
      address: u.address ?? null,
      confirmations: u.confirmations,
    });
  }
  return out;
}

/** A generous flat fee: far above Litecoin's 10 sat/vB relay floor for any tx built here. */
export function feeFor(inputs: number, outputs: number): number {
  return 20_000 + 30_000 * inputs + 5_000 * outputs;
}

/** Spends exactly these wallet UTXOs to `to` (all of it minus the fee); returns the txid. */
export async function spendWalletUtxos(node: RegtestNode, utxos: readonly Outpoint[], to: string): Promise<string> {
  if (utxos.length === 0) throw new RangeError('nothing to spend');
  const total = utxos.reduce((s, u) => s + u.sats, 0);
  const value = total - feeFor(utxos.length, 1);
  if (value < 10_000) throw new RangeError(`inputs worth ${total} sat do not cover the fee`);
  const inputs = utxos.map((u) => ({ txid: u.txid, vout: u.vout }));
  const unsigned = await node.cli<string>('createrawtransaction', inputs, [{ [to]: coins(value) }]);
  return signAndSend(node, unsigned);
}

/** signrawtransactionwithwallet + sendrawtransaction (no fee-rate cap); returns the txid. */
export async function signAndSend(node: RegtestNode, unsignedHex: string): Promise<string> {
  const signed = await node.cli<{ hex: string; complete: boolean; errors?: unknown[] }>('signrawtransactionwithwallet', unsignedHex);
  if (!signed.complete) throw new Error(`wallet could not sign: ${JSON.stringify(signed.errors)}`);
  return node.cli<string>('sendrawtransaction', signed.hex, 0);
}

/** Keeps the wallet's coin selection away from these outputs (until unlocked or the node restarts). */
export async function lockOutpoints(node: RegtestNode, outpoints: readonly { txid: string; vout: number }[]): Promise<void> {
  if (outpoints.length === 0) return;
  await node.cli(
    'lockunspent',
    false,
    outpoints.map((o) => ({ txid: o.txid, vout: o.vout })),
  );
}

/**
 * Runs fn with every transparent wallet coin locked, so the wallet can only pay from MWEB coins
 * (how a peg-out or an MWEB-to-MWEB send is made on regtest); then unlocks exactly the coins it
 * locked, leaving earlier locks alone.
 */
export async function withTransparentLocked<T>(node: RegtestNode, fn: () => Promise<T>): Promise<T> {
  // listunspent shows only unlocked coins: precisely the ones to lock now and unlock afterwards.
  const unlocked = (await walletUtxos(node, { minconf: 0 })).map((u) => ({ txid: u.txid, vout: u.vout }));
  await lockOutpoints(node, unlocked);
  try {
    return await fn();
  } finally {
    if (unlocked.length > 0) await node.cli('lockunspent', true, unlocked);
  }
}

/** MWEB funds the wallet can spend (total balance minus transparent coins), in satoshis. */
export async function mwebBalance(node: RegtestNode): Promise<number> {
  const list = await node.cliExact<ListUnspentEntry[]>('listunspent', 0, 9_999_999);
  return list.filter((u) => u.vout === undefined).reduce((s, u) => s + Number(parseCoins(u.amount)), 0);
}

/**
 * Sends MWEB coins to a fresh MWEB address and returns the txid, leaving the transaction in the
 * mempool: transparently it has no inputs and no outputs, its MWEB body is all there is.
 */
export async function sendMwebToMweb(node: RegtestNode, sats = 10_000_000): Promise<{ txid: string; to: string }> {
  const to = await node.cli<string>('getnewaddress', '', 'mweb');
  const txid = await withTransparentLocked(node, () => node.cli<string>('sendtoaddress', to, coins(sats)));
  return { txid, to };
}

/**
 * Peg-outs: MWEB coins to transparent addresses, one sendtoaddress per destination (the wallet pays a
 * peg-out to one address per call); all land in the next block's HogEx. Returns the txids.
 */
export async function pegOut(node: RegtestNode, destinations: readonly { address: string; sats: number }[]): Promise<string[]> {
  return withTransparentLocked(node, async () => {
    const txids: string[] = [];
    for (const d of destinations) txids.push(await node.cli<string>('sendtoaddress', d.address, coins(d.sats)));
    return txids;
  });
}
