/**
 * The SQLite reader's feed watch (src/store/sqlite/wal-watch.ts) over a real index: a commit of the
 * writer is reported, also after the index file was replaced under the same name (the directory is
 * watched), and nothing after the watch is stopped.
 */
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { openSqliteReader } from '../../src/store/sqlite/engine.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng } from '../support/blocks.js';

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-wal-watch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite feed watch', () => {
  it("reports the writer's commits, also to a file replaced under the same name, until stopped", async () => {
    const file = path.join(dir, 'ltc.sqlite');
    const rng = new Rng(11);
    const chain = new ChainBuilder(rng);
    const block = () => chain.block([coinbaseTx([{ script: p2wpkh(rng), value: 1 }], rng.bytes(32))]);
    let store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet' });
    store.applyBlocks([block()]);
    const reader = openSqliteReader(file);
    let writes = 0;
    const stop = reader.feed.watch!(() => void writes++);
    store.applyBlocks([block()]);
    await expect.poll(() => writes, { timeout: 10_000 }).toBeGreaterThan(0);
    // Another index moved in under the same name: its commits are reported too.
    store.close();
    renameSync(file, `${file}.old`);
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet' });
    const other = new ChainBuilder(new Rng(12));
    const next = () => other.block([coinbaseTx([{ script: p2wpkh(rng), value: 1 }], rng.bytes(32))]);
    writes = 0;
    store.applyBlocks([next()]);
    await expect.poll(() => writes, { timeout: 10_000 }).toBeGreaterThan(0);
    // Stopped: a commit that a second watch sees is not reported to it.
    stop();
    writes = 0;
    let seen = 0;
    const control = reader.feed.watch!(() => void seen++);
    store.applyBlocks([next()]);
    await expect.poll(() => seen, { timeout: 10_000 }).toBeGreaterThan(0);
    control();
    expect(writes).toBe(0);
    store.close();
    await reader.close();
  });
});
