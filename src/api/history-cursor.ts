/**
 * The opaque `next` cursor of a history page (routes/transactions.ts): the transaction number the next
 * page starts below, the tip the history was read at, and which history it belongs to, sealed with an
 * HMAC keyed by the index's own secret (meta history_secret) — the UTXO cursor's scheme (utxo-cursor.ts:
 * scope digest, MAC, checkCursor), with its own version byte so neither kind passes for the other.
 *
 * Binary (base64url, no padding), version 2:
 *   u8 2 | scope[8] | u32 tipHeight | tipHash[8] | u48 txNum | mac[16]
 */
import { mac, malformed, scopeDigest, type CursorScope, type SealedCursor } from './utxo-cursor.js';

const VERSION = 2;
const SCOPE_BYTES = 8;
const TIP_HASH_BYTES = 8;
const MAC_BYTES = 16;
const BODY_BYTES = 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES + 6;
const TEXT_LENGTH = Math.ceil(((BODY_BYTES + MAC_BYTES) * 4) / 3);

export interface HistoryCursor extends SealedCursor {
  /** The next page lists transactions numbered below this. */
  readonly before: number;
}

export function encodeHistoryCursor(secret: Buffer, scope: CursorScope, tip: { height: number; hash: Buffer }, before: number): string {
  const body = Buffer.alloc(BODY_BYTES);
  let at = body.writeUInt8(VERSION, 0);
  at += scopeDigest(scope).copy(body, at);
  at = body.writeUInt32BE(tip.height, at);
  at += tip.hash.copy(body, at, 0, TIP_HASH_BYTES);
  body.writeUIntBE(before, at, 6);
  return Buffer.concat([body, mac(secret, body)]).toString('base64url');
}

/** The cursor's fields, or INVALID_CURSOR when it cannot be one (not base64url, wrong length or version). */
export function decodeHistoryCursor(text: string): HistoryCursor {
  if (text.length !== TEXT_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const raw = Buffer.from(text, 'base64url');
  if (raw.toString('base64url') !== text || raw.length !== BODY_BYTES + MAC_BYTES || raw[0] !== VERSION) throw malformed();
  return {
    scope: Buffer.from(raw.subarray(1, 1 + SCOPE_BYTES)),
    tipHeight: raw.readUInt32BE(1 + SCOPE_BYTES),
    tipHash: Buffer.from(raw.subarray(1 + SCOPE_BYTES + 4, 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES)),
    before: raw.readUIntBE(BODY_BYTES - 6, 6),
    signed: Buffer.from(raw.subarray(0, BODY_BYTES)),
    mac: Buffer.from(raw.subarray(BODY_BYTES)),
  };
}
