/**
 * The opt-in UTXO listing in the store: its index follows blocks and rollbacks (SQLite keeps it in the
 * same transaction), pages reproduce each script's rows exactly in (height, outpoint) order with keyset
 * paging, coinbase flags come from blocks.coinbase_txid, enabling later equals a fresh build (shard by
 * shard, one progress event each, only the missing shards when some exist), a page reads its key's
 * shard, the unreleased single index is replaced by the shards, turning it off removes them, and verify
 * notices a flag without its shards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import {
  legacyUtxoListIndexExists,
  utxoListIndexExists,
  utxoListRecorded,
  utxoListShards,
  verifyUtxoList,
} from '../../src/store/sqlite/utxo-list.js';
import { ALL_SHARDS, LEGACY_UTXO_LIST_INDEX, shardIndexName, shardOf, UTXO_LIST_SHARDS } from '../../src/store/sqlite/utxo-list-shards.js';
import { confirmedPageSql, UtxoPager } from '../../src/store/sqlite/utxo-page.js';
import { listedEntries } from '../support/utxo-listing.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { randomChain } from '../support/blocks.js';
import type { BlockToApply, UtxoListEvent, UtxoPosition, UtxoRow } from '../../src/store/index-model.js';

const open = (): ChainStore => ChainStore.open(':memory:', { chain: 'LTC', network: 'regtest', undoDepth: 50 });

/** Every script's rows straight from the table, in the listing's order: key hex → "height outpointhex value". */
function expected(store: ChainStore): Map<string, string[]> {
  const rows = store.db
    .prepare('SELECT script_key, height, outpoint, value FROM utxos NOT INDEXED ORDER BY script_key, height, outpoint')
    .all() as { script_key: Buffer; height: number; outpoint: Buffer; value: number }[];
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const k = r.script_key.toString('hex');
    out.set(k, [...(out.get(k) ?? []), `${r.height} ${r.outpoint.toString('hex')} ${r.value}`]);
  }
  return out;
}

function pageAll(store: ChainStore, key: Buffer, limit: number): UtxoRow[] {
  const pager = new UtxoPager(store.db);
  const rows: UtxoRow[] = [];
  let after: UtxoPosition | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = pager.read({ keys: [key], after, limit, mempool: false, check: () => undefined });
    if (page.kind !== 'page') throw new Error(`listing answered ${page.kind}`);
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    rows.push(...page.rows);
    if (page.next === null) return rows;
    after = page.next;
  }
  throw new Error('no last page');
}

function checkListing(store: ChainStore, chain: readonly BlockToApply[]): void {
  expect(verifyUtxoList(store.db)).toEqual([]);
  for (const [k, want] of expected(store)) {
    const rows = pageAll(store, Buffer.from(k, 'hex'), 3);
    expect(rows.map((r) => `${r.height} ${r.outpoint.toString('hex')} ${r.valueSats}`)).toEqual(want);
    for (const r of rows) {
      const cb = chain[r.height!]!.txs[0]!;
      expect(r.coinbase).toBe(cb.coinbase && cb.txid.equals(r.outpoint.subarray(0, 32)));
    }
  }
}

