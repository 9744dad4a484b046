/**
 * The mempool suites' oracle: what each of the node's mempool transactions pays to and spends from every
 * script it touches, from the node's own JSON only (`getrawmempool`, `getrawtransaction`, and for a
 * confirmed prevout `gettxout … false`: the UTXO set without the mempool's spends). Like history-walk.ts
 * it imports nothing from src/ or indexer/.
 */
import { expect } from 'vitest';
import { satsOf, type Rpc } from './history-walk.js';

export interface MempoolEffect {
  txid: string;
  /** scriptPubKey hex → what the transaction paid to it and spent of it; a script is here when an output pays it or an input spends it. */
  scripts: Map<string, { received: bigint; sent: bigint }>;
}

type Out = { value: string; scriptPubKey: { hex: string } };
type Tx = { txid: string; vin: { txid?: string; vout?: number }[]; vout: Out[] };

/** The effects of `txids` (each must be in the node's mempool), in the order given. */
export async function mempoolEffects(rpc: Rpc, txids: readonly string[]): Promise<MempoolEffect[]> {
  const pool = new Set(Object.keys(await rpc<Record<string, unknown>>('getrawmempool', true)));
  const raw = new Map<string, Tx>();
  const tx = async (txid: string): Promise<Tx> => {
    if (!raw.has(txid)) raw.set(txid, await rpc<Tx>('getrawtransaction', txid, true));
    return raw.get(txid)!;
  };
  const effects: MempoolEffect[] = [];
  for (const txid of txids) {
    expect(pool.has(txid), `${txid} in the node's mempool`).toBe(true);
    const t = await tx(txid);
    const scripts = new Map<string, { received: bigint; sent: bigint }>();
    const at = (script: string) => {
      if (!scripts.has(script)) scripts.set(script, { received: 0n, sent: 0n });
      return scripts.get(script)!;
    };
    for (const o of t.vout) at(o.scriptPubKey.hex).received += satsOf(o.value);
    for (const i of t.vin) {
      if (i.txid === undefined || i.vout === undefined) continue;
      const prev = pool.has(i.txid) ? (await tx(i.txid)).vout[i.vout]! : await rpc<Out | null>('gettxout', i.txid, i.vout, false);
      if (prev === null) throw new Error(`no prevout ${i.txid}:${i.vout}`);
      at(prev.scriptPubKey.hex).sent += satsOf(prev.value);
    }
    effects.push({ txid, scripts });
  }
  return effects;
}

/**
 * What the node says of a mempool transaction (`getmempoolentry`, over an `rpc` that keeps decimals as
 * text): its fee in exact satoshis, and whether it spends an output of another mempool transaction.
 */
export async function mempoolEntry(rpc: Rpc, txid: string): Promise<{ fee: bigint; spendsUnconfirmed: boolean }> {
  const entry = await rpc<{ fees: { base: unknown }; depends: string[] }>('getmempoolentry', txid);
  if (typeof entry.fees.base !== 'string') throw new TypeError(`getmempoolentry ${txid}: fees.base not as decimal text`);
  return { fee: satsOf(entry.fees.base), spendsUnconfirmed: entry.depends.length > 0 };
}
