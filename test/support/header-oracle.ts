/**
 * Block headers as a real node has them, against those an index stores: once the index holds every
 * header (its backfill done, waited for with a deadline), each must equal `getblockheader <hash> false`.
 */
import { expect } from 'vitest';
import { waitFor, type IndexerProcess } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { openSqliteReader } from '../../src/store/sqlite/engine.js';

/** What the index at `dbPath` says of its headers: how far down they reach, and every stored one (hex). */
export async function storedHeaders(dbPath: string): Promise<{ tipHeight: number; headersFrom: number | undefined; headers: string[] }> {
  const reader = openSqliteReader(dbPath);
  try {
    const status = await reader.status();
    if (!status) throw new Error(`${dbPath} indexes nothing yet`);
    const range = await reader.headers(status.headersFrom ?? 0, status.tipHeight + 1);
    expect(range?.tipHeight).toBe(status.tipHeight);
    return { tipHeight: status.tipHeight, headersFrom: status.headersFrom, headers: range!.headers.map((h) => h.toString('hex')) };
  } finally {
    await reader.close();
  }
}

/** Waits until the index holds every header from genesis, then compares each with the node's. */
export async function expectHeadersEqualNode(node: Litecoind, dbPath: string, indexer: IndexerProcess | undefined): Promise<void> {
  await waitFor('every block header to be stored', async () => (await storedHeaders(dbPath)).headersFrom === undefined, 60_000, indexer);
  const { tipHeight, headers } = await storedHeaders(dbPath);
  const hashes = await Promise.all(Array.from({ length: tipHeight + 1 }, (_, h) => node.cli<string>('getblockhash', h)));
  expect(headers).toEqual(await Promise.all(hashes.map((hash) => node.cli<string>('getblockheader', hash, false))));
}
