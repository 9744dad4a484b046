/**
 * The index's block headers (every 80-byte header from height 0 to the tip, for the future Electrum
 * server's blockchain.block.header(s)), checked without a database. Each engine keeps them in a `headers`
 * table whose rows are always ONE contiguous run ending at the tip: blocks add theirs at the top in their
 * own commit, a rollback removes the tip's in its commit, and the backfill (indexer/header-backfill.ts)
 * adds runs at the bottom, down to genesis. So the lowest stored height alone says what is missing: every
 * height below it (headersFrom; 0 when complete, tip + 1 when none is stored).
 *
 * Why a table apart from `blocks`: an index bootstrapped from a UTXO snapshot has blocks rows only from the
 * snapshot's base up, and headers are needed from genesis.
 */
import { HEADER_SIZE, headerPrevHash } from '../chain/block-header.js';
import { sha256d, toDisplayHex } from '../chain/hash.js';
import { StoreError } from './errors.js';
import type { BlockToApply, ChainStatus } from './index-model.js';

/** Stored block headers read in one snapshot with the tip they belong to (IndexReader.headers). */
export interface HeaderRange {
  readonly tipHeight: number;
  /** Internal byte order. */
  readonly tipHash: Buffer;
  /** Every header from this height up to the tip is stored (0: all of them; tipHeight + 1: none yet). */
  readonly headersFrom: number;
  /**
   * The 80-byte headers of the heights from the one asked for up, contiguous, at most the count asked for,
   * none past the tip; empty when that height is above the tip or below headersFrom.
   */
  readonly headers: readonly Buffer[];
}

/** Most headers one backfill commit (and one REST call) carries. */
export const HEADERS_PER_CHUNK = 2000;

/** The lowest height from which every header up to the tip is stored, given the lowest stored row (null: none). */
export const headersFromOf = (lowest: number | null, tipHeight: number): number => lowest ?? tipHeight + 1;

/** A status with headersFrom when headers are missing (absent: every header from genesis is stored). */
export function withHeadersFrom<T extends ChainStatus>(status: T | null, lowest: number | null): T | null {
  if (status === null) return null;
  const from = headersFromOf(lowest, status.tipHeight);
  return from > 0 ? { ...status, headersFrom: from } : status;
}

/**
 * The heights a headers(from, count) read takes, given the tip and headersFrom: contiguous from `from`,
 * at most `count`, none past the tip; null when there is none to read (`from` above the tip or below
 * headersFrom, or count ≤ 0).
 */
function headerSpan(from: number, count: number, headersFrom: number, tipHeight: number): { from: number; to: number } | null {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(count)) throw new RangeError(`headers(${from}, ${count}): not integers`);
  const to = Math.min(from + count - 1, tipHeight);
  return from < headersFrom || to < from ? null : { from, to };
}

/** A headers() answer: the span's rows read at the tip they belong to. */
export function headerRange(
  tip: { height: number; hash: Buffer },
  lowest: number | null,
  from: number,
  count: number,
  read: (from: number, to: number) => Buffer[],
): HeaderRange {
  const headersFrom = headersFromOf(lowest, tip.height);
  const span = headerSpan(from, count, headersFrom, tip.height);
  const headers = span ? read(span.from, span.to) : [];
  if (span && headers.length !== span.to - span.from + 1)
    throw new StoreError('INCONSISTENT', `headers ${span.from}..${span.to} should all be stored, ${headers.length} are`);
  return { tipHeight: tip.height, tipHash: tip.hash, headersFrom, headers };
}

function badHeader(message: string): StoreError {
  return new StoreError('BAD_HEADER', message);
}

/** Throws BAD_HEADER unless every block carries the header its hash and prevHash say. */
export function checkBlockHeaders(blocks: readonly BlockToApply[]): void {
  for (const b of blocks) {
    if (b.header.length !== HEADER_SIZE) throw badHeader(`block ${b.height}: a header of ${b.header.length} bytes, not ${HEADER_SIZE}`);
    if (!sha256d(b.header).equals(b.hash) || !headerPrevHash(b.header).equals(b.prevHash))
      throw badHeader(`block ${b.height} (${toDisplayHex(b.hash)}): its header does not hash to its hash, or names another parent`);
  }
}

/** Where a run of headers must go: just below the lowest stored, the last one the parent of what is above. */
export interface HeaderSlot {
  /** The index's headersFrom: the run must end at headersFrom − 1. */
  readonly headersFrom: number;
  /** The hash the run's last header must have: prevHash of the header at headersFrom, or the tip's hash when none is stored. */
  readonly above: Buffer;
}

/**
 * Throws unless `headers`, the heights from `from` up, fill the slot below the stored run: NOT_CONNECTED
 * when they would not end just below it, BAD_HEADER when one is not 80 bytes, does not name the one
 * before it as its parent, or the last does not hash to `slot.above`.
 */
export function checkHeaderRun(from: number, headers: readonly Buffer[], slot: HeaderSlot): void {
  if (headers.length === 0) return;
  if (!Number.isSafeInteger(from) || from < 0 || from + headers.length !== slot.headersFrom)
    throw new StoreError(
      'NOT_CONNECTED',
      `headers ${from}..${from + headers.length - 1} do not end just below the stored ones (from ${slot.headersFrom})`,
    );
  let prev: Buffer | null = null;
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    if (header.length !== HEADER_SIZE) throw badHeader(`header ${from + i}: ${header.length} bytes, not ${HEADER_SIZE}`);
    if (prev && !headerPrevHash(header).equals(prev))
      throw badHeader(`header ${from + i} does not name header ${from + i - 1} as its parent`);
    prev = sha256d(header);
  }
  if (!prev!.equals(slot.above))
    throw badHeader(
      `header ${slot.headersFrom - 1} hashes to ${toDisplayHex(prev!)}, not ${toDisplayHex(slot.above)}: not the index's chain`,
    );
}
