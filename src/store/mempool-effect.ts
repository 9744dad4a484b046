/**
 * What one mempool transaction does to the transparent UTXO set, stored with it (mempool_txs.effect) so
 * that removing it subtracts exactly what adding it added, whatever happened to its parents since.
 *
 * Format: u32 input count, then per input u8 length ‖ outpoint key; u32 script count, then per script
 * 16-byte script key ‖ i64 LE balance delta ‖ i32 LE UTXO-count delta. A transaction's delta on one
 * script is bounded by the supply, far inside the i64.
 */
import type { ScriptDelta } from './change-set.js';
import { SCRIPT_KEY_BYTES } from './script-key.js';

/** One script's net change by one transaction (change-set.ts's ScriptDelta: the same shape). */
export type ScriptEffect = ScriptDelta;

export interface TxEffect {
  /** Outpoint keys this transaction spends (utxos format). */
  inputs: Buffer[];
  /** One entry per script touched (spent from or paid to), net of this transaction. */
  scripts: ScriptEffect[];
}

const ENTRY = SCRIPT_KEY_BYTES + 8 + 4;

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
    p = buf.writeBigInt64LE(s.balance, p);
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
    const balance = buf.readBigInt64LE(p + SCRIPT_KEY_BYTES);
    const count = buf.readInt32LE(p + SCRIPT_KEY_BYTES + 8);
    scripts.push({ key, balance, count });
    p += ENTRY;
  }
  if (p !== buf.length) throw new RangeError(`mempool effect of ${buf.length} bytes has ${buf.length - p} trailing bytes`);
  return { inputs, scripts };
}
