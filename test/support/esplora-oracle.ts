/**
 * What Esplora must answer, computed from the node's walk of its chain alone (chain-walk.ts): each
 * transaction as /tx/:txid shows it, and each address's stats, transactions (oldest first) and unspent
 * outputs. It imports nothing from src/, so a bug in the dialect cannot hide in the expectations.
 */
import type { NodeBlock, NodeVout, Walk, Walked } from './chain-walk.js';
import { satsOf } from './history-walk.js';

/** Core's script type names as Esplora's (there is no multisig type; witness v2+ and MWEB are unknown). */
const ESPLORA_TYPE: Record<string, string> = {
  pubkeyhash: 'p2pkh',
  scripthash: 'p2sh',
  witness_v0_keyhash: 'v0_p2wpkh',
  witness_v0_scripthash: 'v0_p2wsh',
  witness_v1_taproot: 'v1_p2tr',
  nulldata: 'op_return',
  pubkey: 'p2pk',
};

export function expectedOutput(v: NodeVout) {
  const address =
    v.scriptPubKey.type === 'pubkey' || v.scriptPubKey.type === 'multisig'
      ? undefined
      : (v.scriptPubKey.address ?? v.scriptPubKey.addresses?.[0]);
  const mweb = v.scriptPubKey.type.startsWith('witness_mweb');
  return {
    scriptpubkey: v.scriptPubKey.hex,
    scriptpubkey_type: ESPLORA_TYPE[v.scriptPubKey.type] ?? 'unknown',
    ...(address !== undefined && !mweb && { scriptpubkey_address: address }),
    value: Number(satsOf(v.value)),
  };
}

/** What Esplora must say of `w`, from the node's walk alone (the assembly text is the unit suite's). */
export function expectedTx(w: Walked, { txs }: Walk) {
  const { tx, block } = w;
  const prevouts = tx.vin.map((i) => (i.coinbase !== undefined ? null : txs.get(i.txid!)!.tx.vout[i.vout!]!));
  const coinbase = tx.vin[0]?.coinbase !== undefined;
  const fee = coinbase ? 0n : prevouts.reduce((s, p) => s + satsOf(p!.value), 0n) - tx.vout.reduce((s, o) => s + satsOf(o.value), 0n);
  return {
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.vin.map((i, n) => ({
      txid: i.txid ?? '0'.repeat(64),
      vout: i.vout ?? 0xffffffff,
      prevout: prevouts[n] === null ? null : expectedOutput(prevouts[n]!),
      scriptsig: i.coinbase ?? i.scriptSig?.hex ?? '',
      ...(i.txinwitness !== undefined && i.txinwitness.length > 0 && { witness: i.txinwitness }),
      is_coinbase: i.coinbase !== undefined,
      sequence: i.sequence,
    })),
    vout: tx.vout.map(expectedOutput),
    size: tx.size,
    weight: tx.weight,
    fee: Number(fee),
    status: blockStatus(block),
  };
}

export type Json = Record<string, unknown>;
/** The fields of an answer the walk checks: the assembly text left out. */
export function comparable(t: Json) {
  const out = (o: Json) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'scriptpubkey_asm'));
  return {
    ...t,
    vin: (t.vin as Json[]).map((i) => {
      const { scriptsig_asm: _a, inner_redeemscript_asm: _r, inner_witnessscript_asm: _w, ...rest } = i;
      return { ...rest, prevout: i.prevout === null ? null : out(i.prevout as Json) };
    }),
    vout: (t.vout as Json[]).map(out),
  };
}

/** The address an Esplora output names: none for MWEB, P2PK and bare multisig outputs. */
export const addressOf = (v: NodeVout): string | undefined =>
  v.scriptPubKey.type.startsWith('witness_mweb') || v.scriptPubKey.type === 'pubkey' || v.scriptPubKey.type === 'multisig'
    ? undefined
    : (v.scriptPubKey.address ?? v.scriptPubKey.addresses?.[0]);

export interface AddressExpected {
  /** Oldest first. */
  txs: Walked[];
  funded: number;
  fundedSum: bigint;
  spent: number;
  spentSum: bigint;
  /** `txid:vout` → value. */
  utxos: Map<string, number>;
}

/** Every address the walk's confirmed transactions touch, with what Esplora must say of it. */
export function scriptsOf(walk: Walk): Map<string, AddressExpected> {
  const per = new Map<string, AddressExpected>();
  const of = (a: string): AddressExpected => {
    let e = per.get(a);
    if (!e) per.set(a, (e = { txs: [], funded: 0, fundedSum: 0n, spent: 0, spentSum: 0n, utxos: new Map() }));
    return e;
  };
  const ordered = [...walk.txs.values()]
    .filter((w) => w.block.height > 0)
    .sort((a, b) => a.block.height - b.block.height || a.position - b.position);
  for (const w of ordered) {
    const touched = new Set<string>();
    for (const i of w.tx.vin) {
      if (i.coinbase !== undefined) continue;
      const prev = walk.txs.get(i.txid!)!.tx.vout[i.vout!]!;
      const a = addressOf(prev);
      if (a === undefined) continue;
      const e = of(a);
      e.spent++;
      e.spentSum += satsOf(prev.value);
      e.utxos.delete(`${i.txid}:${i.vout}`);
      touched.add(a);
    }
    for (const v of w.tx.vout) {
      const a = addressOf(v);
      if (a === undefined || v.scriptPubKey.type === 'nulldata') continue;
      const e = of(a);
      e.funded++;
      e.fundedSum += satsOf(v.value);
      e.utxos.set(`${w.tx.txid}:${v.n}`, Number(satsOf(v.value)));
      touched.add(a);
    }
    for (const a of touched) of(a).txs.push(w);
  }
  return per;
}

/** A transaction's status in `block`, or unconfirmed (null). */
export function blockStatus(block: NodeBlock | null): Json {
  return block === null
    ? { confirmed: false }
    : { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time };
}

/** What /tx/:txid/outspend/:vout must answer for `txid:vout`, from the walk's spends (the mempool's included). */
export function expectedOutspend(walk: Walk, outpoint: string): Json {
  const by = walk.spentBy.get(outpoint);
  if (by === undefined) return { spent: false };
  return { spent: true, txid: by.txid, vin: by.vin, status: blockStatus(by.height === null ? null : walk.blocks[by.height]!) };
}

/** What /address/:a must answer for an address with no mempool activity. */
export function expectedAddress(address: string, e: AddressExpected): Json {
  return {
    address,
    chain_stats: {
      funded_txo_count: e.funded,
      funded_txo_sum: Number(e.fundedSum),
      spent_txo_count: e.spent,
      spent_txo_sum: Number(e.spentSum),
      tx_count: e.txs.length,
    },
    mempool_stats: { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 },
  };
}
