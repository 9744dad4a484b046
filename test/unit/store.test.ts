import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toDisplayHex } from '../../src/chain/hash.js';
import { isMwebProgram } from '../../src/chain/ltc/mweb-program.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/migrate.js';
import {
  ChainBuilder,
  Rng,
  coinbaseTx,
  emptyScript,
  hogAddr,
  mwebPegin,
  opReturn,
  oversized,
  p2pkh,
  p2wpkh,
  randomChain,
  spendTx,
} from '../support/blocks.js';
import { dumpTables, scriptRows, utxoRows } from '../support/store-dump.js';
import { UtxoModel } from '../support/utxo-model.js';
import { expectStoreError } from '../support/expect-store-error.js';

const OPTS = { chain: 'BTC', network: 'regtest' } as const;

/** Balance and count of a script straight from the aggregate row (0/0 when absent). */
function agg(store: ChainStore, script: Buffer): { balance: number; count: number } {
  const row = store.db.prepare('SELECT balance, utxo_count FROM scripts WHERE script_key = ?').get(scriptKey(script)) as
    { balance: number; utxo_count: number } | undefined;
  return { balance: row?.balance ?? 0, count: row?.utxo_count ?? 0 };
}

function expectConsistent(store: ChainStore, model?: UtxoModel): void {
  const report = verifyAggregates(store.db);
  expect(report.differences).toEqual([]);
  expect(verifyChain(store.db)).toEqual([]);
  expect(store.totals()).toEqual({ utxos: report.utxos, amount: report.amount, scripts: report.scripts });
  if (model) {
    expect(utxoRows(store.db)).toEqual(model.utxoRows());
    expect(scriptRows(store.db)).toEqual(model.scriptRows());
    expect(store.totals()).toEqual(model.totals());
  }
}

