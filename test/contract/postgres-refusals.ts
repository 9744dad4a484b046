/**
 * What the PostgreSQL engine refuses, and that a refusal writes nothing: a second writer (LOCKED),
 * another network's schema (CHAIN_MISMATCH), a newer schema (SCHEMA_TOO_NEW), an older one for a reader
 * (SCHEMA_TOO_OLD; the writer migrates it, keeping its rows), an uncreated one (NOT_INITIALIZED), a
 * writer whose connection is cut, an empty index's no-ops and refusals, and batches the index cannot
 * connect (NOT_CONNECTED, MISSING_UTXO, INCONSISTENT). Also a reader on a streaming standby.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startStandby, waitForReplay } from '../../harness/postgres.js';
import { openPostgresReader, openPostgresWriter } from '../../src/store/postgres/engine.js';
import { chainSchema, listPgMigrations, migratePgChain, PG_SCHEMA_VERSION } from '../../src/store/postgres/chain-schema.js';
import { openPool } from '../../src/store/postgres/pg-pool.js';
import { scriptKey } from '../../src/store/script-key.js';
import type { IndexReader, IndexWriter } from '../../src/store/ports.js';
import { ChainBuilder, Rng, p2wpkh, spendTx } from '../support/blocks.js';
import { CHAIN, writerOptions } from './open-index.js';
import { databaseUrl, type PostgresEngine } from './postgres-engine.js';

/** Runs one statement on `url`. */
async function sql(url: string, text: string): Promise<void> {
  const pool = openPool(url, { max: 1, name: 'addrsum-test' });
  try {
    await pool.query(text);
  } finally {
    await pool.end();
  }
}

/** Everything a reader and the writer say of the index, to compare before and after a refusal. */
async function observe(w: IndexWriter, r: IndexReader, script: Buffer) {
  return {
    tip: await w.tip(),
    totals: await w.totals(),
    status: await r.status(),
    summary: await r.summary(script),
    feed: await r.feed.bounds(),
  };
}

