/**
 * src/api/live/summaries.ts: the summaries of many watches come from one read in which each script is
 * looked up once, however many watches share it, and every watch still gets its own scripts' figures.
 */
import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../../src/api/deps.js';
import type { ChainHandle } from '../../src/serving/chain-handle.js';
import { readSummaries } from '../../src/api/live/summaries.js';
import { stringifyWithCoins } from '../../src/chain/amount.js';
import { scripthashWatch, walletWatch, watchOf } from '../../src/api/live/watch.js';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { scriptKey } from '../../src/store/script-key.js';
import type { DerivedScript } from '../../src/wallet/derive.js';
import { FakeIndex } from '../support/api-world.js';

const params = chainParams('LTC', 'regtest');
const p2wpkh = (n: number): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, n)]);
const [A, B, C] = [p2wpkh(1), p2wpkh(2), p2wpkh(3)];

describe('readSummaries', () => {
  it('reads each shared script once and gives every watch its own figures', async () => {
    const index = new FakeIndex();
    index.set(A.toString('hex'), 1_000, 1);
    index.set(B.toString('hex'), 2_000, 2);
    const asked: number[] = [];
    const keyViews = index.keyViews.bind(index);
    index.keyViews = (keys, mempool) => {
      asked.push(keys.length);
      return keyViews(keys, mempool);
    };
    const handle = { params, configured: true, acquire: () => ({ ok: true, source: index }) } as unknown as ChainHandle;
    const deps = {
      chains: new Map([['LTC', handle]]),
      settings: { syncLagBlocks: 1 },
      clock: { now: () => Date.now() },
    } as unknown as AppDeps;
    const derived = (script: Buffer, i: number): DerivedScript => ({ branch: 0, index: i, path: `0/${i}`, script });
    const wallet = walletWatch(
      'LTC',
      { fingerprint: 'f1', range: 3, descriptors: ['d'], scripts: [A, B, C].map(derived), keys: [A, B, C].map((s) => scriptKey(s)) },
      false,
    );
    const watches = [
      watchOf('LTC', scriptToAddress(params, A)!, A, false),
      watchOf('LTC', scriptToAddress(params, A)!, A, true),
      scripthashWatch('LTC', 'b'.repeat(64), scriptKey(B), false),
      wallet,
    ];
    const summaries = await readSummaries(deps, 'LTC', watches);
    expect(asked).toEqual([3]);
    // As a subscriber reads it: the data written by the pushes' serializer.
    const data = summaries.map((s) => JSON.parse(stringifyWithCoins(s.data)) as { balanceSatoshi: number; utxoCount: number });
    expect(data.map((d) => [d.balanceSatoshi, d.utxoCount])).toEqual([
      [1_000, 1],
      [1_000, 1],
      [2_000, 2],
      [3_000, 3],
    ]);
  });
});
