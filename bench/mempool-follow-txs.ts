/** The mempool-follow benchmark's index and transactions, derived from constants so every process agrees. */
import { p2wpkh, SyntheticChain } from './synthetic-chain.js';
import type { BlockToApply } from '../src/store/index-model.js';

export const RATE = 2_000;
export const SCRIPTS = 5_000;
const PER_TX = 1000;
const LABEL = 'mempool-follow-bench';

export interface Coin {
  txid: Buffer;
  vout: number;
  value: number;
}

export const followScript = (i: number): Buffer => p2wpkh(`mempool-follow ${i}`);

/** Blocks holding `coins` confirmed coins (rounded up to 1,000), 1,000 per coinbase. */
export function followBlocks(coins: number): BlockToApply[] {
  const chain = new SyntheticChain(LABEL);
  const blocks: BlockToApply[] = [chain.block([chain.tx('genesis', [{ script: followScript(0), value: 1 }], true)])];
  for (let i = 0; i < coins; i += PER_TX) {
    const outputs = Array.from({ length: PER_TX }, (_, j) => ({ script: followScript((i + j) % SCRIPTS), value: 100_000 + j }));
    blocks.push(chain.block([chain.tx(`cb ${i}`, outputs, true)]));
  }
  return blocks;
}

/** The n-th confirmed coin of followBlocks. */
export function followCoin(n: number): Coin {
  const base = Math.floor(n / PER_TX) * PER_TX;
  const vout = n % PER_TX;
  return { txid: new SyntheticChain(LABEL).tx(`cb ${base}`, [], true).txid, vout, value: 100_000 + vout };
}

/** Legacy serialization of a one-input transaction (the follower does not check signatures). */
export function rawTx(coin: Coin, outputs: Array<{ script: Buffer; value: number }>): Buffer {
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const parts: Buffer[] = [
    u32(2),
    Buffer.from([1]),
    coin.txid,
    u32(coin.vout),
    Buffer.from([0]),
    u32(0xffffffff),
    Buffer.from([outputs.length]),
  ];
  for (const o of outputs) {
    const v = Buffer.alloc(8);
    v.writeBigUInt64LE(BigInt(o.value));
    parts.push(v, Buffer.from([o.script.length]), o.script);
  }
  parts.push(u32(0));
  return Buffer.concat(parts);
}
