/**
 * kill -9 safety: a child process applies (and rolls back) blocks in a loop and is SIGKILLed at random
 * instants, several times. Each time the database must reopen with no repair step and be exactly the
 * index of the chain up to its tip: aggregates recompute to themselves, blocks 0..tip are the chain's,
 * and the UTXO set equals an independent model of that prefix.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';
import { randomChain } from '../support/blocks.js';
import { CHURN_UNDO_DEPTH, churnChainOptions, exited, firstLine, killAll, startStoreChild } from '../support/store-child-run.js';
import { scriptRows, utxoRows } from '../support/store-dump.js';
import { UtxoModel } from '../support/utxo-model.js';

const SEED = 4242;
const BLOCKS = 600;
const KILLS = 6;

describe('kill -9 at random instants', () => {
  const dir = mkdtempSync(join(tmpdir(), 'addrsum-kill-'));
  const path = join(dir, 'ltc.sqlite');
  const children: ChildProcess[] = [];
  afterAll(() => {
    killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`survives ${KILLS} SIGKILLs mid-write with a consistent, resumable index`, { timeout: 120_000 }, async () => {
    const chain = randomChain(SEED, churnChainOptions(BLOCKS));
    const tips: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      const child = startStoreChild(['churn', path, String(SEED), String(BLOCKS)]);
      children.push(child);
      expect(await firstLine(child)).toBe('ready');
      // Half the kills land early (catch-up), half late (rollbacks and re-applies near the tip).
      await sleep(i % 2 === 0 ? Math.floor(Math.random() * 60) : 100 + Math.floor(Math.random() * 500));
      expect(child.exitCode).toBeNull(); // still writing when killed
      child.kill('SIGKILL');
      await exited(child);

      const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest', undoDepth: CHURN_UNDO_DEPTH });
      try {
        const report = verifyAggregates(store.db);
        expect(report.differences).toEqual([]);
        expect(verifyChain(store.db)).toEqual([]);
        // A kill before the first commit leaves an empty index (no tip), which must be empty throughout.
        const height = store.tip()?.height ?? -1;
        tips.push(height);
        for (let h = 0; h <= height; h++) expect(store.hashAt(h)!.equals(chain[h]!.hash)).toBe(true);
        expect(store.hashAt(height + 1)).toBeNull();
        const model = new UtxoModel();
        chain.slice(0, height + 1).forEach((b) => model.apply(b));
        expect(utxoRows(store.db)).toEqual(model.utxoRows());
        expect(scriptRows(store.db)).toEqual(model.scriptRows());
        expect(store.totals()).toEqual(model.totals());
      } finally {
        store.close();
      }
    }
    // The kills landed at different points of the work, not all at the same state.
    expect(new Set(tips).size).toBeGreaterThan(1);
  });
});
