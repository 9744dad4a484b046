/**
 * The opaque `next` cursor of a history page (routes/transactions.ts): where the next page starts (below a
 * confirmed transaction's number, or below a mempool transaction's seq), the tip the history was read at,
 * and which history it belongs to (the scope's mempool flag included), sealed with an HMAC keyed by the
 * index's own secret (meta history_secret) — the UTXO cursor's scheme (utxo-cursor.ts: scope digest, MAC,
 * checkCursor), with its own version bytes so neither kind passes for the other.
 *
 * Binary (base64url, no padding), version 2 (a confirmed position) or 3 (a position in the mempool part):
 *   u8 2|3 | scope[8] | u32 tipHeight | tipHash[8] | u48 txNum or seq | mac[16]
 * Version 2 is the cursor of confirmed-only history unchanged, so cursors issued before the mempool part
 * existed still read.
 */
import type { HistoryPosition } from '../store/index-model.js';
import { mac, malformed, scopeDigest, type CursorScope, type SealedCursor } from './utxo-cursor.js';

const CONFIRMED = 2;
const MEMPOOL = 3;
const SCOPE_BYTES = 8;
const TIP_HASH_BYTES = 8;
const MAC_BYTES = 16;
const BODY_BYTES = 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES + 6;
const TEXT_LENGTH = Math.ceil(((BODY_BYTES + MAC_BYTES) * 4) / 3);

export interface HistoryCursor extends SealedCursor {
  /** The next page lists what follows this position. */
  readonly after: HistoryPosition;
}

export function encodeHistoryCursor(
  secret: Buffer,
  scope: CursorScope,
  tip: { height: number; hash: Buffer },
  after: HistoryPosition,
): string {
  const body = Buffer.alloc(BODY_BYTES);
  let at = body.writeUInt8(after.phase === 'confirmed' ? CONFIRMED : MEMPOOL, 0);
  at += scopeDigest(scope).copy(body, at);
  at = body.writeUInt32BE(tip.height, at);
  at += tip.hash.copy(body, at, 0, TIP_HASH_BYTES);
  body.writeUIntBE(after.phase === 'confirmed' ? after.txNum : after.seq, at, 6);
  return Buffer.concat([body, mac(secret, body)]).toString('base64url');
}

/** The cursor's fields, or INVALID_CURSOR when it cannot be one (not base64url, wrong length or version). */
export function decodeHistoryCursor(text: string): HistoryCursor {
  if (text.length !== TEXT_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const raw = Buffer.from(text, 'base64url');
  if (raw.toString('base64url') !== text || raw.length !== BODY_BYTES + MAC_BYTES) throw malformed();
  if (raw[0] !== CONFIRMED && raw[0] !== MEMPOOL) throw malformed();
  const n = raw.readUIntBE(BODY_BYTES - 6, 6);
  return {
    scope: Buffer.from(raw.subarray(1, 1 + SCOPE_BYTES)),
    tipHeight: raw.readUInt32BE(1 + SCOPE_BYTES),
    tipHash: Buffer.from(raw.subarray(1 + SCOPE_BYTES + 4, 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES)),
    after: raw[0] === CONFIRMED ? { phase: 'confirmed', txNum: n } : { phase: 'mempool', seq: n },
    signed: Buffer.from(raw.subarray(0, BODY_BYTES)),
    mac: Buffer.from(raw.subarray(BODY_BYTES)),
  };
}
