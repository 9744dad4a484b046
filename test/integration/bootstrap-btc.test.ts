/**
 * The real indexer process bootstrapped from Core-format (v2) snapshots, against a bitcoind stand-in
 * serving a chain this test builds (expected balances come from the builder's own UTXO model):
 * - a snapshot of the chain's UTXO set at its tip → every address equals the model; then 10 more blocks
 *   and a 3-block reorg are followed, `npm run verify` passes, and a reorg below the base is refused clearly;
 * - bad files (truncated, wrong magic, version, network, count, unknown base block) → one-line error,
 *   exit code ≠ 0, and no index the API would serve;
 * - SIGKILL at three points of a bootstrap, then a restart → exactly the uninterrupted result; a start
 *   after a kill resumes from the chunks the load had committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { fromDisplayHex } from '../../src/chain/hash.js';
import { chainParams } from '../../src/chain/params.js';
import { coreGroup, coreHeader, type SnapshotOutputIn } from '../../src/chain/snapshot-writer.js';
import { chainDbPath } from '../../src/store/paths.js';
import { writeSyntheticSnapshot } from '../../bench/scale-snapshot.js';
import { BtcChain } from '../support/btc-chain.js';
import { startFakeNode, type FakeNode } from '../support/fake-node.js';
import { checkIndex, indexedTip, type Expected } from '../../harness/index-check.js';
import { runVerifyCli, makeDataDir, startIndexer, waitFor, type IndexerProcess } from '../../harness/indexer-process.js';

const params = chainParams('BTC', 'regtest');
const REGTEST_MAGIC = 'fabfb5da';

function expectations(chain: BtcChain): Expected[] {
  const out: Expected[] = [];
  for (const a of chain.addresses()) {
    const decoded = addressToScript(params, a.address);
    if (!decoded.ok) throw new Error(`builder address ${a.address} does not decode`);
    const b = chain.balanceOf(decoded.script.toString('hex'));
    out.push({ label: `${a.kind} ${a.address}`, script: decoded.script, sats: b.sats, utxos: b.utxos });
  }
  for (const s of chain.scripts()) {
    const b = chain.balanceOf(s.script);
    out.push({ label: `${s.kind} script`, script: Buffer.from(s.script, 'hex'), sats: b.sats, utxos: b.utxos });
  }
  return out;
}

function expectIndexEquals(dbPath: string, chain: BtcChain): void {
  const report = checkIndex(dbPath, expectations(chain));
  expect(report.tipHash).toBe(chain.tip.hash);
  expect(report.mismatches).toEqual([]);
  expect(report.totals).toEqual(chain.totals());
  expect(report.aggregateDifferences).toBe(0);
  expect(report.chainProblems).toEqual([]);
}

/** The chain model's UTXO set at its tip as a Core v2 file, grouped per txid as dumptxoutset writes it, but in the chain's order rather than txid order. */
function snapshotOfChain(chain: BtcChain): { bytes: Buffer; coins: number } {
  const groups = new Map<string, SnapshotOutputIn[]>();
  for (const [outpoint, coin] of chain.utxos()) {
    const [txid, vout] = outpoint.split(':') as [string, string];
    const list = groups.get(txid) ?? [];
    list.push({
      vout: Number(vout),
      coin: { height: coin.height, coinbase: coin.coinbase, value: coin.value, script: Buffer.from(coin.script, 'hex') },
    });
    groups.set(txid, list);
  }
  const coins = [...groups.values()].reduce((n, g) => n + g.length, 0);
  const body = [...groups.entries()].map(([txid, outs]) =>
    coreGroup(
      fromDisplayHex(txid),
      outs.sort((a, b) => a.vout - b.vout),
    ),
  );
  return { bytes: Buffer.concat([coreHeader(REGTEST_MAGIC, fromDisplayHex(chain.tip.hash), coins), ...body]), coins };
}

const runVerify = (dataDir: string) => runVerifyCli('BTC', dataDir);

/** What the API would answer from: null when there is no database or no tip (CHAIN_SYNCING / UNAVAILABLE). */
const servedTip = (dbPath: string): number | null => indexedTip(dbPath)?.height ?? null;

function startBootstrap(dataDir: string, node: FakeNode, file: string): Promise<IndexerProcess> {
  mkdirSync(dataDir, { recursive: true });
  return startIndexer({ chain: 'BTC', dataDir, rpcUrl: node.url, args: ['--bootstrap', file] });
}