describe('ChainStore on :memory:', () => {
  let store: ChainStore;
  const rng = new Rng(7);
  beforeEach(() => {
    store = ChainStore.open(':memory:', OPTS);
  });
  afterEach(() => store.close());

  it('starts empty and records chain and schema', () => {
    expect(store.tip()).toBeNull();
    expect(store.totals()).toEqual({ utxos: 0, amount: 0n, scripts: 0 });
    const meta = store.db.prepare("SELECT key, value FROM meta WHERE key IN ('chain','network','schema_version')").all();
    expect(meta).toEqual(
      expect.arrayContaining([
        { key: 'chain', value: 'BTC' },
        { key: 'network', value: 'regtest' },
        { key: 'schema_version', value: SCHEMA_VERSION },
      ]),
    );
  });

  it('the genesis block adds nothing, but becomes the tip', () => {
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    store.applyBlocks([c.blockPaying(a, 50_0000_0000)]);
    expect(store.tip()).toEqual({ height: 0, hash: c.blocks[0]!.hash });
    expect(agg(store, a)).toEqual({ balance: 0, count: 0 });
    expect(store.totals()).toEqual({ utxos: 0, amount: 0n, scripts: 0 });
    expect(store.hashAt(0)).toEqual(c.blocks[0]!.hash);
    expect(store.hashAt(1)).toBeNull();
  });

  it('keeps aggregates equal to sums, spends within a block and skips unspendable outputs', () => {
    const c = new ChainBuilder(rng);
    const [a, b, d] = [p2pkh(rng), p2wpkh(rng), p2wpkh(rng)];
    c.blockPaying(a, 1); // genesis
    const b1 = c.blockPaying(a, 5000, []);
    const cb1 = b1.txs[0]!.txid;
    // Block 2: spend a's coin to b (two outputs) + OP_RETURN + oversized + empty script, then spend
    // one of the new outputs again in the same block.
    const t1 = spendTx(
      [{ txid: cb1, vout: 0 }],
      [
        { script: b, value: 1000 },
        { script: b, value: 2500 },
        { script: opReturn(), value: 7 },
        { script: oversized(), value: 11 },
        { script: emptyScript(), value: 13 },
        { script: d, value: 1469 },
      ],
    );
    const t2 = spendTx([{ txid: t1.txid, vout: 1 }], [{ script: d, value: 2400 }]);
    const b2 = c.block([
      coinbaseTx([
        { script: a, value: 300 },
        { script: opReturn(Buffer.alloc(32)), value: 0 },
      ]),
      t1,
      t2,
    ]);
    store.applyBlocks([c.blocks[0]!, b1]);
    expect(agg(store, a)).toEqual({ balance: 5000, count: 1 });
    store.applyBlocks([b2]);
    expect(agg(store, a)).toEqual({ balance: 300, count: 1 });
    expect(agg(store, b)).toEqual({ balance: 1000, count: 1 });
    expect(agg(store, d)).toEqual({ balance: 1469 + 2400, count: 2 });
    // An empty scriptPubKey is spendable (anyone-can-spend): it is a UTXO, not skipped.
    expect(agg(store, emptyScript())).toEqual({ balance: 13, count: 1 });
    expect(agg(store, opReturn())).toEqual({ balance: 0, count: 0 });
    expect(agg(store, oversized())).toEqual({ balance: 0, count: 0 });
    expect(store.totals()).toEqual({ utxos: 5, amount: BigInt(300 + 1000 + 1469 + 2400 + 13), scripts: 4 });
    const model = new UtxoModel();
    c.blocks.forEach((blk) => model.apply(blk));
    expectConsistent(store, model);
  });

  it('a script row disappears when its last UTXO is spent', () => {
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    c.blockPaying(a, 1);
    const b1 = c.blockPaying(a, 100);
    c.block([
      coinbaseTx([{ script: p2pkh(rng), value: 1 }]),
      spendTx([{ txid: b1.txs[0]!.txid, vout: 0 }], [{ script: opReturn(), value: 100 }]),
    ]);
    store.applyBlocks(c.blocks);
    expect(store.db.prepare('SELECT COUNT(*) FROM scripts WHERE script_key = ?').pluck().get(scriptKey(a))).toBe(0);
    expectConsistent(store);
  });

  it('BIP30: a repeated coinbase txid overwrites the unspent outpoint and counts once', () => {
    const c = new ChainBuilder(rng);
    const [a, b] = [p2pkh(rng), p2pkh(rng)];
    c.blockPaying(a, 1);
    const dup = rng.bytes(32);
    c.block([coinbaseTx([{ script: a, value: 50 }], dup)]); // like 91812
    c.blockPaying(b, 7);
    c.block([coinbaseTx([{ script: a, value: 50 }], dup)]); // like 91842, same txid
    store.applyBlocks(c.blocks.slice(0, 3));
    const before = store.totals();
    store.applyBlocks([c.blocks[3]!]);
    expect(agg(store, a)).toEqual({ balance: 50, count: 1 });
    expect(store.totals()).toEqual(before);
    // The surviving coin is the newer one (Core keeps the overwriting coin's height).
    expect(store.db.prepare('SELECT height FROM utxos').pluck().all()).toEqual(expect.arrayContaining([3]));
    const model = new UtxoModel();
    c.blocks.forEach((blk) => model.apply(blk));
    expectConsistent(store, model);
    // Rolling the duplicate back restores the original coin at height 1.
    store.rollbackTip();
    expect(agg(store, a)).toEqual({ balance: 50, count: 1 });
    expect(utxoRows(store.db).some((r) => r.startsWith(`${dup.toString('hex')}:0`) && r.endsWith(' 1'))).toBe(true);
    expectConsistent(store);
  });

  it('BIP30 within one batch, and a repeat of an already spent coinbase', () => {
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    c.blockPaying(a, 1);
    const dup = rng.bytes(32);
    c.block([coinbaseTx([{ script: a, value: 50 }], dup)]);
    c.block([coinbaseTx([{ script: a, value: 60 }], dup)]); // overwrite of a coin pending in the batch
    c.block([coinbaseTx([{ script: a, value: 1 }]), spendTx([{ txid: dup, vout: 0 }], [{ script: p2pkh(rng), value: 60 }])]);
    c.block([coinbaseTx([{ script: a, value: 70 }], dup)]); // repeat after the spend: a fresh coin
    store.applyBlocks(c.blocks);
    expect(agg(store, a)).toEqual({ balance: 71, count: 2 });
    const model = new UtxoModel();
    c.blocks.forEach((blk) => model.apply(blk));
    expectConsistent(store, model);
  });

  it('MWEB peg-ins and HogAddr outputs are UTXOs of their own script; HogEx spends them; peg-outs are ordinary', () => {
    const c = new ChainBuilder(rng);
    const [user, dest] = [p2wpkh(rng), p2pkh(rng)];
    const [pegin, hog1, hog2] = [mwebPegin(rng), hogAddr(rng), hogAddr(rng)];
    c.blockPaying(user, 1);
    const b1 = c.blockPaying(user, 1000);
    const pegTx = spendTx(
      [{ txid: b1.txs[0]!.txid, vout: 0 }],
      [
        { script: pegin, value: 600 },
        { script: user, value: 400 },
      ],
    );
    const hogEx1 = spendTx([{ txid: pegTx.txid, vout: 0 }], [{ script: hog1, value: 600 }], { hogEx: true });
    c.block([coinbaseTx([{ script: user, value: 5 }]), pegTx, hogEx1]);
    expect(isMwebProgram(pegin) && isMwebProgram(hog1)).toBe(true);
    const hogEx2 = spendTx(
      [{ txid: hogEx1.txid, vout: 0 }],
      [
        { script: hog2, value: 350 },
        { script: dest, value: 250 },
      ],
      { hogEx: true },
    );
    c.block([coinbaseTx([{ script: user, value: 5 }]), hogEx2]);
    store.applyBlocks(c.blocks.slice(0, 3));
    expect(agg(store, pegin)).toEqual({ balance: 0, count: 0 }); // spent by the HogEx in its own block
    expect(agg(store, hog1)).toEqual({ balance: 600, count: 1 });
    store.applyBlocks([c.blocks[3]!]);
    expect(agg(store, hog1)).toEqual({ balance: 0, count: 0 });
    expect(agg(store, hog2)).toEqual({ balance: 350, count: 1 });
    expect(agg(store, dest)).toEqual({ balance: 250, count: 1 });
    // gettxoutsetinfo counts the HogAddr output: so do the totals.
    expect(store.totals()).toEqual({ utxos: 5, amount: BigInt(400 + 5 + 5 + 350 + 250), scripts: 3 });
    expectConsistent(store);
  });

  it('a spend of a missing outpoint is MISSING_UTXO and writes nothing', () => {
    const c = new ChainBuilder(rng);
    c.blockPaying(p2pkh(rng), 1);
    c.blockPaying(p2pkh(rng), 10);
    store.applyBlocks(c.blocks);
    const before = dumpTables(store.db);
    const bad = c.block([
      coinbaseTx([{ script: p2pkh(rng), value: 1 }]),
      spendTx([{ txid: rng.bytes(32), vout: 3 }], [{ script: p2pkh(rng), value: 1 }]),
    ]);
    const err = expectStoreError(() => store.applyBlocks([bad]), 'MISSING_UTXO');
    expect(err.message).toMatch(/block 2 spends [0-9a-f]{64}:3/);
    expect(dumpTables(store.db)).toEqual(before);
    expect(store.tip()!.height).toBe(1);
  });

  it('spending the same outpoint twice in a batch is MISSING_UTXO', () => {
    const c = new ChainBuilder(rng);
    c.blockPaying(p2pkh(rng), 1);
    const b1 = c.blockPaying(p2pkh(rng), 10);
    const ref = { txid: b1.txs[0]!.txid, vout: 0 };
    c.block([coinbaseTx([{ script: p2pkh(rng), value: 1 }]), spendTx([ref], [{ script: p2pkh(rng), value: 10 }])]);
    c.block([coinbaseTx([{ script: p2pkh(rng), value: 1 }]), spendTx([ref], [{ script: p2pkh(rng), value: 10 }])]);
    expectStoreError(() => store.applyBlocks(c.blocks), 'MISSING_UTXO');
    expect(store.tip()).toBeNull();
    expect(store.db.prepare('SELECT COUNT(*) FROM blocks').pluck().get()).toBe(0);
  });

  it('refuses blocks that do not extend the tip (NOT_CONNECTED)', () => {
    const c = new ChainBuilder(rng);
    c.blockPaying(p2pkh(rng), 1);
    c.blockPaying(p2pkh(rng), 1);
    c.blockPaying(p2pkh(rng), 1);
    expectStoreError(() => store.applyBlocks([c.blocks[1]!]), 'NOT_CONNECTED'); // empty store needs height 0
    store.applyBlocks([c.blocks[0]!]);
    expectStoreError(() => store.applyBlocks([c.blocks[2]!]), 'NOT_CONNECTED'); // gap
    expectStoreError(() => store.applyBlocks([{ ...c.blocks[1]!, prevHash: rng.bytes(32) }]), 'NOT_CONNECTED');
    expectStoreError(() => store.applyBlocks([c.blocks[1]!, { ...c.blocks[2]!, prevHash: rng.bytes(32) }]), 'NOT_CONNECTED');
    store.applyBlocks([c.blocks[1]!, c.blocks[2]!]);
    expect(store.tip()!.height).toBe(2);
    store.applyBlocks([]);
    expect(store.tip()!.height).toBe(2);
  });

  it('rollback returns exactly the previous state, block by block, down to empty', () => {
    const chain = randomChain(11, { blocks: 40, txsPerBlock: 12, scripts: 15, mweb: true, bip30: { at: 30, of: 25 } });
    const states: Record<string, string[]>[] = [dumpTables(store.db)];
    for (const b of chain) {
      store.applyBlocks([b]);
      states.push(dumpTables(store.db));
    }
    expectConsistent(store);
    for (let h = chain.length - 1; h >= 0; h--) {
      const tip = store.rollbackTip();
      expect(tip === null ? -1 : tip.height).toBe(h - 1);
      expect(dumpTables(store.db)).toEqual(states[h]);
      if (h % 7 === 0) expectConsistent(store);
    }
    expect(store.tip()).toBeNull();
    expectStoreError(() => store.rollbackTip(), 'EMPTY');
  });

  it('batches give the same state as single blocks; rollback of a batch-applied tip works', () => {
    const chain = randomChain(12, { blocks: 60, txsPerBlock: 15, scripts: 10, mweb: true });
    store.applyBlocks(chain.slice(0, 25));
    store.applyBlocks(chain.slice(25, 26));
    store.applyBlocks(chain.slice(26));
    const other = ChainStore.open(':memory:', OPTS);
    try {
      for (const b of chain) other.applyBlocks([b]);
      expect(dumpTables(store.db)).toEqual(dumpTables(other.db));
      const model = new UtxoModel();
      chain.forEach((b) => model.apply(b));
      expectConsistent(store, model);
      for (let i = 0; i < 10; i++) {
        store.rollbackTip();
        other.rollbackTip();
      }
      expect(dumpTables(store.db)).toEqual(dumpTables(other.db));
      const m2 = new UtxoModel();
      chain.slice(0, 50).forEach((b) => m2.apply(b));
      expectConsistent(store, m2);
    } finally {
      other.close();
    }
  });

  it('reapplying after a rollback, and a competing branch, match a fresh index of that chain', () => {
    const chain = randomChain(13, { blocks: 30, txsPerBlock: 8, scripts: 12 });
    store.applyBlocks(chain);
    for (let i = 0; i < 5; i++) store.rollbackTip();
    // Competing branch on top of height 24: new coinbases only.
    const fork = new ChainBuilder(rng);
    chain.slice(0, 25).forEach((b) => fork.blocks.push(b));
    for (let i = 0; i < 6; i++) fork.blockPaying(p2pkh(rng), 1000 + i);
    store.applyBlocks(fork.blocks.slice(25));
    const model = new UtxoModel();
    fork.blocks.forEach((b) => model.apply(b));
    expectConsistent(store, model);
    expect(store.tip()).toEqual({ height: 30, hash: fork.blocks[30]!.hash });
  });
});

