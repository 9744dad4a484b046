/**
 * What the contract's listing cases (cases/listing.ts) cannot see of the PostgreSQL engine's UTXO
 * listing: the build's events and its no-op, a writer killed inside the build (its transaction rolled
 * back whole: nothing half-built, the next start builds it), turning it off voiding the cursor secret,
 * and pages read on a streaming standby equal to the primary's.
 */
import { expect, it } from 'vitest';
import { startStandby, waitForReplay } from '../../harness/postgres.js';
import type { UtxoListEvent, UtxoPageRequest } from '../../src/store/index-model.js';
import { openPostgresReader } from '../../src/store/postgres/engine.js';
import { openPool } from '../../src/store/postgres/pg-pool.js';
import { mempoolPageSql } from '../../src/store/postgres/utxo-page.js';
import type { IndexReader } from '../../src/store/ports.js';
import { ChainBuilder, Rng, p2wpkh } from '../support/blocks.js';
import { keyHex } from './model.js';
import { CHAIN, writerOptions } from './open-index.js';
import { databaseUrl, type PostgresEngine } from './postgres-engine.js';

/** A page of `script`'s coins with the secret its check saw. */
async function page(reader: IndexReader, script: Buffer, limit = 2) {
  let secret: Buffer | null = null;
  const req: UtxoPageRequest = {
    keys: [Buffer.from(keyHex(script), 'hex')],
    after: null,
    limit,
    mempool: true,
    check: (ctx) => void (secret = ctx.secret),
  };
  const got = await reader.utxoPage(req);
  return { got, secret: secret as Buffer | null };
}

/** Polls until the writer's session waits for a lock another session holds. */
async function untilWriterWaits(url: string): Promise<void> {
  const pool = openPool(url, { max: 1, name: 'addrsum-test' });
  try {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'addrsum-indexer-btc' AND datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the writer never waited for the table lock');
  } finally {
    await pool.end();
  }
}

export function postgresListing(engine: PostgresEngine): void {
  it("reads each script's unconfirmed outputs by the script index (0009), not the whole mempool per script", async () => {
    const index = await engine.create(CHAIN);
    const w = await index.openWriter(writerOptions(4));
    await w.close();
    const pool = openPool(index.child.location, { max: 1, name: 'addrsum-test' });
    try {
      // 20,000 mempool outputs over 2,000 scripts, as a wallet page of 2,000 derived scripts would meet.
      await pool.query(
        'INSERT INTO addrsum_btc.mempool_outputs (outpoint, script_key, value) ' +
          'SELECT sha256(int4send(i)), substring(sha256(int4send(i % 2000)) FROM 1 FOR 20), 1000 FROM generate_series(1, 20000) AS i',
      );
      await pool.query('ANALYZE addrsum_btc.mempool_outputs');
      const keys = (await pool.query<{ k: Buffer }>('SELECT DISTINCT script_key AS k FROM addrsum_btc.mempool_outputs LIMIT 100')).rows.map(
        (r) => r.k,
      );
      const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${mempoolPageSql('addrsum_btc')}`, [keys, Buffer.alloc(0), 11]);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('mempool_outputs_by_script');
      expect(plan).not.toMatch(/Seq Scan on mempool_outputs/);
      const page = await pool.query(mempoolPageSql('addrsum_btc'), [keys.slice(0, 3), Buffer.alloc(0), 11]);
      expect(page.rows).toHaveLength(30);
    } finally {
      await pool.end();
    }
  });

  it('the UTXO listing: a killed build leaves nothing, events, off voids the secret, a standby pages alike', async () => {
    const index = await engine.create(CHAIN);
    const url = index.child.location;
    const rng = new Rng(0x5eed_0035);
    const a = p2wpkh(rng);
    const chain = new ChainBuilder(rng);
    let w = await index.openWriter(writerOptions(4));
    // Genesis's coinbase is no UTXO: three coins, at heights 1–3.
    await w.applyBlocks([1, 2, 3, 4].map((value) => chain.blockPaying(a, value)));

    // A kill inside the build, as the server sees it: the index is built, and the session ends while
    // the build's transaction waits to set the secret (a row lock another session holds on state).
    const holder = openPool(url, { max: 1, name: 'addrsum-test' });
    const held = await holder.connect();
    await held.query('BEGIN');
    await held.query('SELECT 1 FROM addrsum_btc.state FOR UPDATE');
    const building = w.setUtxoList(true);
    building.catch(() => undefined);
    await untilWriterWaits(url);
    await held.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'addrsum-indexer-btc' AND datname = current_database()",
    );
    await expect(building).rejects.toThrow();
    await held.query('ROLLBACK');
    held.release();
    await holder.end();
    await w.close();

    w = await index.openWriter(writerOptions(4));
    const r = await index.openReader();
    const v = await index.openVerifier();
    try {
      expect((await page(r, a)).got?.listing.kind).toBe('off');
      expect(await v.chain()).toEqual([]);
      const events: UtxoListEvent[] = [];
      await w.setUtxoList(true, (e) => events.push(e));
      await w.setUtxoList(true, (e) => events.push(e));
      expect(events.map((e) => e.kind)).toEqual(['building', 'built']);
      expect(events[0]).toEqual({ kind: 'building', utxos: 3, shards: 1, of: 1 });
      expect(events[1]).toMatchObject({ kind: 'built', utxos: 3, indexBytes: expect.any(Number) });
      expect(await v.chain()).toEqual([]);
      const first = await page(r, a);
      expect(first.got?.listing).toMatchObject({ kind: 'page', next: { phase: 'confirmed', height: 2 } });
      expect(first.secret).toHaveLength(32);

      const primary = await engine.primary();
      const standby = await startStandby(primary);
      try {
        await waitForReplay(primary, standby);
        const database = new URL(url).pathname.slice(1);
        const onStandby = await openPostgresReader(databaseUrl(standby.url, database), CHAIN);
        try {
          expect(await page(onStandby, a)).toEqual(first);
        } finally {
          await onStandby.close();
        }
      } finally {
        await standby.stop();
      }

      events.length = 0;
      await w.setUtxoList(false, (e) => events.push(e));
      await w.setUtxoList(false, (e) => events.push(e));
      expect(events).toEqual([{ kind: 'removed' }]);
      expect((await page(r, a)).got?.listing.kind).toBe('off');
      expect(await v.chain()).toEqual([]);
      await w.setUtxoList(true);
      const again = await page(r, a);
      expect(again.got?.listing.kind).toBe('page');
      expect(again.secret?.equals(first.secret!)).toBe(false);
    } finally {
      await r.close();
      await v.close();
      await w.close();
    }
  });
}
