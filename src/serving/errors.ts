/**
 * Every failure a door of the API process can answer, as a typed value: a stable `code` (README's error
 * table, plus a few HTTP-level additions) and its HTTP status, which the other doors read as a hint of
 * its kind. Each door renders them in its own wire format: src/api as JSend (src/api/errors.ts), the
 * Electrum server as an RpcError chosen by code.
 * Messages are for people and may change; codes are the contract and never change.
 */
import { CodedError } from '../coded-error.js';

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_ADDRESS: 400,
  WRONG_NETWORK: 400,
  WRONG_CHAIN: 400,
  UNSUPPORTED_ADDRESS: 400,
  INVALID_JSON: 400,
  INVALID_BATCH: 400,
  BODY_TOO_LARGE: 400,
  /** Not an Electrum scripthash: 64 hex digits. */
  INVALID_SCRIPTHASH: 400,
  /** Wallet routes (src/wallet/errors.ts): each reason a key or descriptor is refused has its own code. */
  PRIVATE_KEY_REFUSED: 400,
  BAD_CHECKSUM: 400,
  HARDENED_BELOW_XPUB: 400,
  RANGE_TOO_LARGE: 400,
  BAD_RANGE: 400,
  MALFORMED_DESCRIPTOR: 400,
  /** UTXO listing (routes/utxos.ts): `limit` outside 1 … 1000. */
  INVALID_LIMIT: 400,
  /** Not a cursor this API issues (not base64url, wrong length or version). */
  INVALID_CURSOR: 400,
  /** A cursor whose MAC does not verify: edited, forged, or from before the listing was rebuilt. */
  CURSOR_TAMPERED: 400,
  /** A genuine cursor of another listing (address, wallet, chain or mempool setting). */
  CURSOR_FOREIGN: 400,
  /** Not a txid: 64 hex digits. */
  INVALID_TXID: 400,
  /** Not a block id: a height (0 … 2^31−1) or a block hash of 64 hex digits. */
  INVALID_BLOCK_ID: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  /** A browser page from an origin not in api.corsOrigins opened a WebSocket. */
  ORIGIN_NOT_ALLOWED: 403,
  UNKNOWN_CHAIN: 404,
  NOT_FOUND: 404,
  /** The chain's index keeps no UTXO listing: the operator has not set chains.<C>.utxoList (ADDRSUM_UTXO_LIST). */
  UTXO_LIST_DISABLED: 404,
  /** The chain's index keeps no history: the operator has not set chains.<C>.history (ADDRSUM_HISTORY). */
  HISTORY_DISABLED: 404,
  /** No such transaction in the indexed blocks or the node's mempool. */
  TX_NOT_FOUND: 404,
  /** No such block in the indexed chain (a height above its tip, a hash of no block or of a stale one). */
  BLOCK_NOT_FOUND: 404,
  /** The transaction and block views read the node, and this server has none for the chain (chains.<C>.rpcUrl). */
  NODE_NOT_CONFIGURED: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  /** A UTXO listing cursor taken before the latest block: start the listing again. */
  CURSOR_STALE: 409,
  RATE_LIMITED: 429,
  /** Live subscriptions past the tier's cap per connection or per key (api.live). */
  TOO_MANY_SUBSCRIPTIONS: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  CHAIN_SYNCING: 503,
  CHAIN_UNAVAILABLE: 503,
  /** The chain's index file exists but cannot be read (truncated, overwritten): restore it or re-index. */
  INDEX_DAMAGED: 503,
  /** keys.sqlite exists but cannot be read, so no key can be checked. */
  KEYS_UNAVAILABLE: 503,
  NOT_READY: 503,
  /** The chain's node did not answer a transaction or block read (down, starting, timed out). */
  NODE_UNAVAILABLE: 503,
  /** The node has pruned the block a transaction or block view needs. */
  BLOCK_PRUNED: 503,
  LIMITS_UNAVAILABLE: 503,
  /** Wallet derivation (derivation-pool.ts) has more queued than a new wallet should wait behind. */
  WALLETS_BUSY: 503,
  /** History is being built for an index that had none (history-build): balances are served meanwhile. */
  HISTORY_BUILDING: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.freeze(Object.keys(ERROR_STATUS) as ErrorCode[]);

export type ErrorData = Readonly<Record<string, string | number | boolean | null | object>>;

export class ServingError extends CodedError<ErrorCode> {
  readonly status: number;

  constructor(
    code: ErrorCode,
    message: string,
    /** Extra members of `data` (e.g. heights for CHAIN_SYNCING); never internals. */
    readonly data?: ErrorData,
    /** Response headers this error needs (Allow, Retry-After, WWW-Authenticate). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(code, message);
    this.status = ERROR_STATUS[code];
  }
}

/** Text shown in messages for user input: bounded, quoted, control characters escaped by JSON. */
export function quote(input: string, max = 40): string {
  return JSON.stringify(input.length > max ? `${input.slice(0, max)}…` : input);
}

/**
 * A JSON member's name as a message may show it: quoted when it is a short plain name, else not shown,
 * since a long one may be a key or a descriptor sent in the wrong place.
 */
export function memberName(name: string): string {
  return /^[A-Za-z_][\w-]{0,31}$/.test(name) ? quote(name) : '(name not shown)';
}
