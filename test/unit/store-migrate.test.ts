import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database, { SQLITE_PACKAGE, type SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { headTotals } from '../../src/store/history-chunk.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { MEMPOOL_PAGE_SQL } from '../../src/store/sqlite/utxo-page.js';
import { HistoryStore } from '../../src/store/sqlite/history-store.js';
import { verifyHistory } from '../../src/store/sqlite/history-verify.js';
import { ChainStore, StoreError } from '../../src/store/sqlite/chain-store.js';
import { MIGRATIONS_DIR, SCHEMA_VERSION, listMigrations, migrate, readSchemaVersion } from '../../src/store/sqlite/migrate.js';
import { ChainBuilder, Rng, p2wpkh, spendTx } from '../support/blocks.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    return (err as StoreError).code;
  }
  return 'no error';
}

/** A database at `path` made by the migrations up to `version` only (copied into `dir`): what that release left. */
function schemaAt(dir: string, version: number): { path: string; raw: SqliteDatabase } {
  for (const m of listMigrations().filter((m) => m.version <= version))
    copyFileSync(m.file, join(dir, `${String(m.version).padStart(4, '0')}_${m.name}.sql`));
  const path = join(dir, `v${version}.sqlite`);
  const raw = new Database(path);
  expect(migrate(raw, dir)).toEqual({ from: 0, to: version });
  return { path, raw };
}

/** The meta rows a ChainStore opens an old database by. */
function recordChain(raw: SqliteDatabase): void {
  raw.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('chain', 'LTC');
  raw.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('network', 'regtest');
}

/** Migrated to the newest schema, with the mempool view emptied (the follower refills it from the node). */
function expectMempoolEmptied(store: ChainStore): void {
  expect(readSchemaVersion(store.db)).toBe(SCHEMA_VERSION);
  expect(store.mempool.size).toBe(0);
  for (const table of ['mempool_txs', 'mempool_scripts', 'mempool_outputs', 'mempool_spends', 'mempool_history'])
    expect(store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), table).toBe(0);
}

