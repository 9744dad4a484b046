/**
 * What one mempool transaction does to the transparent UTXO set, stored with it (mempool_txs.effect) so
 * that removing it subtracts exactly what adding it added, whatever happened to its parents since.
 *
 * Format: u32 input count, then per input u8 length ‖ outpoint key; u32 script count, then per script
 * 16-byte script key ‖ i64 LE balance delta ‖ i32 LE UTXO-count delta. Deltas are exact integers: every
 * amount is below 2^53 (see change-set.ts), the i64 is only for the sign and width.
 */
import { SCRIPT_KEY_BYTES } from './script-key.js';

export interface ScriptEffect {
  key: Buffer;
  balance: number;
  count: number;
}

export interface TxEffect {
  /** Outpoint keys this transaction spends (utxos format). */
  inputs: Buffer[];
  /** One entry per script touched (spent from or paid to), net of this transaction. */
  scripts: ScriptEffect[];
}

/** Accumulates per-script deltas of one transaction, in first-touched order. */
export class EffectBuilder {
  private readonly byScript = new Map<string, ScriptEffect>();

  add(key: Buffer, balance: number, count: number): void {
    const id = key.toString('latin1');
    const e = this.byScript.get(id);
    if (e) {
      e.balance += balance;
      e.count += count;
    } else {
      this.byScript.set(id, { key, balance, count });
    }
  }

  scripts(): ScriptEffect[] {
    return [...this.byScript.values()];
  }
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
    p = buf.writeBigInt64LE(BigInt(s.balance), p);
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
    const balance = Number(buf.readBigInt64LE(p + SCRIPT_KEY_BYTES));
    const count = buf.readInt32LE(p + SCRIPT_KEY_BYTES + 8);
    scripts.push({ key, balance, count });
    p += ENTRY;
  }
  if (p !== buf.length) throw new RangeError(`mempool effect of ${buf.length} bytes has ${buf.length - p} trailing bytes`);
  return { inputs, scripts };
}