describe('undo window', () => {
  it('keeps undo for the last N blocks only and refuses deeper rollbacks with NO_UNDO', () => {
    const store = ChainStore.open(':memory:', { ...OPTS, undoDepth: 5 });
    try {
      const chain = randomChain(21, { blocks: 20, txsPerBlock: 5 });
      store.applyBlocks(chain.slice(0, 12)); // batch: only its last 5 blocks get undo rows
      expect(store.db.prepare('SELECT height FROM undo ORDER BY height').pluck().all()).toEqual([7, 8, 9, 10, 11]);
      for (const b of chain.slice(12)) store.applyBlocks([b]);
      expect(store.db.prepare('SELECT height FROM undo ORDER BY height').pluck().all()).toEqual([15, 16, 17, 18, 19]);
      for (let i = 0; i < 5; i++) store.rollbackTip();
      expect(store.tip()!.height).toBe(14);
      const err = expectStoreError(() => store.rollbackTip(), 'NO_UNDO');
      expect(err.message).toMatch(/block 14 .*last 5 blocks/);
      const model = new UtxoModel();
      chain.slice(0, 15).forEach((b) => model.apply(b));
      expectConsistent(store, model);
    } finally {
      store.close();
    }
  });

  it('undoDepth 0 keeps no undo at all', () => {
    const store = ChainStore.open(':memory:', { ...OPTS, undoDepth: 0 });
    try {
      store.applyBlocks(randomChain(22, { blocks: 3 }));
      expect(store.db.prepare('SELECT COUNT(*) FROM undo').pluck().get()).toBe(0);
      expectStoreError(() => store.rollbackTip(), 'NO_UNDO');
    } finally {
      store.close();
    }
  });
});

