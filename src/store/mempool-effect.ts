/**
 * What one mempool transaction does to the transparent UTXO set, stored with it (mempool_txs.effect) so
 * that removing it subtracts exactly what adding it added, whatever happened to its parents since.
 *
 * Per script it keeps what the transaction paid to it and what it spent of it, not only their difference,
 * so that an index keeping history answers both (received − sent = Δ balance, as for confirmed history).
 *
 * Format (since migration 0007): u32 input count, then per input u8 length ‖ outpoint key; u32 script
 * count, then per script 16-byte script key ‖ u64 LE received ‖ u64 LE sent ‖ i32 LE UTXO-count delta.
 * One transaction's amounts on one script are bounded by the supply, far inside the u64.
 */
import type { ParsedTx } from '../chain/block-parser.js';
import { SCRIPT_KEY_BYTES } from './script-key.js';

/** One script's change by one transaction. */
export interface ScriptEffect {
  readonly key: Buffer;
  /** What the transaction's spendable outputs pay to the script. */
  readonly received: bigint;
  /** The value of the script's coins (confirmed or unconfirmed) the transaction's inputs spend. */
  readonly sent: bigint;
  /** Outputs paid to the script minus its coins spent. */
  readonly count: number;
}

export interface TxEffect {
  /** Outpoint keys this transaction spends (utxos format). */
  readonly inputs: Buffer[];
  /** One entry per script touched (spent from or paid to), in the order first touched. */
  readonly scripts: ScriptEffect[];
}

/** A coin a transaction spends, or an output it pays: its script key and value. */
export interface Flow {
  readonly key: Buffer;
  readonly value: bigint;
}

/** Δ balance of a script effect: what it received minus what it sent. */
export const netOf = (s: { readonly received: bigint; readonly sent: bigint }): bigint => s.received - s.sent;

/**
 * The effect of a transaction spending `spent` (its inputs' coins, with their outpoint keys) and paying
 * `paid` (its spendable outputs only). A script paid and spent by the same transaction is one entry with
 * both amounts: change back to an address is received and sent alike.
 */
export function txEffect(spent: readonly (Flow & { readonly outpoint: Buffer })[], paid: readonly Flow[]): TxEffect {
  const byScript = new Map<string, { key: Buffer; received: bigint; sent: bigint; count: number }>();
  const at = (key: Buffer) => {
    const id = key.toString('latin1');
    let e = byScript.get(id);
    if (!e) byScript.set(id, (e = { key, received: 0n, sent: 0n, count: 0 }));
    return e;
  };
  for (const c of spent) {
    const e = at(c.key);
    e.sent += c.value;
    e.count -= 1;
  }
  for (const o of paid) {
    const e = at(o.key);
    e.received += o.value;
    e.count += 1;
  }
  return { inputs: spent.map((c) => c.outpoint), scripts: [...byScript.values()] };
}

/**
 * The fee of a transaction whose inputs spend `spent` coins: their values minus every output's value,
 * unspendable ones (OP_RETURN) included. Null when its transparent side is not all it moves (an MWEB
 * body: a peg-in's or a peg-out's fee is in its kernels), or when that difference is negative, which no
 * transaction the node accepts has: a fee the index cannot vouch for is not given.
 */
export function txFee(spent: readonly { readonly value: bigint }[], tx: Pick<ParsedTx, 'outputs' | 'mweb'>): bigint | null {
  if (tx.mweb) return null;
  let fee = 0n;
  for (const c of spent) fee += c.value;
  for (const o of tx.outputs) fee -= o.value;
  return fee >= 0n ? fee : null;
}

const ENTRY = SCRIPT_KEY_BYTES + 8 + 8 + 4;

export function encodeEffect(effect: TxEffect): Buffer {
  let size = 8 + effect.scripts.length * ENTRY;
  for (const op of effect.inputs) size += 1 + op.length;
  const buf = Buffer.allocUnsafe(size);
  let p = buf.writeUInt32LE(effect.inputs.length, 0);
  for (const op of effect.inputs) {
    p = buf.writeUInt8(op.length, p);
    p += op.copy(buf, p);
  }
  p = buf.writeUInt32LE(effect.scripts.length, p);
  for (const s of effect.scripts) {
    p += s.key.copy(buf, p, 0, SCRIPT_KEY_BYTES);
    p = buf.writeBigUInt64LE(s.received, p);
    p = buf.writeBigUInt64LE(s.sent, p);
    p = buf.writeInt32LE(s.count, p);
  }
  return buf;
}

export function decodeEffect(buf: Buffer): TxEffect {
  let p = 0;
  const nIn = buf.readUInt32LE(p);
  p += 4;
  const inputs: Buffer[] = [];
  for (let i = 0; i < nIn; i++) {
    const len = buf.readUInt8(p);
    inputs.push(Buffer.from(buf.subarray(p + 1, p + 1 + len)));
    p += 1 + len;
  }
  const nScripts = buf.readUInt32LE(p);
  p += 4;
  const scripts: ScriptEffect[] = [];
  for (let i = 0; i < nScripts; i++) {
    const key = Buffer.from(buf.subarray(p, p + SCRIPT_KEY_BYTES));
    const received = buf.readBigUInt64LE(p + SCRIPT_KEY_BYTES);
    const sent = buf.readBigUInt64LE(p + SCRIPT_KEY_BYTES + 8);
    const count = buf.readInt32LE(p + SCRIPT_KEY_BYTES + 16);
    scripts.push({ key, received, sent, count });
    p += ENTRY;
  }
  if (p !== buf.length) throw new RangeError(`mempool effect of ${buf.length} bytes has ${buf.length - p} trailing bytes`);
  return { inputs, scripts };
}
