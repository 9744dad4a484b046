/**
 * The coinbase txid of each height a snapshot still holds a coinbase coin of (snapshot-worker.ts
 * collects them, the bulk load records them: src/store/sqlite/bulk-load.ts). Every coin carries Core's
 * coinbase flag (code = height·2 + coinbase), and a block has exactly one coinbase transaction, so the
 * txid of any coinbase coin at height h is block h's coinbase txid; only these (height, txid) pairs
 * cross to the loading thread, not a flag per coin.
 *
 * Two different coinbase txids at one height cannot come from a valid chainstate; the decoder does not
 * judge the file for it (synthetic test snapshots have them): that height's txid is unknown, sent with
 * the AMBIGUOUS bit and recorded as NULL, so the listing says `coinbase: null` there.
 *
 * Held as a slot per height (4 bytes each, grown by doubling) pointing into a packed list of txids: an
 * add is O(1), and the pairs come out ascending by height with no sort. Packed pair: u32 height
 * (little-endian, AMBIGUOUS bit set for an unknown txid), 32-byte txid.
 */
import { TXID_BYTES } from '../src/store/outpoint.js';

export const COINBASE_PAIR_BYTES = 4 + TXID_BYTES;
/** Above any height (2^31 blocks is some 40,000 years of Bitcoin). */
const AMBIGUOUS = 0x80000000;
/** A slot whose height saw two different txids. */
const CONFLICT = 0xffffffff;

export class CoinbaseTxids {
  /** slot[height] = 1 + index of its txid in `txids`; 0: none seen. */
  private slot = new Uint32Array(1 << 16);
  private txids = Buffer.alloc(TXID_BYTES << 12);
  private count = 0;

  /** Records a coinbase coin's txid. */
  add(height: number, txid: Buffer): void {
    if (height >= this.slot.length) {
      let n = this.slot.length;
      while (n <= height) n *= 2;
      const bigger = new Uint32Array(n);
      bigger.set(this.slot);
      this.slot = bigger;
    }
    const at = this.slot[height]!;
    if (at !== 0) {
      if (at !== CONFLICT && this.txids.compare(txid, 0, TXID_BYTES, (at - 1) * TXID_BYTES, at * TXID_BYTES) !== 0)
        this.slot[height] = CONFLICT;
      return;
    }
    if ((this.count + 1) * TXID_BYTES > this.txids.length) {
      const bigger = Buffer.alloc(this.txids.length * 2);
      this.txids.copy(bigger);
      this.txids = bigger;
    }
    txid.copy(this.txids, this.count * TXID_BYTES, 0, TXID_BYTES);
    this.slot[height] = ++this.count;
  }

  /** Every pair, ascending by height, packed into an ArrayBuffer of its own (to be transferred). */
  packed(): ArrayBuffer {
    const out = Buffer.from(new ArrayBuffer(this.count * COINBASE_PAIR_BYTES));
    let o = 0;
    for (let h = 0; h < this.slot.length; h++) {
      const at = this.slot[h]!;
      if (at === 0) continue;
      if (at === CONFLICT) out.writeUInt32LE((h | AMBIGUOUS) >>> 0, o);
      else {
        out.writeUInt32LE(h, o);
        this.txids.copy(out, o + 4, (at - 1) * TXID_BYTES, at * TXID_BYTES);
      }
      o += COINBASE_PAIR_BYTES;
    }
    return out.buffer as ArrayBuffer;
  }
}

/** The packed pairs as [height, txid] rows; txid null where the snapshot's coins disagree. */
export function* unpackCoinbases(packed: ArrayBuffer): Generator<[number, Buffer | null]> {
  const buf = Buffer.from(packed);
  for (let at = 0; at < buf.length; at += COINBASE_PAIR_BYTES) {
    const h = buf.readUInt32LE(at);
    yield (h & AMBIGUOUS) === 0 ? [h, buf.subarray(at + 4, at + COINBASE_PAIR_BYTES)] : [(h & ~AMBIGUOUS) >>> 0, null];
  }
}
