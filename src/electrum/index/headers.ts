/**
 * Block headers from the index only (never the node): the tip's, one height's, a run of them. Heights
 * below the stored headers (a backfill under way: status headersFrom) are refused with a clear error,
 * never answered from elsewhere.
 */
import type { HeaderRange } from '../../store/header-chain.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';

/** Most headers one blockchain.block.headers answers (the protocol's `max`). */
export const MAX_HEADERS = 2016;

export interface TipHeader {
  readonly height: number;
  readonly hex: string;
}

function belowStored(height: number, range: HeaderRange): RpcError {
  return new RpcError(
    'BAD_REQUEST',
    `the header of height ${height} is not stored yet: headers below ${range.headersFrom} are still being backfilled; retry later`,
  );
}

function aboveTip(height: number, range: HeaderRange): RpcError {
  return new RpcError('BAD_REQUEST', `height ${height} is above the tip (${range.tipHeight})`);
}

/** The tip's height and header, in one snapshot. */
export async function tipHeader(index: ElectrumIndex): Promise<TipHeader> {
  const status = await index.status();
  if (status === null) throw notIndexed();
  // One more read: the tip may have moved since status(); the range names its own tip.
  let range = await index.headers(status.tipHeight, 1);
  if (range === null) throw notIndexed();
  if (range.headers.length === 0 && range.tipHeight !== status.tipHeight) range = (await index.headers(range.tipHeight, 1)) ?? range;
  const header = range.headers[0];
  if (header === undefined) throw belowStored(range.tipHeight, range);
  return { height: range.tipHeight, hex: header.toString('hex') };
}

/** One height's header as hex. */
export async function headerAt(index: ElectrumIndex, height: number): Promise<string> {
  const range = await index.headers(height, 1);
  if (range === null) throw notIndexed();
  if (height > range.tipHeight) throw aboveTip(height, range);
  if (height < range.headersFrom) throw belowStored(height, range);
  return range.headers[0]!.toString('hex');
}

/** A run of headers as the session's protocol lists them: one hex string before 1.6, a list from 1.6. */
export type HeaderRun = { count: number; max: number } & ({ hex: string } | { headers: string[] });

/** Up to `count` (at most MAX_HEADERS) headers from `start`: none past the tip; empty from above it. */
export async function headerRun(index: ElectrumIndex, start: number, count: number, asList: boolean): Promise<HeaderRun> {
  const want = Math.min(count, MAX_HEADERS);
  const range = want === 0 ? null : await index.headers(start, want);
  if (want > 0 && range === null) throw notIndexed();
  if (range !== null && start <= range.tipHeight && start < range.headersFrom) throw belowStored(start, range);
  const headers = range?.headers ?? [];
  const listed = asList ? { headers: headers.map((h) => h.toString('hex')) } : { hex: Buffer.concat(headers).toString('hex') };
  return { count: headers.length, ...listed, max: MAX_HEADERS };
}