describe('on a file, with a reader', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'addrsum-store-'));
    path = join(dir, 'btc.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('persists across reopen; the reader answers summaries and status at the tip', () => {
    const rng = new Rng(31);
    const c = new ChainBuilder(rng);
    const a = p2wpkh(rng);
    c.blockPaying(a, 1);
    c.blockPaying(a, 700);
    c.blockPaying(a, 300);
    let store = ChainStore.open(path, OPTS);
    store.applyBlocks(c.blocks.slice(0, 2));
    store.close();
    store = ChainStore.open(path, OPTS);
    expect(store.tip()).toEqual({ height: 1, hash: c.blocks[1]!.hash });
    expect(store.totals()).toEqual({ utxos: 1, amount: 700n, scripts: 1 });
    const reader = ChainReader.open(path);
    try {
      expect(reader.chain).toBe('BTC');
      expect(reader.network).toBe('regtest');
      expect(reader.summary(a)).toEqual({
        balanceSats: 700n,
        utxoCount: 1,
        tipHeight: 1,
        tipHash: toDisplayHex(c.blocks[1]!.hash),
        nodeHeight: null,
        nodeSeenAt: null,
        tipTime: null,
      });
      store.applyBlocks([c.blocks[2]!]);
      expect(reader.summary(a)).toEqual({
        balanceSats: 1000n,
        utxoCount: 2,
        tipHeight: 2,
        tipHash: toDisplayHex(c.blocks[2]!.hash),
        nodeHeight: null,
        nodeSeenAt: null,
        tipTime: null,
      });
      expect(reader.summary(p2pkh(rng))).toEqual({
        balanceSats: 0n,
        utxoCount: 0,
        tipHeight: 2,
        tipHash: toDisplayHex(c.blocks[2]!.hash),
        nodeHeight: null,
        nodeSeenAt: null,
        tipTime: null,
      });
      expect(reader.status()).toEqual({
        tipHeight: 2,
        tipHash: toDisplayHex(c.blocks[2]!.hash),
        nodeHeight: null,
        nodeSeenAt: null,
        tipTime: null,
      });
      const at = new Date('2025-01-02T03:04:05.678Z');
      store.setNodeHeight(10, at);
      expect(reader.status()).toEqual({
        tipHeight: 2,
        tipHash: toDisplayHex(c.blocks[2]!.hash),
        nodeHeight: 10,
        nodeSeenAt: at,
        tipTime: null,
      });
      // The address answer carries the node height from the same statement (the API's lag check).
      expect(reader.summary(a)).toMatchObject({ tipHeight: 2, nodeHeight: 10 });
      store.rollbackTip();
      expect(reader.summary(a)).toMatchObject({ balanceSats: 700n, utxoCount: 1, tipHeight: 1 });
    } finally {
      reader.close();
      store.close();
    }
    // Readable after the writer closed (WAL files gone), and still read-only.
    const again = ChainReader.open(path);
    try {
      expect(again.summary(a)).toMatchObject({ balanceSats: 700n, tipHeight: 1 });
      expect(() => again.db.prepare("INSERT INTO meta VALUES ('x', 1)").run()).toThrow(/readonly/);
    } finally {
      again.close();
    }
  });

  it('summary reads balance and tip in one statement that does one primary-key search of scripts', () => {
    const store = ChainStore.open(path, OPTS);
    store.close();
    const reader = ChainReader.open(path);
    try {
      expect(reader.summary(p2pkh())).toBeNull(); // nothing indexed yet
      expect(reader.status()).toBeNull();
      const plan = reader.db
        .prepare(`EXPLAIN QUERY PLAN ${(reader as unknown as { summaryStmt: { source: string } }).summaryStmt.source}`)
        .all(Buffer.alloc(16)) as { detail: string }[];
      const scriptsSteps = plan.filter((p) => /\bs\b|scripts/.test(p.detail)).map((p) => p.detail);
      expect(scriptsSteps).toEqual([expect.stringMatching(/SEARCH s USING PRIMARY KEY \(script_key=\?\)/)]);
      expect(plan.some((p) => /SCAN (s|scripts)\b/.test(p.detail))).toBe(false);
    } finally {
      reader.close();
    }
  });

  it('a reader keeps a consistent tip + balance while the writer commits (every answer matches one commit)', () => {
    const rng = new Rng(32);
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    c.blockPaying(a, 1);
    for (let h = 1; h <= 60; h++) c.blockPaying(a, h); // balance at tip h = h(h+1)/2
    const store = ChainStore.open(path, OPTS);
    const reader = ChainReader.open(path);
    try {
      store.applyBlocks([c.blocks[0]!]);
      for (let h = 1; h <= 60; h++) {
        store.applyBlocks([c.blocks[h]!]);
        const s = reader.summary(a)!;
        expect(Number(s.balanceSats)).toBe((s.tipHeight * (s.tipHeight + 1)) / 2);
        expect(s.utxoCount).toBe(s.tipHeight);
      }
    } finally {
      reader.close();
      store.close();
    }
  });

  it('refuses another chain or network (CHAIN_MISMATCH) and a missing file (NO_DATABASE)', () => {
    ChainStore.open(path, OPTS).close();
    expect(expectStoreError(() => ChainStore.open(path, { chain: 'LTC', network: 'regtest' }), 'CHAIN_MISMATCH').message).toContain(path);
    expectStoreError(() => ChainStore.open(path, { chain: 'BTC', network: 'mainnet' }), 'CHAIN_MISMATCH');
    ChainStore.open(path, OPTS).close(); // the refusals released the lock
    expectStoreError(() => ChainReader.open(join(dir, 'nope.sqlite')), 'NO_DATABASE');
  });
});
