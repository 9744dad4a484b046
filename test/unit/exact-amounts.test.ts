/**
 * Issue 32, exact amounts: sums past 2^53 satoshis go through the store and the API with every digit.
 * A regtest chain cannot reach them, so the index state is built directly: a real SQLite index with one
 * block, whose `scripts` rows (and meta total) are then set to lifetime-sum-sized values. The answers
 * are checked as raw text: JSON.parse would round the very digits under test.
 *
 * Not through the OpenAPI validator: its schema bounds a balance by the supply, which these values
 * (standing in for lifetime sums) pass on purpose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { openSqliteReader, type SqliteIndexReader } from '../../src/store/sqlite/engine.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';
import { buildWorld, type FakeIndex, type World } from '../support/api-world.js';
import { ChainBuilder } from '../support/blocks.js';

// BIP84's account 0 key and its first receive and change addresses (as in api-xpub.test.ts).
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const RECEIVE_0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const CHANGE_0 = 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el';

/** 2^53 + 12345 and 2^53 + 1: neither is a double; their sum passes 2^54. */
const A_SATS = 9_007_199_254_753_337n;
const B_SATS = 9_007_199_254_740_993n;
const SUM = A_SATS + B_SATS; // 18014398509494330
/** A mempool delta past -2^53 on A. */
const A_DELTA = -9_007_199_254_740_995n;

const scriptOf = (address: string): Buffer => {
  const r = addressToScript(chainParams('BTC', 'mainnet'), address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script);
};
const A = scriptOf(RECEIVE_0);
const B = scriptOf(CHANGE_0);

let dir: string;
let file: string;

/** A BTC index at height 1 whose two scripts hold A_SATS and B_SATS, meta's total their sum, and a mempool delta on A. */
function buildIndex(): void {
  const store = ChainStore.open(file, { chain: 'BTC', network: 'mainnet' });
  try {
    const c = new ChainBuilder();
    store.applyBlocks([c.block([]), c.blockPaying(A, 1000), c.blockPaying(B, 2000)]);
    const set = store.db.prepare('UPDATE scripts SET balance = ? WHERE script_key = ?');
    set.run(A_SATS, scriptKey(A));
    set.run(B_SATS, scriptKey(B));
    store.db.prepare("UPDATE meta SET value = ? WHERE key = 'utxo_amount'").run(SUM);
    store.db
      .prepare('INSERT INTO mempool_scripts (script_key, received, sent, utxo_count, tx_count) VALUES (?, 0, ?, ?, ?)')
      .run(scriptKey(A), -A_DELTA, -1, 1);
  } finally {
    store.close();
  }
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-exact-'));
  file = path.join(dir, 'btc.sqlite');
  buildIndex();
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the store keeps sums past 2^53 exact', () => {
  it('the reader answers every digit, by summary and by views', async () => {
    const reader = openSqliteReader(file);
    try {
      expect((await reader.summary(A))?.balanceSats).toBe(A_SATS);
      const views = await reader.views([A, B], true);
      expect(views?.items.map((v) => v.balanceSats)).toEqual([A_SATS, B_SATS]);
      expect(views?.items[0]?.unconfirmed).toEqual({ balanceSats: A_DELTA, utxoCount: -1, txCount: 1 });
      expect(views?.items.map((v) => v.utxoCount)).toEqual([1, 1]);
      expect(views?.tipHeight).toBe(2);
    } finally {
      await reader.close();
    }
  });

  it('the writer reopens with the exact total, and the verifier compares and reports exactly', () => {
    const store = ChainStore.open(file, { chain: 'BTC', network: 'mainnet' });
    try {
      expect(store.totals()).toEqual({ utxos: 2, amount: SUM, scripts: 2 });
      // meta's total equals the sum over scripts to the last digit: no utxo_amount problem.
      expect(verifyChain(store.db)).toEqual([]);
      store.db.prepare("UPDATE meta SET value = ? WHERE key = 'utxo_amount'").run(SUM + 1n);
      expect(verifyChain(store.db).join('\n')).toContain(`meta utxo_amount ${SUM + 1n} differs from the sum over scripts ${SUM}`);
      const report = verifyAggregates(store.db);
      const stored = report.differences.map((d) => d.stored?.balance).sort();
      expect(stored).toEqual([A_SATS, B_SATS].sort());
    } finally {
      store.close();
    }
  });
});

describe('the API writes sums past 2^53 with every digit', () => {
  let world: World;
  let reader: SqliteIndexReader;
  let key: string;

  beforeEach(() => {
    world = buildWorld();
    reader = openSqliteReader(file);
    // The world's BTC source becomes the real index (its handle reads world.index.BTC on every request).
    world.index.BTC = reader as unknown as FakeIndex;
    key = world.createKey('private').key;
  });

  afterEach(async () => {
    await reader.close();
    world.cleanup();
  });

  const get = (url: string) => request(world.app).get(url).set('x-api-key', key);

  it('the single address route', async () => {
    const r = await get(`/api/v1/btc/address/${RECEIVE_0}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('"balanceSatoshi":9007199254753337,"balance":90071992.54753337,"utxoCount":1');
  });

  it('the single address route with the mempool: a negative delta past -2^53', async () => {
    const r = await get(`/api/v1/btc/address/${RECEIVE_0}?mempool=true`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(
      '"balanceSatoshi":9007199254753337,"balance":90071992.54753337,"utxoCount":1,' +
        '"unconfirmed":{"balanceSatoshi":-9007199254740995,"balance":-90071992.54740995,"utxoCount":-1,"txCount":1}',
    );
  });

  it('the batch route', async () => {
    const r = await request(world.app)
      .post('/api/v1/btc/addresses')
      .set('x-api-key', key)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ addresses: [RECEIVE_0, CHANGE_0] }));
    expect(r.status).toBe(200);
    expect(r.text).toContain('"balanceSatoshi":9007199254753337,"balance":90071992.54753337');
    expect(r.text).toContain('"balanceSatoshi":9007199254740993,"balance":90071992.54740993');
  });

  it('a wallet: the sum over its scripts passes 2^54, as do its listed entries', async () => {
    const r = await get(`/api/v1/btc/xpub/${ZPUB}?range=1&details=funded`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('"balanceSatoshi":18014398509494330,"balance":180143985.09494330,"utxoCount":2,"fundedAddresses":2');
    expect(r.text).toContain('"balanceSatoshi":9007199254753337,"balance":90071992.54753337');
    expect(r.text).toContain('"balanceSatoshi":9007199254740993,"balance":90071992.54740993');
  });

  it('a wallet with the mempool: the summed delta keeps its sign and digits', async () => {
    const r = await get(`/api/v1/btc/xpub/${ZPUB}?range=1&mempool=true`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('"unconfirmed":{"balanceSatoshi":-9007199254740995,"balance":-90071992.54740995,"utxoCount":-1}');
  });
});