describe('BTC bootstrap from a Core-format snapshot', () => {
  const chain = new BtcChain('bootstrap-btc');
  let node: FakeNode;
  let dataDir: string;
  let indexer: IndexerProcess | undefined;

  beforeAll(async () => {
    chain.mine(120, { txsPerBlock: 4 });
    node = await startFakeNode(chain);
    dataDir = await makeDataDir('addrsum-boot-');
  });

  afterAll(async () => {
    indexer?.kill('SIGKILL');
    await node?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'loads the snapshot, follows 10 blocks and a 3-block reorg, verifies, and refuses a reorg below the base',
    { timeout: 120_000 },
    async () => {
      const dir = join(dataDir, 'follow');
      const dbPath = chainDbPath(dir, 'BTC');
      const file = join(dataDir, 'utxo-follow.dat');
      const snap = snapshotOfChain(chain);
      writeFileSync(file, snap.bytes);
      const base = chain.tipHeight;
      indexer = await startBootstrap(dir, node, file);
      // The tip is committed a moment before the line is written: wait for both.
      const done = () => indexedTip(dbPath)?.hash === chain.tip.hash && /bootstrap done/.test(indexer!.output());
      await waitFor('the bootstrap', done, 60_000, indexer);
      expect(indexer.output()).toMatch(/bootstrap done: \d+ coins/);
      // The groups are in the chain's order, not txid order: the load falls back to sorting.
      expect(indexer.output()).toMatch(/not in txid order .*the load sorts them/);
      expectIndexEquals(dbPath, chain);

      chain.mine(10, { txsPerBlock: 5 });
      await waitFor('10 blocks', () => indexedTip(dbPath)?.hash === chain.tip.hash, 30_000, indexer);
      expectIndexEquals(dbPath, chain);
      chain.reorg(3, { txsPerBlock: 5 });
      await waitFor('a 3-block reorg', () => indexedTip(dbPath)?.hash === chain.tip.hash, 30_000, indexer);
      expectIndexEquals(dbPath, chain);
      indexer.kill('SIGTERM');
      expect(await indexer.exited).toBe(0);
      expect(runVerify(dir)).toMatchObject({ status: 0 });

      // A restart with the same flag continues from where it is (the snapshot is not loaded twice).
      indexer = await startBootstrap(dir, node, file);
      chain.mine(1, { txsPerBlock: 2 });
      // The log line is part of the condition: the child's stdout reaches us later than its commit does.
      const again = indexer;
      await waitFor(
        'restart with --bootstrap again',
        () => indexedTip(dbPath)?.hash === chain.tip.hash && again.output().includes('already bootstrapped from this snapshot'),
        120_000,
        again,
      );
      expectIndexEquals(dbPath, chain);

      // A reorg replacing the base block itself cannot be followed: the index knows nothing below it.
      chain.reorg(chain.tipHeight - base + 1, { txsPerBlock: 2 });
      expect(await indexer.exited).toBe(1);
      expect(indexer.output()).toMatch(/BELOW_BASE: reorg below the snapshot base block/);
    },
  );

  it('refuses bad files with a one-line error, exit code != 0 and no index to serve', { timeout: 180_000 }, async () => {
    const good = snapshotOfChain(chain).bytes;
    const withHeader = (f: (b: Buffer) => void): Buffer => {
      const b = Buffer.from(good);
      f(b);
      return b;
    };
    const cases: [string, Buffer, RegExp][] = [
      ['truncated', good.subarray(0, good.length - 7), /^TRUNCATED: snapshot truncated/],
      ['wrong magic', withHeader((b) => (b[0] = 0x55)), /^BAD_MAGIC: not a Bitcoin Core UTXO snapshot/],
      ['wrong version', withHeader((b) => b.writeUInt16LE(3, 5)), /^BAD_VERSION: snapshot format version 3 is not supported/],
      ['wrong network', withHeader((b) => Buffer.from('f9beb4d9', 'hex').copy(b, 7)), /^WRONG_NETWORK: snapshot is for Bitcoin mainnet/],
      ['count too small', withHeader((b) => b.writeBigUInt64LE(b.readBigUInt64LE(43) - 1n, 43)), /^COUNT_MISMATCH: coin count mismatch/],
      [
        'count too large',
        withHeader((b) => b.writeBigUInt64LE(b.readBigUInt64LE(43) + 1n, 43)),
        /^TRUNCATED: snapshot truncated: the file ends after/,
      ],
      [
        'unknown base block',
        withHeader((b) => b.fill(0x42, 11, 43)),
        /^UNKNOWN_BASE_BLOCK: the snapshot's base block 4242.* is unknown to the node/,
      ],
    ];
    for (const [name, bytes, message] of cases) {
      const dir = join(dataDir, `bad-${name.replace(/ /g, '-')}`);
      const file = join(dataDir, `bad-${name.replace(/ /g, '-')}.dat`);
      writeFileSync(file, bytes);
      const run = await startBootstrap(dir, node, file);
      const code = await run.exited;
      expect(code, name).toBe(1);
      const errLine = run
        .output()
        .split('\n')
        .filter((l) => l.startsWith('addrsum indexer: '));
      expect(errLine, name).toHaveLength(1);
      expect(errLine[0]!.slice('addrsum indexer: '.length), name).toMatch(message);
      expect(servedTip(chainDbPath(dir, 'BTC')), name).toBeNull();
    }
  });

  it('SIGKILLed at three points of a bootstrap, then restarted, ends exactly as an uninterrupted one', { timeout: 600_000 }, async () => {
    const file = join(dataDir, 'utxo-big.dat');
    writeSyntheticSnapshot(file, 400_000, chain.tipHeight, fromDisplayHex(chain.tip.hash));
    const dump = (dbPath: string): string => {
      const db = new Database(dbPath, { readonly: true });
      try {
        const rows = (sql: string): string =>
          (db.prepare(sql).raw().all() as unknown[][])
            .map((r) => r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join(','))
            .join('\n');
        return [
          rows('SELECT outpoint, script_key, value, height FROM utxos ORDER BY outpoint'),
          rows('SELECT script_key, balance, utxo_count FROM scripts ORDER BY script_key'),
          rows(
            "SELECT key, value FROM meta WHERE key IN ('tip_height', 'tip_hash', 'base_height', 'utxo_count', 'utxo_amount', 'script_count') ORDER BY key",
          ),
          rows('SELECT height, hash, prev_hash FROM blocks ORDER BY height'),
        ].join('\n--\n');
      } finally {
        db.close();
      }
    };

    const cleanDir = join(dataDir, 'kill-reference');
    const clean = await startBootstrap(cleanDir, node, file);
    await waitFor('the uninterrupted bootstrap', () => indexedTip(chainDbPath(cleanDir, 'BTC'))?.hash === chain.tip.hash, 300_000, clean);
    expect(clean.output()).not.toMatch(/not in txid order/);
    clean.kill('SIGTERM');
    await clean.exited;
    const expected = dump(chainDbPath(cleanDir, 'BTC'));
    expect(expected.split('\n').length).toBeGreaterThan(400_000);

    const dir = join(dataDir, 'kill');
    const dbPath = chainDbPath(dir, 'BTC');
    /** Coins a reader sees committed, without waiting on the loader's write transaction. */
    const committedCoins = (): number => {
      try {
        const db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 0 });
        try {
          return db.prepare('SELECT COUNT(*) FROM utxos').pluck().get() as number;
        } finally {
          db.close();
        }
      } catch {
        return 0;
      }
    };
    // [when, what to wait for, what the API may serve after the kill, whether the next start resumes]
    const points: [string, (output: string) => boolean, number | null, boolean][] = [
      ['while reading coins, some chunks committed', () => committedCoins() > 0, null, true],
      ['while building aggregates', (out) => /bootstrap: building aggregates/.test(out), null, true],
      [
        'after the commit, while checkpointing the WAL',
        (out) => /bootstrap done|index already bootstrapped/.test(out),
        chain.tipHeight,
        false,
      ],
    ];
    let resumes = false;
    for (const [name, ready, served, resumesNext] of points) {
      const run = await startBootstrap(dir, node, file);
      await waitFor(`${name}`, () => ready(run.output()), 300_000, run);
      run.kill('SIGKILL');
      await run.exited;
      // Resumed from the committed chunks the previous kill left (each start after the first).
      expect(/resuming the interrupted load of this snapshot/.test(run.output()), name).toBe(resumes);
      // Killed before the final commit: no tip, so the API answers CHAIN_SYNCING; after it: the whole load.
      // Building aggregates is short: on a loaded machine the commit may come before the signal lands,
      // and then the index is the whole load, never a part of it.
      const tip = servedTip(dbPath);
      const committedFirst = served === null && resumesNext && name.includes('aggregates') && tip === chain.tipHeight;
      expect(tip, name).toBe(committedFirst ? chain.tipHeight : served);
      if (committedFirst) {
        resumes = false;
        continue;
      }
      if (!resumes && tip === null) {
        // The part the first kill left is not an index to sync from genesis on top of. (A whole load, as
        // when the commit beat the kill above, is one: an indexer would follow the node and not exit.)
        const sync = await startIndexer({ chain: 'BTC', dataDir: dir, rpcUrl: node.url });
        expect(await sync.exited).toBe(1);
        expect(sync.output()).toMatch(/BOOTSTRAP_PENDING: the index holds part of a bootstrap from the snapshot of block/);
      }
      resumes = resumesNext;
    }
    const last = await startBootstrap(dir, node, file);
    // The last kill came after the commit: this start finds the whole load and just follows the node.
    await waitFor(
      'the bootstrap after three kills',
      () => indexedTip(dbPath)?.hash === chain.tip.hash && /index already bootstrapped from this snapshot/.test(last.output()),
      300_000,
      last,
    );
    last.kill('SIGTERM');
    await last.exited;
    expect(dump(dbPath) === expected, 'the killed-and-restarted index equals the uninterrupted one').toBe(true);
    expect(runVerify(dir)).toMatchObject({ status: 0 });
  });
});
