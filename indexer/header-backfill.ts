/**
 * Fills the block headers an index lacks (src/store/header-chain.ts): one made before headers were kept
 * (migration 0009 / PostgreSQL 0006), or bootstrapped from a UTXO snapshot (no blocks below its base).
 * Blocks store their own headers as they are applied; this adds the missing ones below the lowest stored,
 * from the node, in runs of up to HEADERS_PER_CHUNK per commit, going down to genesis. Each commit stays:
 * after a kill, the next start goes on from the lowest stored header.
 *
 * It runs beside block sync, started once sync has first caught up (as the history build): by then the
 * index is on the node's chain, so the node's headers link to the index's. Each run is checked twice:
 * here, that its first header hashes to the hash the node gives for that height (and the run is as long as
 * asked); in the store's commit, that each header names the one below it as parent and the last is the
 * parent of the lowest stored header (or hashes to the tip when none is stored). A reorg under way may
 * still move the tip under a run (NOT_CONNECTED or BAD_HEADER from the store): the run is fetched again
 * after a pause, a few times, before the backfill gives up with the store's error.
 *
 * Until it is done, status() says `headersFrom` (the future Electrum server refuses header requests below it).
 */
import { sha256d, toDisplayHex } from '../src/chain/hash.js';
import { CodedError } from '../src/coded-error.js';
import type { LogSink } from '../src/logger.js';
import { StoreError } from '../src/store/errors.js';
import { HEADERS_PER_CHUNK } from '../src/store/header-chain.js';
import type { IndexWriter } from '../src/store/ports.js';
import { sleep } from '../src/node/node-retry.js';

export interface HeaderSource {
  getBlockHash(height: number): Promise<string>;
  /** Up to `count` consecutive 80-byte headers from block `hash` (at `height`) up (node-headers.ts). */
  getHeaders(height: number, hash: string, count: number): Promise<Buffer[]>;
}

export type HeaderWriter = Pick<IndexWriter, 'headersFrom' | 'addHeaders'>;

/** The node answered headers that are not those of the heights asked for. */
export class HeaderMismatch extends CodedError<'HEADER_MISMATCH'> {}

export interface BackfillOptions {
  /** Headers per commit (default HEADERS_PER_CHUNK, the most one REST call gives). */
  chunk?: number;
  /** Pause before fetching a run again whose commit the store refused (the tip moved under it). */
  retryMs?: number;
  /** Refusals in a row before giving up. */
  attempts?: number;
  progressEveryMs?: number;
  signal?: AbortSignal;
}

/** Backfills down to genesis; resolves when done (or at once when nothing is missing), or when `signal` aborts. */
export async function backfillHeaders(store: HeaderWriter, source: HeaderSource, log: LogSink, opts: BackfillOptions = {}): Promise<void> {
  const chunk = Math.min(opts.chunk ?? HEADERS_PER_CHUNK, HEADERS_PER_CHUNK);
  const attempts = opts.attempts ?? 5;
  let from = await store.headersFrom();
  if (from === null || from === 0) return;
  const missing = from;
  const started = Date.now();
  let lastLine = started;
  log.info({ missing }, 'storing the block headers the index lacks, from the node');
  for (let refused = 0; from > 0 && opts.signal?.aborted !== true;) {
    const start = Math.max(0, from - chunk);
    const headers = await fetchRun(source, start, from - start);
    try {
      from = await store.addHeaders(start, headers);
      refused = 0;
    } catch (err) {
      const moved = err instanceof StoreError && (err.code === 'NOT_CONNECTED' || err.code === 'BAD_HEADER');
      if (!moved || ++refused >= attempts) throw err;
      log.warn({ height: start, err: err.message }, 'the chain moved under a run of headers: fetching it again');
      await sleep(opts.retryMs ?? 1000, opts.signal);
      from = (await store.headersFrom()) ?? 0;
      continue;
    }
    if (from === 0 || Date.now() - lastLine >= (opts.progressEveryMs ?? 10_000)) {
      lastLine = Date.now();
      const done = missing - from;
      log.info({ headersFrom: from, stored: done, of: missing, percent: Math.floor((done * 100) / missing) }, 'block headers backfill');
    }
  }
  if (from === 0) log.info({ headers: missing, seconds: (Date.now() - started) / 1000 }, 'every block header from genesis is stored');
}

/** The node's headers of heights start..start+count−1, the first checked against the hash the node gives for it. */
async function fetchRun(source: HeaderSource, start: number, count: number): Promise<Buffer[]> {
  const hash = await source.getBlockHash(start);
  const headers = await source.getHeaders(start, hash, count);
  if (headers.length !== count)
    throw new HeaderMismatch('HEADER_MISMATCH', `asked the node for ${count} headers from ${start}, got ${headers.length}`);
  const first = toDisplayHex(sha256d(headers[0]!));
  if (first !== hash) throw new HeaderMismatch('HEADER_MISMATCH', `the node's header at ${start} hashes to ${first}, not ${hash}`);
  return headers;
}
