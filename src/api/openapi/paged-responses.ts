/**
 * The responses of a paged route (the UTXO listing's, the history's): one description of the page, its
 * 400/404/409/429 refusals and the 503s, with what differs between them as parameters.
 */
import type { ErrorCode } from '../../serving/errors.js';
import { notReady, UNKNOWN_CHAIN_TEXT } from './address-paths.js';
import { codesWithStatus, failSchema, headers, internalError, LIMITS, ref, response, type Json } from './build.js';

/** What a paged route's query and cursor can fail with. */
export const PAGE_CODES: ErrorCode[] = ['INVALID_LIMIT', 'INVALID_CURSOR', 'CURSOR_TAMPERED', 'CURSOR_FOREIGN', 'BAD_REQUEST'];

/** The path parameter of a per-script route by address, and what it can fail with. */
export const ADDRESS_PARAM: Json = {
  name: 'address',
  in: 'path',
  required: true,
  description: 'An address of that chain.',
  schema: { type: 'string' },
};
export const ADDRESS_CODES: ErrorCode[] = ['INVALID_ADDRESS', 'WRONG_NETWORK', 'WRONG_CHAIN', 'UNSUPPORTED_ADDRESS'];
/** The path parameter of a per-script route by Electrum scripthash. */
export const HASH_PARAM: Json = {
  name: 'hash',
  in: 'path',
  required: true,
  description: 'Electrum scripthash, 64 hex digits.',
  schema: { type: 'string' },
};

export interface PagedText {
  /** The 200's description: which order, true at blockHeight. */
  readonly page: string;
  /** What another cursor belongs to: `listing`, `history`. */
  readonly kind: string;
  /** The 400 codes beyond the cursor's and the path segment's explanation. */
  readonly extra400: string;
  /** The code answered while the index keeps no such thing, and how the operator turns it on. */
  readonly disabled: ErrorCode;
  readonly disabledText: string;
  /** What a token buys: `outputs`, `transactions`. */
  readonly items: string;
  /** A 503 of this kind of page only, with its own `data`. */
  readonly extra503?: { readonly text: string; readonly variant: Json };
}

export function pagedResponses(text: PagedText, success: string, codes: ErrorCode[], busy: ErrorCode[] = []): Json {
  return {
    200: response(text.page, ref('schemas', success), headers([...LIMITS, 'Cache-Control'], ['X-Index-Age', 'X-Tip-Age'])),
    400: response(
      `INVALID_LIMIT, INVALID_CURSOR (not a cursor), CURSOR_TAMPERED (does not verify), CURSOR_FOREIGN (another ${text.kind}’s)${text.extra400}, or what the path segment fails.`,
      failSchema(codes),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    401: response(
      'MISSING_API_KEY or INVALID_API_KEY.',
      failSchema(codesWithStatus(401)),
      headers(['WWW-Authenticate'], ['Cache-Control']),
    ),
    404: response(
      `${UNKNOWN_CHAIN_TEXT} ${text.disabled}: ${text.disabledText}`,
      failSchema(['UNKNOWN_CHAIN', 'NOT_FOUND', text.disabled]),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    409: response(
      `CURSOR_STALE: a block arrived since the cursor was issued (data: cursorHeight, blockHeight). Start the ${text.kind} again.`,
      failSchema(['CURSOR_STALE'], { cursorHeight: { type: 'integer' }, blockHeight: { type: 'integer' } }),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    429: response(
      `Over the tier's limit: a page takes one token per 200 ${text.items} asked for (at least one).`,
      failSchema(['RATE_LIMITED']),
      headers(['Retry-After', ...LIMITS], ['Cache-Control']),
    ),
    500: internalError,
    503: notReady(
      'CHAIN_SYNCING, CHAIN_UNAVAILABLE or INDEX_DAMAGED, as on the address route' +
        (busy.length > 0 ? "; WALLETS_BUSY when other callers' queued derivations would make this wallet wait too long" : '') +
        (text.extra503 ? `; ${text.extra503.text}` : '.'),
      busy,
      text.extra503 ? [text.extra503.variant] : [],
    ),
  };
}
