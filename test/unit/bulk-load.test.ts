/**
 * The store side of a snapshot bootstrap: one transaction that leaves either nothing or the whole
 * load; blocks on top connect and roll back as usual; the base itself cannot be rolled back; verify
 * accepts blocks that start at the base.
 */
import { describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { linkedBlock } from '../support/blocks.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';

const script = (n: number): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, n)]);
const txid = (n: number): Buffer => Buffer.alloc(32, n);
const base = { height: 500, hash: Buffer.alloc(32, 0xbb), prevHash: Buffer.alloc(32, 0xba) };

function rows(): unknown[][] {
  // Unsorted on purpose: the load sorts.
  return [5, 3, 9, 1, 7].map((n) => [outpointKey(txid(n), n % 2), scriptKey(script(n % 3)), 1000 * n, 100 + n]);
}

describe('snapshot bulk load', () => {
  it('loads, sets the base as tip, connects and rolls back blocks on top, and refuses to roll back the base', () => {
    const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
    try {
      const totals = store.loadSnapshot(() => rows(), base);
      expect(totals).toEqual({ utxos: 5, amount: 25_000n, scripts: 3 });
      expect(store.tip()).toEqual({ height: 500, hash: base.hash });
      expect(store.base()).toBe(500);
      expect(verifyAggregates(store.db).differenceCount).toBe(0);
      expect(verifyChain(store.db)).toEqual([]);
      const order = store.db.prepare('SELECT outpoint FROM utxos').pluck().all() as Buffer[];
      expect(order.map((b) => b[0])).toEqual([1, 3, 5, 7, 9]);

      const block = linkedBlock(501, base.hash, [
        {
          txid: txid(0xc0),
          inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
          outputs: [{ value: 50n, script: script(1) }],
          coinbase: true,
          hogEx: false,
          mweb: false,
        },
        {
          txid: txid(0xc1),
          inputs: [{ prevTxid: txid(3), vout: 1 }],
          outputs: [{ value: 2500n, script: script(2) }],
          coinbase: false,
          hogEx: false,
          mweb: false,
        },
      ]);
      store.applyBlocks([block]);
      expect(store.totals()).toEqual({ utxos: 6, amount: 25_000n - 3000n + 2550n, scripts: 3 });
      expect(verifyChain(store.db)).toEqual([]);
      store.rollbackTip();
      expect(store.totals()).toEqual(totals);
      expect(() => store.rollbackTip()).toThrow(expect.objectContaining({ code: 'BELOW_BASE' }));
      expect(store.tip()!.height).toBe(500);
      expect(() => store.loadSnapshot(() => rows(), base)).toThrow(expect.objectContaining({ code: 'NOT_EMPTY' }));
    } finally {
      store.close();
    }
  });

  it('leaves an empty index (no tip: the API says CHAIN_SYNCING) when the load fails midway', () => {
    const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
    try {
      const failing = function* (): Generator<unknown[]> {
        yield* rows();
        throw new Error('file ends early');
      };
      expect(() => store.loadSnapshot(failing, base)).toThrow('file ends early');
      expect(() => store.loadSnapshot(() => [...rows(), rows()[0]!], base)).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }),
      );
      expect(store.tip()).toBeNull();
      expect(
        store.db
          .prepare('SELECT (SELECT COUNT(*) FROM utxos) + (SELECT COUNT(*) FROM scripts) + (SELECT COUNT(*) FROM blocks)')
          .pluck()
          .get(),
      ).toBe(0);
      expect(store.db.prepare("SELECT COUNT(*) FROM meta WHERE key IN ('tip_height', 'base_height')").pluck().get()).toBe(0);
      // And a later load into the same store works.
      expect(store.loadSnapshot(() => rows(), base).utxos).toBe(5);
    } finally {
      store.close();
    }
  });
});
