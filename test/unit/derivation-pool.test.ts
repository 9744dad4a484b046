/**
 * The derivation pool: its queue serves callers in turn, its threads derive exactly what deriveScripts
 * derives (slices reassembled in order), and it refuses a wallet that would wait too long, telling the
 * caller's own backlog (429) from other callers' (503 WALLETS_BUSY).
 */
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterEach, describe, expect, it } from 'vitest';
import { DerivationPool, SLICE_WORK, type WalletJob } from '../../src/api/derivation-pool.js';
import { FairQueue } from '../../src/api/fair-queue.js';
import { chainParams } from '../../src/chain/params.js';
import { scriptKey } from '../../src/store/script-key.js';
import { derivationWork, deriveScripts } from '../../src/wallet/derive.js';
import { parseWalletInput } from '../../src/wallet/wallet-input.js';

const bip32 = BIP32Factory(ecc);
const params = chainParams('BTC', 'mainnet');

/** A 1-of-n multisig of ranged keys on both branches, as a derivation job at `range`. */
function multisig(n: number, range: number, seed = 60): WalletJob {
  const keys = Array.from({ length: n }, (_, i) =>
    bip32
      .fromSeed(Buffer.alloc(32, seed + i), networks.bitcoin)
      .neutered()
      .toBase58(),
  );
  const input = `wsh(multi(1,${keys.map((k) => `${k}/<0;1>/*`).join(',')}))`;
  const desc = parseWalletInput(params, input);
  return { desc, input, range, maxRange: 10_000, work: derivationWork(desc, range) };
}

const pools: DerivationPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(maxWaitSeconds = 10): DerivationPool {
  const p = new DerivationPool({ threads: 1, maxWaitSeconds });
  pools.push(p);
  return p;
}

describe('FairQueue', () => {
  it("serves callers in turn, each in its own order, and counts the work before a caller's new item", () => {
    const q = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) q.push('a', item, 10);
    q.push('b', 'b1', 10);
    q.push('b', 'b2', 10);
    // A new caller's 30 waits behind at most 30 of each other caller's work.
    expect(q.workBefore('c', 30)).toBe(30 + 30 + 20);
    expect(q.workBefore('a', 10)).toBe(50 + 20);
    const order: string[] = [];
    for (let item = q.next(); item !== null; item = q.next()) order.push(item);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    expect(q.totalWork).toBe(0);
  });

  it("drops one job's items and keeps the rest", () => {
    const q = new FairQueue<{ job: number }>();
    q.push('a', { job: 1 }, 5);
    q.push('a', { job: 2 }, 7);
    q.remove('a', (item) => item.job === 1);
    expect(q.queuedWork('a')).toBe(7);
    expect(q.next()).toEqual({ job: 2 });
    expect(q.next()).toBeNull();
  });
});

describe('DerivationPool', () => {
  it('derives on its thread, in slices, exactly the scripts deriveScripts derives, in order', async () => {
    const job = multisig(4, 600);
    expect(job.work).toBeGreaterThan(2 * SLICE_WORK);
    const derived = await pool().derive('key:a', job);
    const expected = deriveScripts(job.desc, job);
    expect(derived.scripts.map((s) => [s.branch, s.index, s.path, Buffer.from(s.script).toString('hex')])).toEqual(
      expected.map((s) => [s.branch, s.index, s.path, Buffer.from(s.script).toString('hex')]),
    );
    expect(derived.keys.map((k) => k.toString('hex'))).toEqual(expected.map((s) => scriptKey(s.script).toString('hex')));
  });

  it("refuses a wallet that would wait too long: 429 for the caller's own backlog, 503 WALLETS_BUSY for others'", async () => {
    const p = pool(1);
    // 16 keys × 2 × 3000 = 96,000 units queued by one caller: seconds of work at any plausible speed.
    const heavy = p.derive('key:a', multisig(16, 3000)).catch((err: unknown) => err);
    const own = p.admit('key:a', 5000);
    expect(own?.code).toBe('RATE_LIMITED');
    expect(Number(own?.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Another caller's small wallet waits only its turns: admitted.
    expect(p.admit('key:b', 5000)).toBeNull();
    // Another caller's large one would wait behind as much of the backlog as it is large.
    const busy = p.admit('key:b', 90_000);
    expect(busy?.code).toBe('WALLETS_BUSY');
    expect(busy?.status).toBe(503);
    await p.close();
    expect(await heavy).toMatchObject({ code: 'NOT_READY' });
  });
});
