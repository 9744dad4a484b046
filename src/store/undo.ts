/**
 * Per-block undo record: what DisconnectBlock needs, as Bitcoin Core's CBlockUndo holds the coins a block
 * spent. Ours also lists the outpoints the block created, because the rollback has no block to re-read.
 *
 * - spent: coins that existed before the block and are gone after it (spent by an input, or overwritten by
 *   a duplicate coinbase — BIP30), with everything needed to put the row back.
 * - created: outpoints that exist after the block and were added by it. An output created and spent in
 *   the same block is in neither list. An overwritten outpoint is in both (delete, then restore).
 * Rollback = delete every created outpoint, then re-insert every spent coin.
 *
 * Binary format v1 (LEB128 varints, written by no other component):
 *   u8 1 | varint nSpent | nSpent × (txid[32] varint vout, scriptKey[16], varint value, varint height)
 *        | varint nTxids | nTxids × (txid[32] varint nOut, nOut × varint vout)
 */
import { SCRIPT_KEY_BYTES } from './script-key.js';
import { TXID_BYTES, decodeOutpoint, outpointKey } from './outpoint.js';

export interface UndoCoin {
  outpoint: Buffer;
  scriptKey: Buffer;
  value: bigint;
  height: number;
}

export interface BlockUndo {
  spent: UndoCoin[];
  created: Buffer[];
}

const FORMAT_V1 = 1;

class Writer {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  bytes(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  /** LEB128 for 0 ≤ n < 2^53 (satoshi amounts included); arithmetic, since bit operators stop at 32 bits. */
  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }
}

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  bytes(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new RangeError('undo record truncated');
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }
  varint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      if (this.pos >= this.buf.length) throw new RangeError('undo record truncated');
      const b = this.buf[this.pos++]!;
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
      if (mul > 2 ** 56) throw new RangeError('undo varint too long');
    }
  }
}

export function encodeUndo(undo: BlockUndo): Buffer {
  const groups = new Map<string, { txid: Buffer; vouts: number[] }>();
  for (const key of undo.created) {
    const { txid, vout } = decodeOutpoint(key);
    const id = txid.toString('latin1');
    const group = groups.get(id);
    if (group) group.vouts.push(vout);
    else groups.set(id, { txid, vouts: [vout] });
  }
  // Upper bound: varints of ≤ 8 bytes.
  const size =
    1 + 9 + undo.spent.length * (TXID_BYTES + 5 + SCRIPT_KEY_BYTES + 8 + 5) + 9 + groups.size * (TXID_BYTES + 5) + undo.created.length * 5;
  const w = new Writer(size);
  w.buf[w.pos++] = FORMAT_V1;
  w.varint(undo.spent.length);
  for (const coin of undo.spent) {
    const { txid, vout } = decodeOutpoint(coin.outpoint);
    w.bytes(txid);
    w.varint(vout);
    w.bytes(coin.scriptKey);
    // A coin is at most MAX_MONEY (< 2^53): the number varint carries it exactly, in the same bytes as before.
    w.varint(Number(coin.value));
    w.varint(coin.height);
  }
  w.varint(groups.size);
  for (const { txid, vouts } of groups.values()) {
    w.bytes(txid);
    w.varint(vouts.length);
    for (const vout of vouts) w.varint(vout);
  }
  return Buffer.from(w.buf.subarray(0, w.pos));
}

export function decodeUndo(data: Buffer): BlockUndo {
  const r = new Reader(data);
  const version = r.bytes(1)[0];
  if (version !== FORMAT_V1) throw new RangeError(`unknown undo format ${String(version)}`);
  const spent: UndoCoin[] = [];
  for (let i = r.varint(); i > 0; i--) {
    const txid = r.bytes(TXID_BYTES);
    const outpoint = outpointKey(txid, r.varint());
    const scriptKey = r.bytes(SCRIPT_KEY_BYTES);
    spent.push({ outpoint, scriptKey, value: BigInt(r.varint()), height: r.varint() });
  }
  const created: Buffer[] = [];
  for (let g = r.varint(); g > 0; g--) {
    const txid = r.bytes(TXID_BYTES);
    for (let i = r.varint(); i > 0; i--) created.push(outpointKey(txid, r.varint()));
  }
  if (r.pos !== data.length) throw new RangeError(`${data.length - r.pos} trailing bytes in undo record`);
  return { spent, created };
}