describe('UTXO listing index', () => {
  let store: ChainStore | undefined;
  afterEach(() => store?.close());

  it('stays exact through blocks and rollbacks, page by page', () => {
    const chain = randomChain(23, { blocks: 120, scripts: 6, bip30: { at: 60, of: 20 } });
    store = open();
    store.setUtxoList(true);
    expect(utxoListIndexExists(store.db) && utxoListRecorded(store.db)).toBe(true);
    store.applyBlocks(chain.slice(0, 80));
    checkListing(store, chain);
    for (let i = 0; i < 15; i++) store.rollbackTip();
    checkListing(store, chain);
    store.applyBlocks(chain.slice(65));
    checkListing(store, chain);
    const key = store.db.prepare('SELECT script_key FROM scripts ORDER BY utxo_count DESC LIMIT 1').pluck().get() as Buffer;
    expect(pageAll(store, key, 1000).length).toBeGreaterThan(20);
  });

  it('merges several scripts into one (height, outpoint) order and pages the merge', () => {
    const chain = randomChain(5, { blocks: 60, scripts: 4 });
    store = open();
    store.setUtxoList(true);
    store.applyBlocks(chain);
    const keys = (store.db.prepare('SELECT script_key FROM scripts ORDER BY script_key').pluck().all() as Buffer[]).slice(0, 3);
    const want = (
      store.db
        .prepare(`SELECT height, outpoint FROM utxos NOT INDEXED WHERE script_key IN (?, ?, ?) ORDER BY height, outpoint`)
        .all(...keys) as { height: number; outpoint: Buffer }[]
    ).map((r) => `${r.height} ${r.outpoint.toString('hex')}`);
    const pager = new UtxoPager(store.db);
    const got: string[] = [];
    let after: UtxoPosition | null = null;
    do {
      const page = pager.read({ keys, after, limit: 4, mempool: false, check: () => undefined });
      if (page.kind !== 'page') throw new Error(page.kind);
      got.push(...page.rows.map((r) => `${r.height} ${r.outpoint.toString('hex')}`));
      after = page.next;
    } while (after !== null);
    expect(got).toEqual(want);
  });

  it('enabling on an existing index equals a fresh build; off removes it; verify sees a flag without its index', () => {
    const chain = randomChain(7, { blocks: 90, scripts: 8 });
    const fresh = open();
    fresh.setUtxoList(true);
    fresh.applyBlocks(chain);
    store = open();
    store.applyBlocks(chain);
    expect(utxoListIndexExists(store.db)).toBe(false);
    const events: UtxoListEvent[] = [];
    store.setUtxoList(true, (e) => events.push(e));
    expect(events.map((e) => e.kind)).toEqual(['building', ...ALL_SHARDS.map(() => 'shard'), 'built']);
    const entries = (s: ChainStore): unknown[] => [...listedEntries(s.db)];
    expect(entries(store)).toEqual(entries(fresh));
    fresh.close();
    checkListing(store, chain);
    store.setUtxoList(true, (e) => events.push(e));
    expect(events).toHaveLength(UTXO_LIST_SHARDS + 2); // already on: nothing to do
    store.db.exec(`DROP INDEX ${shardIndexName(9)}`);
    expect(verifyUtxoList(store.db)).toHaveLength(1);
    store.setUtxoList(false);
    expect(utxoListShards(store.db).length > 0 || utxoListRecorded(store.db)).toBe(false);
    expect(
      new UtxoPager(store.db).read({
        keys: [scriptKey(Buffer.from('00', 'hex'))],
        after: null,
        limit: 5,
        mempool: false,
        check: () => undefined,
      }).kind,
    ).toBe('off');
    expect(verifyUtxoList(store.db)).toEqual([]);
  });

  it('a snapshot load drops the listing first, so that it is built in bulk afterwards, with unknown coinbase flags below the base', () => {
    store = open();
    store.setUtxoList(true);
    const key = (n: number): Buffer => scriptKey(Buffer.from([0x51, n]));
    // Rows ascending by txid (the append path), two scripts.
    const rows = (): unknown[][] =>
      Array.from({ length: 40 }, (_, i) => [outpointKey(Buffer.alloc(32, i + 1), i % 3), key(i % 2), 1000 + i, 10 + (i % 7)]);
    store.loadSnapshot(rows, { height: 50, hash: Buffer.alloc(32, 0xbb), prevHash: Buffer.alloc(32, 0xba) });
    expect(utxoListShards(store.db).length > 0 || utxoListRecorded(store.db)).toBe(false);
    store.setUtxoList(true);
    expect(verifyUtxoList(store.db)).toEqual([]);
    const page = new UtxoPager(store.db).read({ keys: [key(0)], after: null, limit: 100, mempool: false, check: () => undefined });
    if (page.kind !== 'page') throw new Error(page.kind);
    expect(page.rows).toHaveLength(20);
    expect(page.rows.map((r) => r.height)).toEqual([...page.rows.map((r) => r.height!)].sort((a, b) => a - b));
    expect(page.rows.every((r) => r.coinbase === null)).toBe(true);
  });

  it('reports each shard as it is built, and builds only the missing shards after an interruption', () => {
    const chain = randomChain(11, { blocks: 70, scripts: 40 });
    store = open();
    store.applyBlocks(chain);
    const events: UtxoListEvent[] = [];
    store.setUtxoList(true, (e) => events.push(e));
    const total = store.totals().utxos;
    const shardEvents = events.filter((e) => e.kind === 'shard');
    expect(events[0]).toEqual({ kind: 'building', utxos: total, shards: UTXO_LIST_SHARDS, of: UTXO_LIST_SHARDS });
    expect(shardEvents.map((e) => [e.shard, e.built, e.of, e.total])).toEqual(ALL_SHARDS.map((k) => [k, k + 1, 16, total]));
    // UTXOs so far: the exact sum of the shards built, from the table itself.
    const inShard = (k: number): number =>
      (store!.db.prepare('SELECT script_key FROM utxos NOT INDEXED').pluck().all() as Buffer[]).filter((key) => shardOf(key) <= k).length;
    for (const e of shardEvents) expect(e.utxos).toBe(inShard(e.shard));
    expect(events.at(-1)).toMatchObject({ kind: 'built', utxos: total });
    // A build interrupted with shards 3 and 9 missing (as a kill leaves it: no flag).
    store.db.exec(`DROP INDEX ${shardIndexName(3)}; DROP INDEX ${shardIndexName(9)}; DELETE FROM meta WHERE key = 'utxo_list'`);
    expect(verifyUtxoList(store.db)).toEqual([]);
    expect(
      new UtxoPager(store.db).read({ keys: [Buffer.alloc(16)], after: null, limit: 1, mempool: false, check: () => undefined }).kind,
    ).toBe('off');
    events.length = 0;
    store.setUtxoList(true, (e) => events.push(e));
    expect(events.filter((e) => e.kind === 'shard').map((e) => (e.kind === 'shard' ? [e.shard, e.built] : null))).toEqual([
      [3, 15],
      [9, 16],
    ]);
    expect(events[0]).toMatchObject({ kind: 'building', shards: 2 });
    expect(utxoListIndexExists(store.db) && utxoListRecorded(store.db)).toBe(true);
    checkListing(store, chain);
  });

  it("reads a page through its key's shard, and a statement without the shard's terms fails to prepare", () => {
    store = open();
    store.setUtxoList(true);
    for (const k of ALL_SHARDS) {
      const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${confirmedPageSql(k)}`).all(Buffer.from([k << 4]), 0, Buffer.alloc(0), 10) as {
        detail: string;
      }[];
      expect(plan.map((p) => p.detail).join('\n')).toMatch(new RegExp(`USING INDEX ${shardIndexName(k)} \\(script_key=\\? AND`));
    }
    expect(() => store!.db.prepare(`SELECT outpoint FROM utxos INDEXED BY ${shardIndexName(5)} WHERE script_key = ?`)).toThrow(
      /no query solution/,
    );
    // The key's first byte picks the shard: 0x5f and 0x60 sit on either side of a bound.
    expect([0x00, 0x0f, 0x5f, 0x60, 0xf0, 0xff].map((b) => shardOf(Buffer.from([b])))).toEqual([0, 0, 5, 6, 15, 15]);
  });

  it('replaces the single index of the earlier build by the shards, keeping the cursor secret', () => {
    const chain = randomChain(13, { blocks: 50, scripts: 10 });
    store = open();
    store.applyBlocks(chain);
    // What the unreleased single-index build left: the index, the flag, the secret.
    const secret = Buffer.alloc(32, 7);
    store.db.exec(`CREATE INDEX ${LEGACY_UTXO_LIST_INDEX} ON utxos (script_key, height, outpoint)`);
    store.db.prepare("INSERT INTO meta (key, value) VALUES ('utxo_list', 1), ('utxo_list_secret', ?)").run(secret);
    expect(verifyUtxoList(store.db)).toHaveLength(2);
    store.setUtxoList(true);
    expect(legacyUtxoListIndexExists(store.db)).toBe(false);
    expect(utxoListShards(store.db)).toEqual(ALL_SHARDS);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'utxo_list_secret'").pluck().get()).toEqual(secret);
    checkListing(store, chain);
    // Off drops a leftover single index too.
    store.db.exec(`CREATE INDEX ${LEGACY_UTXO_LIST_INDEX} ON utxos (script_key, height, outpoint)`);
    store.setUtxoList(false);
    expect(legacyUtxoListIndexExists(store.db) || utxoListShards(store.db).length > 0 || utxoListRecorded(store.db)).toBe(false);
  });
});
