import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainStore, StoreError } from '../../src/store/sqlite/chain-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';
import { ChainBuilder, Rng, coinbaseTx, p2pkh, randomChain, spendTx } from '../support/blocks.js';

describe('verify', () => {
  let store: ChainStore;
  beforeEach(() => {
    store = ChainStore.open(':memory:', { chain: 'LTC', network: 'regtest' });
    store.applyBlocks(randomChain(41, { blocks: 30, txsPerBlock: 10, scripts: 8, mweb: true }));
  });
  afterEach(() => store.close());

  it('finds nothing on a consistent index, and counts what it checked', () => {
    const r = verifyAggregates(store.db);
    expect(r.differences).toEqual([]);
    expect(r.differenceCount).toBe(0);
    expect(r.utxos).toBe(store.db.prepare('SELECT COUNT(*) FROM utxos').pluck().get());
    expect(r.scripts).toBe(store.db.prepare('SELECT COUNT(*) FROM scripts').pluck().get());
    expect(r.utxos).toBeGreaterThan(20);
    expect(verifyChain(store.db)).toEqual([]);
  });

  it('reports a wrong aggregate, a missing one and an orphan one', () => {
    const keys = store.db.prepare('SELECT script_key FROM scripts ORDER BY script_key LIMIT 2').pluck().all() as Buffer[];
    const [k0, k1] = [keys[0]!, keys[1]!];
    const row1 = store.db.prepare('SELECT balance, utxo_count FROM scripts WHERE script_key = ?').get(k1) as {
      balance: number;
      utxo_count: number;
    };
    store.db.prepare('UPDATE scripts SET balance = balance + 1 WHERE script_key = ?').run(k0);
    store.db.prepare('DELETE FROM scripts WHERE script_key = ?').run(k1);
    const orphan = Buffer.alloc(16, 0xff);
    store.db.prepare('INSERT INTO scripts VALUES (?, 5, 1)').run(orphan);
    const r = verifyAggregates(store.db);
    expect(r.differenceCount).toBe(3);
    expect(r.differences[0]!.scriptKey).toBe(k0.toString('hex'));
    expect(Number(r.differences[0]!.stored!.balance - r.differences[0]!.computed!.balance)).toBe(1);
    expect(r.differences[1]).toEqual({
      scriptKey: k1.toString('hex'),
      stored: null,
      computed: { balance: BigInt(row1.balance), utxoCount: row1.utxo_count },
    });
    expect(r.differences[2]).toEqual({ scriptKey: 'ff'.repeat(16), stored: { balance: 5n, utxoCount: 1 }, computed: null });
    expect(verifyAggregates(store.db, { maxDifferences: 1 }).differences).toHaveLength(1);
    // The running totals in meta no longer match the scripts table either.
    expect(verifyChain(store.db).join('\n')).toMatch(/utxo_amount/);
  });

  it('reports broken chain bookkeeping', () => {
    store.db.prepare("UPDATE meta SET value = 3 WHERE key = 'tip_height'").run();
    store.db.prepare('UPDATE blocks SET prev_hash = zeroblob(32) WHERE height = 10').run();
    store.db.prepare('DELETE FROM blocks WHERE height = 5').run();
    const problems = verifyChain(store.db).join('\n');
    expect(problems).toMatch(/not exactly heights 0\.\.29/);
    expect(problems).toMatch(/tip_height 3 is not the last block 29/);
    expect(problems).toMatch(/1 blocks whose prev_hash/);
  });

  it('an index whose aggregate contradicts its UTXOs stops with INCONSISTENT instead of going negative', () => {
    const rng = new Rng(42);
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    const s2 = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
    try {
      c.blockPaying(a, 1);
      const b1 = c.blockPaying(a, 100);
      s2.applyBlocks(c.blocks);
      s2.db.prepare('UPDATE scripts SET balance = 10 WHERE script_key = ?').run(scriptKey(a));
      c.block([
        coinbaseTx([{ script: p2pkh(rng), value: 1 }]),
        spendTx([{ txid: b1.txs[0]!.txid, vout: 0 }], [{ script: p2pkh(rng), value: 100 }]),
      ]);
      const err = (() => {
        try {
          s2.applyBlocks([c.blocks[2]!]);
        } catch (e) {
          return e as StoreError;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(StoreError);
      expect(err!.code).toBe('INCONSISTENT');
      expect(s2.tip()!.height).toBe(1);
    } finally {
      s2.close();
    }
  });
});
