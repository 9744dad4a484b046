/**
 * Builders of synthetic blocks for store tests: ParsedTx-shaped objects (src/chain/block-parser.ts)
 * with random txids and hashes, and a random-chain generator that spends what exists (including outputs
 * created earlier in the same block), with unspendable outputs, a repeated-coinbase (BIP30) case and
 * Litecoin-style MWEB peg-ins / HogEx transactions. Deterministic for a given seed.
 */
import type { ParsedTx } from '../../src/chain/block-parser.js';
import { syntheticHeader } from '../../src/chain/block-header.js';
import type { BlockToApply } from '../../src/store/index-model.js';

/**
 * A block on `prevHash` with its synthetic header (block-header.ts): its hash is that header's, as the
 * store checks. `nonce` tells apart siblings of the same transactions; `time` also goes into BlockToApply.
 */
export function linkedBlock(height: number, prevHash: Buffer, txs: ParsedTx[], opts: { time?: number; nonce?: number } = {}): BlockToApply {
  const { header, hash } = syntheticHeader(
    prevHash,
    txs.map((tx) => tx.txid),
    opts.time ?? 0,
    opts.nonce ?? height,
  );
  return { height, hash, prevHash, header, ...(opts.time !== undefined && { time: opts.time }), txs };
}

/** mulberry32: small, seedable, good enough for picking test shapes. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  u32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Integer in [0, n), n ≤ 2^32. */
  int(n: number): number {
    return this.u32() % n;
  }
  chance(percent: number): boolean {
    return this.int(100) < percent;
  }
  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

const defaultRng = new Rng(Date.now() ^ (process.pid << 8));

export function randomHash(rng: Rng = defaultRng): Buffer {
  return rng.bytes(32);
}

// --- scripts ---------------------------------------------------------------------------------------
export const p2wpkh = (rng: Rng = defaultRng): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), rng.bytes(20)]);
export const p2pkh = (rng: Rng = defaultRng): Buffer =>
  Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), rng.bytes(20), Buffer.from([0x88, 0xac])]);
export const opReturn = (data: Buffer = Buffer.from('hello')): Buffer => Buffer.concat([Buffer.from([0x6a, data.length]), data]);
/** 10,001 bytes: over MAX_SCRIPT_SIZE, unspendable although it does not start with OP_RETURN. */
export const oversized = (): Buffer => Buffer.alloc(10_001, 0x51);
export const emptyScript = (): Buffer => Buffer.alloc(0);
/** Litecoin MWEB peg-in program `OP_9 <32>` and HogAddr `OP_8 <32>`. */
export const mwebPegin = (rng: Rng = defaultRng): Buffer => Buffer.concat([Buffer.from([0x59, 0x20]), rng.bytes(32)]);
export const hogAddr = (rng: Rng = defaultRng): Buffer => Buffer.concat([Buffer.from([0x58, 0x20]), rng.bytes(32)]);

// --- transactions ----------------------------------------------------------------------------------
/** An output as tests write it: a number value (small) or a bigint; the ParsedTx carries a bigint. */
export interface Out {
  script: Buffer;
  value: number | bigint;
}

const parsedOutputs = (outputs: Out[]): ParsedTx['outputs'] => outputs.map((o) => ({ script: o.script, value: BigInt(o.value) }));
export interface OutRef {
  txid: Buffer;
  vout: number;
}

export function coinbaseTx(outputs: Out[], txid: Buffer = randomHash()): ParsedTx {
  return {
    txid,
    inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
    outputs: parsedOutputs(outputs),
    coinbase: true,
    hogEx: false,
    mweb: false,
  };
}

export function spendTx(inputs: OutRef[], outputs: Out[], opts: { txid?: Buffer; hogEx?: boolean; mweb?: boolean } = {}): ParsedTx {
  return {
    txid: opts.txid ?? randomHash(),
    inputs: inputs.map((i) => ({ prevTxid: i.txid, vout: i.vout })),
    outputs: parsedOutputs(outputs),
    coinbase: false,
    hogEx: opts.hogEx ?? false,
    mweb: opts.mweb ?? false,
  };
}

/** Links blocks: each call makes the next height on top of the previous one. */
export class ChainBuilder {
  readonly blocks: BlockToApply[] = [];
  constructor(private readonly rng: Rng = defaultRng) {}

  get height(): number {
    return this.blocks.length - 1;
  }

  block(txs: ParsedTx[]): BlockToApply {
    const prev = this.blocks[this.blocks.length - 1];
    // The nonce takes the 32 random bytes the block hash once took, so every seed's chain stays the one
    // tests were written against (the same draws follow).
    const b = linkedBlock(this.blocks.length, prev ? prev.hash : Buffer.alloc(32), txs, { nonce: randomHash(this.rng).readUInt32LE(0) });
    this.blocks.push(b);
    return b;
  }

  /** A block whose first tx is a coinbase paying `value` to `script`. */
  blockPaying(script: Buffer, value: number, more: ParsedTx[] = []): BlockToApply {
    return this.block([coinbaseTx([{ script, value }], randomHash(this.rng)), ...more]);
  }
}