describe('migrations', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'addrsum-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('SCHEMA_VERSION is the highest migration file, numbered from 1 without gaps', () => {
    const migrations = listMigrations();
    expect(migrations.map((m) => m.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(migrations[0]!.name).toBe('init');
  });

  it('applies every file once, records the version, and is idempotent', () => {
    const db = new Database(':memory:');
    expect(readSchemaVersion(db)).toBe(0);
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual([
      'blocks',
      'changes',
      'headers',
      'history',
      'history_blocks',
      'history_spends',
      'history_txid_index',
      'history_txids',
      'history_undo',
      'mempool_history',
      'mempool_outputs',
      'mempool_scripts',
      'mempool_spends',
      'mempool_txs',
      'meta',
      'scripts',
      'snapshot_coinbase',
      'undo',
      'utxos',
    ]);
    // No index beyond the primary keys (disk budget), but the mempool's by script: as large as the mempool, not the chain.
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all()).toEqual([
      'mempool_outputs_by_script',
    ]);
    db.close();
  });

  it('a failing migration leaves the previous version intact', () => {
    for (const m of listMigrations()) copyFileSync(m.file, join(dir, `${String(m.version).padStart(4, '0')}_${m.name}.sql`));
    const next = String(SCHEMA_VERSION + 1).padStart(4, '0');
    writeFileSync(join(dir, `${next}_broken.sql`), 'CREATE TABLE extra (x INTEGER);\nTHIS IS NOT SQL;');
    const db = new Database(':memory:');
    expect(() => migrate(db, dir)).toThrow();
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe(0);
    db.close();
  });

  it('0007 opens an index of schema 6 with its mempool view emptied, for the follower to refill', () => {
    // A file as version 6 left it, holding a mempool view in the older format.
    const { path, raw } = schemaAt(dir, 6);
    recordChain(raw);
    raw.prepare('INSERT INTO mempool_txs (txid, outputs, effect) VALUES (?, 1, ?)').run(Buffer.alloc(32, 7), Buffer.alloc(36));
    raw.prepare('INSERT INTO mempool_scripts (script_key, balance, utxo_count, tx_count) VALUES (?, 5, 1, 1)').run(Buffer.alloc(16, 1));
    raw.prepare('INSERT INTO mempool_outputs (outpoint, script_key, value) VALUES (?, ?, 5)').run(Buffer.alloc(33, 7), Buffer.alloc(16, 1));
    raw.prepare('INSERT INTO mempool_spends (outpoint, txid) VALUES (?, ?)').run(Buffer.alloc(33, 9), Buffer.alloc(32, 7));
    raw.close();

    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    try {
      expectMempoolEmptied(store);
      // The refilled view works as on a new index.
      const script = p2wpkh();
      const chain = new ChainBuilder();
      store.applyBlocks([chain.block([]), chain.blockPaying(script, 1000)]);
      const coinbase = chain.blocks[1]!.txs[0]!;
      const spend = spendTx([{ txid: coinbase.txid, vout: 0 }], [{ script, value: 600 }]);
      expect(store.mempool.add([spend]).added).toBe(1);
      const reader = ChainReader.open(path);
      try {
        expect(reader.views([script], true)?.items[0]?.unconfirmed).toEqual({ balanceSats: -400n, utxoCount: 0, txCount: 1 });
      } finally {
        reader.close();
      }
    } finally {
      store.close();
    }
  });

  it('0010 empties a mempool view of schema 9; the refilled one keeps fees and held parents', () => {
    const { path, raw } = schemaAt(dir, 9);
    recordChain(raw);
    const [txid, key] = [Buffer.alloc(32, 7), Buffer.alloc(16, 1)];
    raw.prepare('INSERT INTO mempool_txs (txid, seq, outputs, effect) VALUES (?, 1, 1, ?)').run(txid, Buffer.alloc(8));
    raw.prepare('INSERT INTO mempool_scripts (script_key, received, sent, utxo_count, tx_count) VALUES (?, 5, 0, 1, 1)').run(key);
    raw.prepare('INSERT INTO mempool_history (script_key, seq, txid, received, sent) VALUES (?, 1, ?, 5, 0)').run(key, txid);
    raw.prepare('INSERT INTO mempool_outputs (outpoint, script_key, value) VALUES (?, ?, 5)').run(Buffer.alloc(33, 7), key);
    raw.prepare('INSERT INTO mempool_spends (outpoint, txid) VALUES (?, ?)').run(Buffer.alloc(33, 9), txid);
    raw.close();

    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    try {
      expectMempoolEmptied(store);
      const script = p2wpkh();
      const chain = new ChainBuilder();
      store.applyBlocks([chain.block([]), chain.blockPaying(script, 1000)]);
      const parent = spendTx([{ txid: chain.blocks[1]!.txs[0]!.txid, vout: 0 }], [{ script, value: 600 }]);
      const child = spendTx([{ txid: parent.txid, vout: 0 }], [{ script, value: 550 }]);
      expect(store.mempool.add([child, parent]).added).toBe(2);
      const rows = store.db.prepare('SELECT fee, unconfirmed_inputs FROM mempool_txs ORDER BY seq').all();
      expect(rows).toEqual([
        { fee: 400, unconfirmed_inputs: 0 },
        { fee: 50, unconfirmed_inputs: 1 },
      ]);
    } finally {
      store.close();
    }
  });

  it('0008 rekeys history of format 1 in place, and a rollback still reads the undo records written before it', () => {
    const { path, raw } = schemaAt(dir, 7);
    const meta = raw.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    for (const [key, value] of [
      ['chain', 'LTC'],
      ['network', 'regtest'],
      ['history', 1],
      ['history_format', 1],
      ['history_next_tx', 3],
    ] as const)
      meta.run(key, value);
    const row = raw.prepare('INSERT INTO history (script_key, chunk, data) VALUES (?, ?, ?)');
    const [a, b] = [Buffer.alloc(16, 0xa1), Buffer.alloc(16, 0xb2)];
    // Format 1 heads: a sealed count (0: none) first. a: one entry, tx 2 receiving 5 (2·4 + tag 0, 5);
    // b: a sealed chunk of tx 0 (1 received 9) and an entry, tx 1 spending 9 (1·4 + tag 1, 9).
    row.run(a, 0, Buffer.from([0, 8, 5]));
    row.run(b, 0, Buffer.from([1, 9, 0, 1, 0, 5, 9]));
    row.run(b, 1, Buffer.from([0, 9]));
    // Block 2 (tx 2) paid a, which had no head before it: its undo record, of format 1, says so.
    raw.prepare('INSERT INTO history_blocks (first_tx, height) VALUES (0, 0), (1, 1), (2, 2)').run();
    raw.prepare('INSERT INTO history_undo (height, data) VALUES (2, ?)').run(Buffer.concat([Buffer.from([1]), a, Buffer.from([0])]));
    raw.close();

    const db = new Database(path);
    try {
      expect(migrate(db, MIGRATIONS_DIR)).toEqual({ from: 7, to: SCHEMA_VERSION });
      const rows = db.prepare('SELECT hex(script_key) AS k, chunk, hex(data) AS d FROM history ORDER BY script_key, chunk').all();
      expect(rows).toEqual([
        { k: 'A1'.repeat(12), chunk: 0, d: '0805' },
        { k: 'B2'.repeat(12), chunk: 0, d: '0301090001000509' },
        { k: 'B2'.repeat(12), chunk: 1, d: '0009' },
      ]);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'history_format'").pluck().get()).toBe(2);
      const store = new HistoryStore(db);
      expect(db.transaction(() => store.rollback(2, []))()).toEqual([a]);
      expect(db.prepare('SELECT COUNT(*) FROM history WHERE chunk = 0').pluck().get()).toBe(1);
      const totals = headTotals(db.prepare('SELECT data FROM history WHERE chunk = 0').pluck().get() as Buffer);
      expect(totals).toEqual({ txCount: 2, received: 9n, sent: 9n, funded: 1, spent: 1 });
    } finally {
      db.close();
    }
  });

  it('0009 gives an index of schema 8 an empty headers table: new blocks store theirs, the rest is for the backfill', () => {
    const path = join(dir, 'v8.sqlite');
    const chain = new ChainBuilder();
    for (let h = 0; h < 6; h++) chain.block([]);
    const old = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    old.applyBlocks(chain.blocks);
    old.close();
    // What version 8 left: no headers table.
    const raw = new Database(path);
    raw.exec('DROP TABLE headers; DROP TABLE history_txid_index; DROP INDEX mempool_outputs_by_script; DROP TABLE history_spends');
    raw.prepare("UPDATE meta SET value = 8 WHERE key = 'schema_version'").run();
    raw.close();

    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    try {
      expect(readSchemaVersion(store.db)).toBe(SCHEMA_VERSION);
      expect(store.headersFrom()).toBe(6);
      store.applyBlocks([chain.block([])]);
      expect(store.headersFrom()).toBe(6);
      expect(
        store.addHeaders(
          0,
          chain.blocks.slice(0, 6).map((b) => b.header),
        ),
      ).toBe(0);
      expect(store.db.prepare('SELECT header FROM headers ORDER BY height').pluck().all()).toEqual(chain.blocks.map((b) => b.header));
    } finally {
      store.close();
    }
  });

  it('0011 indexes by txid what an index of schema 10 numbered, at ~17 bytes a transaction', () => {
    const path = join(dir, 'v10.sqlite');
    const rng = new Rng(11);
    const chain = new ChainBuilder(rng);
    const a = p2wpkh(rng);
    const old = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    old.setHistory(true);
    // 40 blocks of 100 transactions: history_txids rows end mid-block and mid-row.
    for (let h = 0; h < 40; h++)
      old.applyBlocks([
        chain.blockPaying(
          a,
          1000,
          Array.from({ length: 99 }, () => spendTx([], [{ script: a, value: 1 }])),
        ),
      ]);
    const txs = chain.blocks
      .flatMap((b, height) => b.txs.map((tx, position) => ({ txid: tx.txid, height, position })))
      .map((t, txNum) => ({ ...t, txNum }));
    const indexBytes = Number(old.db.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name = 'history_txid_index'").pluck().get());
    old.close();
    // A transaction costs its row in history_txid_index (prefix, number and b-tree overhead), written in
    // random prefix order as blocks come: about 17 bytes (16.4 measured here), against 32 for a txid alone.
    expect(indexBytes / txs.length).toBeLessThan(20);
    // What version 10 left: no such table (nor 0012's index, nor 0013's table).
    const raw = new Database(path);
    raw.exec(
      "DROP TABLE history_txid_index; DROP INDEX mempool_outputs_by_script; DROP TABLE history_spends; DELETE FROM meta WHERE key = 'history_spends_from'",
    );
    raw.prepare("UPDATE meta SET value = 10 WHERE key = 'schema_version'").run();
    raw.close();

    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    store.close();
    const reader = ChainReader.open(path);
    try {
      expect(readSchemaVersion(reader.db)).toBe(SCHEMA_VERSION);
      for (const t of [txs[0]!, txs[125]!, txs[126]!, txs[2000]!, txs.at(-1)!])
        expect(reader.txBlock(t.txid)).toEqual({
          height: t.height,
          hash: chain.blocks[t.height]!.hash,
          position: t.position,
          txNum: t.txNum,
        });
      expect(reader.txBlock(Buffer.alloc(32, 0xee))).toBeNull();
    } finally {
      reader.db.close();
    }
    // The verifier counts the rows: one missing is reported.
    const db = new Database(path);
    try {
      expect(verifyHistory(db)).toEqual([]);
      db.prepare('DELETE FROM history_txid_index WHERE tx_num = 7').run();
      expect(verifyHistory(db)).toEqual([
        `history numbers ${txs.length} transactions but finds ${txs.length - 1} by txid (history_txid_index)`,
      ]);
    } finally {
      db.close();
    }
  });

  it('0013 gives an index of schema 12 keeping history an empty spend index: spends are kept from its next transaction on', () => {
    const path = join(dir, 'v12.sqlite');
    const rng = new Rng(13);
    const chain = new ChainBuilder(rng);
    const a = p2wpkh(rng);
    const old = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    old.setHistory(true);
    old.applyBlocks([chain.blockPaying(a, 1000), chain.blockPaying(a, 1000), chain.blockPaying(a, 1000)]);
    const [first, second] = [chain.blocks[1]!.txs[0]!, chain.blocks[2]!.txs[0]!];
    const early = spendTx([{ txid: first.txid, vout: 0 }], [{ script: a, value: 900 }]);
    old.applyBlocks([chain.blockPaying(a, 1000, [early])]);
    old.close();
    // What version 12 left: no spend index.
    const raw = new Database(path);
    raw.exec("DROP TABLE history_spends; DELETE FROM meta WHERE key = 'history_spends_from'");
    raw.prepare("UPDATE meta SET value = 12 WHERE key = 'schema_version'").run();
    raw.close();

    const store = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    const late = spendTx([{ txid: second.txid, vout: 0 }], [{ script: a, value: 900 }]);
    store.applyBlocks([chain.blockPaying(a, 1000, [late])]);
    store.close();
    const reader = ChainReader.open(path);
    try {
      // Numbered before the migration: blocks 0–3 hold 5 transactions, so the index starts at number 5.
      const before = reader.outspends(first.txid, 1)!;
      expect(before.spendsFrom).toBe(5);
      expect(before.outputs).toEqual([{ unspent: false, spenders: [], mempool: null }]);
      const after = reader.outspends(second.txid, 1)!;
      expect(after.outputs).toEqual([{ unspent: false, spenders: [{ txid: late.txid, vin: 0, height: 4 }], mempool: null }]);
      expect(reader.outspends(late.txid, 1)!.outputs).toEqual([{ unspent: true, spenders: [], mempool: null }]);
    } finally {
      reader.db.close();
    }
  });

  it("0012 indexes an index of schema 11's mempool outputs by script: a script's page is a range scan, not the table's", () => {
    const path = join(dir, 'v11.sqlite');
    const old = ChainStore.open(path, { chain: 'LTC', network: 'regtest' });
    old.close();
    const raw = new Database(path);
    raw.exec('DROP INDEX mempool_outputs_by_script; DROP TABLE history_spends');
    raw.prepare("UPDATE meta SET value = 11 WHERE key = 'schema_version'").run();
    const insert = raw.prepare('INSERT INTO mempool_outputs (outpoint, script_key, value) VALUES (?, ?, ?)');
    for (let i = 0; i < 200; i++) insert.run(Buffer.from([i, 1, 2, 3]), Buffer.alloc(20, i % 7), 1000 + i);
    const plan = (db: SqliteDatabase): string =>
      (db.prepare(`EXPLAIN QUERY PLAN ${MEMPOOL_PAGE_SQL}`).all(Buffer.alloc(20, 3), Buffer.alloc(0), 10) as { detail: string }[])
        .map((r) => r.detail)
        .join('; ');
    // Before: every row after the outpoint (with an empty one, the whole table) for each script.
    expect(plan(raw)).toBe('SEARCH mempool_outputs USING PRIMARY KEY (outpoint>?)');
    raw.close();

    ChainStore.open(path, { chain: 'LTC', network: 'regtest' }).close();
    const db = new Database(path);
    try {
      expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
      expect(plan(db)).toMatch(
        /SEARCH mempool_outputs USING (COVERING )?INDEX mempool_outputs_by_script \(script_key=\? AND outpoint>\?\)/,
      );
      const rows = db.prepare(MEMPOOL_PAGE_SQL).all(Buffer.alloc(20, 3), Buffer.alloc(0), 1000) as { value: number }[];
      expect(rows.map((r) => r.value)).toEqual(
        Array.from({ length: 200 }, (_, i) => i)
          .filter((i) => i % 7 === 3)
          .map((i) => 1000 + i),
      );
    } finally {
      db.close();
    }
  });

  it('refuses gaps and bad names in the migrations directory', () => {
    writeFileSync(join(dir, '0001_a.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '0003_c.sql'), 'SELECT 1;');
    expect(code(() => listMigrations(dir))).toBe('BAD_MIGRATIONS');
    rmSync(join(dir, '0003_c.sql'));
    writeFileSync(join(dir, '2_b.sql'), 'SELECT 1;');
    expect(code(() => listMigrations(dir))).toBe('BAD_MIGRATIONS');
  });

  it('writer and reader refuse a newer schema; the reader refuses an uninitialised one', () => {
    const path = join(dir, 'x.sqlite');
    ChainStore.open(path, { chain: 'LTC', network: 'mainnet' }).close();
    const raw = new Database(path);
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(SCHEMA_VERSION + 1);
    raw.close();
    expect(code(() => ChainStore.open(path, { chain: 'LTC', network: 'mainnet' }))).toBe('SCHEMA_TOO_NEW');
    expect(code(() => ChainReader.open(path))).toBe('SCHEMA_TOO_NEW');
    const raw2 = new Database(path);
    raw2.prepare("UPDATE meta SET value = 0 WHERE key = 'schema_version'").run();
    raw2.close();
    expect(code(() => ChainReader.open(path))).toBe('NOT_INITIALIZED');
    const empty = join(dir, 'empty.sqlite');
    new Database(empty).close();
    expect(code(() => ChainReader.open(empty))).toBe('NOT_INITIALIZED');
    expect(MIGRATIONS_DIR).toMatch(/migrations\/?$/);
  });
});

describe('SQLite driver', () => {
  it('is the Node-API build from Node 22 on, 12.x before (src/store/sqlite/sqlite-driver.ts)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(SQLITE_PACKAGE).toBe(major >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3');
    const db = new Database(':memory:');
    expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
    db.close();
  });
});