export function postgresRefusals(engine: PostgresEngine): void {
  it('one writer per index; another network, a newer or an absent schema are refused', async () => {
    const index = await engine.create(CHAIN);
    const url = index.child.location;
    const writer = await index.openWriter(writerOptions(4));
    await expect(index.openWriter(writerOptions(4))).rejects.toMatchObject({ code: 'LOCKED' });
    await writer.close();
    await (await index.openWriter(writerOptions(4))).close();
    await expect(openPostgresWriter(url, { chain: 'BTC', network: 'testnet' })).rejects.toMatchObject({ code: 'CHAIN_MISMATCH' });
    await expect(openPostgresReader(url, { chain: 'BTC', network: 'testnet' })).rejects.toMatchObject({ code: 'CHAIN_MISMATCH' });
    await expect(openPostgresReader(url, { chain: 'LTC', network: 'regtest' })).rejects.toMatchObject({ code: 'NOT_INITIALIZED' });
    // A writer whose connection is cut fails its next call (no crash), and its lock is gone with its session.
    const cut = await index.openWriter(writerOptions(4));
    await sql(
      url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'addrsum-indexer-btc' AND datname = current_database()",
    );
    await expect(cut.setNodeHeight(1, new Date())).rejects.toThrow();
    await (await index.openWriter(writerOptions(4))).close();
    await cut.close();
    await sql(url, 'UPDATE addrsum_btc.schema_version SET version = 99');
    await expect(openPostgresWriter(url, CHAIN)).rejects.toMatchObject({
      code: 'SCHEMA_TOO_NEW',
      message: expect.stringMatching(/version 99/),
    });
    await expect(openPostgresReader(url, CHAIN)).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' });
  });

  it('a schema of an older release: a reader refuses it (SCHEMA_TOO_OLD), the writer migrates it, keeping its rows', async () => {
    const index = await engine.create(CHAIN);
    const url = index.child.location;
    const schema = chainSchema(CHAIN.chain);
    // Version 1 as that release wrote it: its migration alone, then a coin of its own.
    const first = mkdtempSync(path.join(tmpdir(), 'addrsum-pg-migrations-'));
    const pool = openPool(url, { max: 1, name: 'addrsum-test' });
    try {
      // A fresh index is created at the current version: start again from nothing.
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      copyFileSync(listPgMigrations()[0]!.file, path.join(first, path.basename(listPgMigrations()[0]!.file)));
      expect(await migratePgChain(pool, schema, CHAIN, first)).toEqual({ from: 0, to: 1 });
      await pool.query(`INSERT INTO ${schema}.utxos (outpoint, script_key, value, height) VALUES ('\\x01', '\\x02', 5000, 1)`);
    } finally {
      await pool.end();
      rmSync(first, { recursive: true, force: true });
    }
    await expect(openPostgresReader(url, CHAIN)).rejects.toMatchObject({
      code: 'SCHEMA_TOO_OLD',
      message: expect.stringMatching(/version 1,/),
    });
    await (await openPostgresWriter(url, CHAIN)).close();
    const r = await openPostgresReader(url, CHAIN);
    try {
      expect(await r.mempoolTxs()).toBe(0);
    } finally {
      await r.close();
    }
    const check = openPool(url, { max: 1, name: 'addrsum-test' });
    try {
      expect((await check.query(`SELECT version FROM ${schema}.schema_version`)).rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
      expect((await check.query(`SELECT value::text AS value FROM ${schema}.utxos`)).rows).toEqual([{ value: '5000' }]);
    } finally {
      await check.end();
    }
  });

  it('an empty index: no history build to feed, features already off, nothing to roll back', async () => {
    const index = await engine.create(CHAIN);
    const w = await index.openWriter(writerOptions(4));
    try {
      // No history build under way: nothing to build.
      await expect(w.buildHistory([])).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
      await w.setUtxoList(false);
      await w.setHistory(false);
      expect([await w.mempool.size(), await w.mempool.txids(), await w.historyBuild(), await w.base()]).toEqual([0, [], null, null]);
      await expect(w.rollbackTip()).rejects.toMatchObject({ code: 'EMPTY' });
    } finally {
      await w.close();
    }
  });

  it('a refused batch writes nothing, and the index stays writable; a standby reads what the primary committed', async () => {
    const index = await engine.create(CHAIN);
    const w = await index.openWriter(writerOptions(4));
    // With history kept: a refusal writes none of it either, and a standby reads its pages.
    await w.setHistory(true);
    const r = await index.openReader();
    try {
      const rng = new Rng(0x5eed_0034);
      const [a, b] = [p2wpkh(rng), p2wpkh(rng)];
      const chain = new ChainBuilder(rng);
      const genesis = chain.blockPaying(a, 1);
      const b1 = chain.blockPaying(a, 5000);
      await w.applyBlocks([genesis, b1]);
      const b2 = chain.blockPaying(a, 100, [spendTx([{ txid: b1.txs[0]!.txid, vout: 0 }], [{ script: b, value: 4000 }])]);
      const missing = chain.blockPaying(a, 1, [spendTx([{ txid: Buffer.alloc(32, 7), vout: 0 }], [{ script: b, value: 1 }])]);
      const before = await observe(w, r, a);
      await expect(w.applyBlocks([b1])).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
      // The first block of the batch is fine: it is not written either.
      await expect(w.applyBlocks([b2, missing])).rejects.toMatchObject({ code: 'MISSING_UTXO' });
      expect(await observe(w, r, a)).toEqual(before);
      await w.applyBlocks([b2]);
      // A non-coinbase output at an outpoint still unspent (b2's spend, vout 0): Core's logic_error.
      const again = new ChainBuilder(rng);
      again.blocks.push(...chain.blocks.slice(0, 3));
      const overwrite = again.blockPaying(a, 1, [
        spendTx([{ txid: b2.txs[0]!.txid, vout: 0 }], [{ script: a, value: 1 }], { txid: b2.txs[1]!.txid }),
      ]);
      const atB2 = await observe(w, r, b);
      await expect(w.applyBlocks([overwrite])).rejects.toMatchObject({ code: 'INCONSISTENT' });
      expect(await observe(w, r, b)).toEqual(atB2);
      expect(atB2.summary).toMatchObject({ tipHeight: 2, balanceSats: 4000n, utxoCount: 1 });
      await w.setNodeHeight(9, new Date(1_700_000_000_000));

      const primary = await engine.primary();
      const standby = await startStandby(primary);
      try {
        await waitForReplay(primary, standby);
        const database = new URL(index.child.location).pathname.slice(1);
        const onStandby = await openPostgresReader(databaseUrl(standby.url, database), CHAIN);
        try {
          expect(await onStandby.summary(b)).toEqual(await r.summary(b));
          expect(await onStandby.status()).toMatchObject({ tipHeight: 2, nodeHeight: 9, nodeSeenAt: new Date(1_700_000_000_000) });
          expect(await onStandby.feed.since(0, 10)).toEqual(await r.feed.since(0, 10));
          const keys = [scriptKey(a), scriptKey(b)];
          const page = { key: keys[1]!, after: null, limit: 2, mempool: true };
          expect(await onStandby.historyPage(page)).toEqual(await r.historyPage(page));
          expect((await r.historyPage(page))?.page?.items).toHaveLength(1);
          const wallet = { keys, after: null, limit: 5, mempool: true };
          expect(await onStandby.walletHistoryPage(wallet)).toEqual(await r.walletHistoryPage(wallet));
          expect(await onStandby.keyViews(keys, true, { distinct: true, groups: [[0], [1], [0, 1]] })).toMatchObject({
            distinctTxCount: 3,
            groupTxCounts: [3, 1, 3],
          });
        } finally {
          await onStandby.close();
        }
      } finally {
        await standby.stop();
      }
    } finally {
      await r.close();
      await w.close();
    }
  });
}