// --- random chains -----------------------------------------------------------------------------------
export interface RandomChainOptions {
  blocks: number;
  txsPerBlock?: number;
  /** Size of the script pool: smaller = more UTXOs per script. */
  scripts?: number;
  /** Emit Litecoin-style peg-ins and a HogEx per block. */
  mweb?: boolean;
  /** At this height, repeat the coinbase txid of `bip30.of` (BIP30 duplicate). */
  bip30?: { at: number; of: number };
}

/**
 * A random but valid chain: every input spends an outpoint that exists at that point (possibly created
 * earlier in the same block); about 1 output in 12 is unspendable.
 */
export function randomChain(seed: number, opts: RandomChainOptions): BlockToApply[] {
  const rng = new Rng(seed);
  const chain = new ChainBuilder(rng);
  const pool = Array.from({ length: opts.scripts ?? 50 }, (_, i) => (i % 2 ? p2pkh(rng) : p2wpkh(rng)));
  const spendable: (OutRef & { value: number })[] = [];
  const coinbaseTxids: Buffer[] = [];
  let hog: (OutRef & { value: number }) | null = null;

  const take = (): (OutRef & { value: number }) | undefined => {
    if (spendable.length === 0) return undefined;
    const i = rng.int(spendable.length);
    const last = spendable.pop()!;
    if (i === spendable.length) return last;
    const got = spendable[i]!;
    spendable[i] = last;
    return got;
  };
  type Coin = OutRef & { value: number };
  /** Splits `total` over n outputs; spendable ones go to `spendable`, peg-ins (when allowed) to `pegins`. */
  const outputsFor = (total: number, n: number, txid: Buffer, pegins: Coin[] | null): Out[] => {
    const outs: Out[] = [];
    let left = total;
    for (let vout = 0; vout < n; vout++) {
      const value = vout === n - 1 ? left : Math.floor(left / 2);
      left -= value;
      const r = rng.int(24);
      if (r === 0) outs.push({ script: opReturn(rng.bytes(8)), value });
      else if (r === 1) outs.push({ script: rng.chance(50) ? oversized() : Buffer.from([0x6a]), value });
      else if (r === 2 && pegins) {
        outs.push({ script: mwebPegin(rng), value });
        pegins.push({ txid, vout, value });
      } else {
        outs.push({ script: pool[rng.int(pool.length)]!, value });
        spendable.push({ txid, vout, value });
      }
    }
    return outs;
  };

  for (let h = 0; h < opts.blocks; h++) {
    const txs: ParsedTx[] = [];
    const cbTxid = opts.bip30 && h === opts.bip30.at ? coinbaseTxids[opts.bip30.of]! : randomHash(rng);
    coinbaseTxids.push(cbTxid);
    const reward = 50_000_000 + rng.int(1000);
    const cbOuts: Out[] = [{ script: pool[rng.int(pool.length)]!, value: reward }];
    if (rng.chance(30)) cbOuts.push({ script: opReturn(rng.bytes(32)), value: 0 });
    txs.push(coinbaseTx(cbOuts, cbTxid));
    // Genesis outputs are never connected: do not offer them for spending.
    if (h > 0) {
      // A repeated coinbase txid overwrites the old outpoint (BIP30): it is one coin, offered once.
      for (let i = spendable.length - 1; i >= 0; i--) if (spendable[i]!.txid.equals(cbTxid)) spendable.splice(i, 1);
      spendable.push({ txid: cbTxid, vout: 0, value: reward });
    }
    const pegins: Coin[] | null = opts.mweb && h > 0 ? [] : null;
    // Leave part of the set unspent so that it grows instead of being drained every block.
    const n = h === 0 ? 0 : Math.min(rng.int((opts.txsPerBlock ?? 10) + 1), Math.floor(spendable.length / 3));
    for (let t = 0; t < n; t++) {
      const ins: (OutRef & { value: number })[] = [];
      for (let k = 1 + rng.int(3); k > 0; k--) {
        const c = take();
        if (c) ins.push(c);
      }
      if (ins.length === 0) break;
      const txid = randomHash(rng);
      const total = ins.reduce((s, c) => s + c.value, 0);
      txs.push(spendTx(ins, outputsFor(total, 1 + rng.int(3), txid, pegins), { txid }));
    }
    if (pegins && (hog || pegins.length > 0)) {
      // HogEx: spends the previous HogAddr and this block's peg-ins; pays a new HogAddr and maybe a peg-out.
      const ins: Coin[] = [...(hog ? [hog] : []), ...pegins];
      const txid = randomHash(rng);
      const inValue = ins.reduce((s, c) => s + c.value, 0);
      const pegoutValue = inValue > 1000 && rng.chance(40) ? 1000 : 0;
      const hogValue = inValue - pegoutValue;
      const outs: Out[] = [{ script: hogAddr(rng), value: hogValue }];
      if (pegoutValue) outs.push({ script: pool[rng.int(pool.length)]!, value: pegoutValue });
      txs.push(spendTx(ins, outs, { txid, hogEx: true }));
      hog = { txid, vout: 0, value: hogValue };
      if (pegoutValue) spendable.push({ txid, vout: 1, value: pegoutValue });
    }
    chain.block(txs);
  }
  return chain.blocks;
}
