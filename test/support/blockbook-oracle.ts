/**
 * What the Blockbook dialect must answer, computed from the node's walk of its chain alone
 * (chain-walk.ts): each transaction as Blockbook's Tx (full, or its txslight form) and each address's
 * figures and txids. It imports nothing from src/, so a bug in the dialect cannot hide in the
 * expectations. Scripts without an address (P2PK, multisig, OP_RETURN, MWEB) are compared by
 * `isAddress` alone, their `addresses` text being the unit suite's: see `comparable`.
 */
import type { NodeVout, Walk, Walked } from './chain-walk.js';
import { addressOf, type AddressExpected } from './esplora-oracle.js';
import { satsOf } from './history-walk.js';

export type Json = Record<string, unknown>;

/** The address Blockbook's parser gives a script: none for OP_RETURN, nor for witness v2 and up. */
function blockbookAddress(v: NodeVout): string | undefined {
  return v.scriptPubKey.type === 'nulldata' || v.scriptPubKey.type === 'witness_unknown' ? undefined : addressOf(v);
}

function outputOf(walk: Walk, w: Walked, v: NodeVout): Json {
  const address = blockbookAddress(v);
  const spender = walk.spentBy.get(`${w.tx.txid}:${v.n}`);
  return {
    value: String(satsOf(v.value)),
    n: v.n,
    ...(spender !== undefined && { spent: true, spentTxId: spender.txid }),
    ...(spender !== undefined && spender.vin !== 0 && { spentIndex: spender.vin }),
    ...(spender?.height != null && spender.height !== 0 && { spentHeight: spender.height }),
    hex: v.scriptPubKey.hex,
    ...(address !== undefined && { addresses: [address] }),
    isAddress: address !== undefined,
  };
}

/** `w` as /tx/:txid must show it at tip `tipHeight` (`light`: as address and block pages list it). */
export function expectedTx(walk: Walk, w: Walked, tipHeight: number, light = false): Json {
  const { tx, block } = w;
  const prevouts = tx.vin.map((i) => (i.coinbase !== undefined ? null : walk.txs.get(i.txid!)!.tx.vout[i.vout!]!));
  const value = tx.vout.reduce((s, o) => s + satsOf(o.value), 0n);
  const valueIn = prevouts.reduce((s, p) => s + (p === null ? 0n : satsOf(p.value)), 0n);
  return {
    txid: tx.txid,
    ...(!light && tx.version !== 0 && { version: tx.version }),
    ...(!light && tx.locktime !== 0 && { lockTime: tx.locktime }),
    vin: tx.vin.map((i, n) => {
      const prevout = prevouts[n] ?? null;
      const address = prevout === null ? undefined : blockbookAddress(prevout);
      const owned = address !== undefined;
      return {
        ...(i.txid !== undefined && { txid: i.txid }),
        ...(i.txid !== undefined && i.vout !== 0 && { vout: i.vout }),
        ...(!light && i.sequence !== 0 && { sequence: i.sequence }),
        n,
        ...(owned && { addresses: [address] }),
        isAddress: owned,
        ...(prevout !== null && { value: String(satsOf(prevout.value)) }),
        ...(!light && i.scriptSig !== undefined && i.scriptSig.hex !== '' && { hex: i.scriptSig.hex }),
        ...(i.coinbase !== undefined && { coinbase: i.coinbase }),
      };
    }),
    vout: tx.vout.map((v) => outputOf(walk, w, v)),
    blockHash: block.hash,
    blockHeight: block.height,
    confirmations: tipHeight - block.height + 1,
    blockTime: block.time,
    ...(!light && { size: tx.size }),
    vsize: tx.vsize,
    value: String(value),
    valueIn: String(valueIn),
    fees: String(valueIn > value ? valueIn - value : 0n),
    ...(!light && { hex: tx.hex }),
  };
}

/** A Tx with the inputs and outputs of scripts that have no address reduced to `isAddress` (and the rest). */
export function comparable(tx: Json): Json {
  const reduced = (o: Json): Json => {
    if (o.isAddress === true) return o;
    const { addresses: _, ...rest } = o;
    return rest;
  };
  return { ...tx, vin: (tx.vin as Json[]).map(reduced), vout: (tx.vout as Json[]).map(reduced) };
}

/** /address/:a?details=basic for an address with no mempool activity. */
export function expectedFigures(address: string, e: AddressExpected): Json {
  return {
    address,
    balance: String(e.fundedSum - e.spentSum),
    totalReceived: String(e.fundedSum),
    totalSent: String(e.spentSum),
    unconfirmedBalance: '0',
    unconfirmedTxs: 0,
    txs: e.txs.length,
  };
}

/** The address's txids as Blockbook lists them: newest block first, later in a block first. */
export const newestFirst = (e: AddressExpected): string[] => [...e.txs].reverse().map((w) => w.tx.txid);
