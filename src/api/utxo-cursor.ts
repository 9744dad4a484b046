/**
 * The opaque `next` cursor of the UTXO listing (routes/utxos.ts): where the next page starts, the tip the
 * listing was taken at, and which listing it belongs to, sealed with an HMAC.
 *
 * Binary (base64url, no padding), version 1:
 *   u8 1 | scope[8] | u32 tipHeight | tipHash[8] | u8 phase (0 confirmed, 1 mempool) | u32 height
 *        | u8 n | outpoint[n] (33–36) | mac[16]
 * scope = the first 8 bytes of SHA-256 over chain, network, the kind and id of what is listed (script
 * key, or wallet fingerprint) and the mempool flag; mac = HMAC-SHA256 over everything before it, keyed
 * by the index's own secret (meta utxo_list_secret): every API process reading the index accepts the
 * others' cursors, and no client can forge or edit one. The MAC is checked first, so a cursor refused as
 * FOREIGN or STALE is one this index really issued.
 *
 * Pure: decode() only checks the shape; check() needs the secret and the tip the page is read at.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { ServingError } from '../serving/errors.js';
import type { UtxoPosition } from '../store/index-model.js';

const VERSION = 1;
const SCOPE_BYTES = 8;
const TIP_HASH_BYTES = 8;
const MAC_BYTES = 16;
const HEAD_BYTES = 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES + 1 + 4 + 1;
const TXID_BYTES = 32;
/** A cursor is at most this long in base64url: anything longer is refused before decoding. */
const MAX_TEXT = Math.ceil(((HEAD_BYTES + TXID_BYTES + 4 + MAC_BYTES) * 4) / 3);

/** What a listing is bound to; `id` is the script key (hex) or the wallet's fingerprint. */
export interface CursorScope {
  readonly chain: string;
  readonly network: string;
  /** A script's or a wallet's UTXO listing, or a script's or a wallet's history (history-cursor.ts). */
  readonly kind: 'script' | 'wallet' | 'history' | 'wallet-history';
  readonly id: string;
  readonly mempool: boolean;
}

/** What every sealed cursor carries, whatever its position: checkCursor needs only this. */
export interface SealedCursor {
  readonly scope: Buffer;
  readonly tipHeight: number;
  readonly tipHash: Buffer;
  readonly signed: Buffer;
  readonly mac: Buffer;
}

export interface DecodedCursor extends SealedCursor {
  readonly position: UtxoPosition;
}

export function scopeDigest(scope: CursorScope): Buffer {
  const text = `v1|${scope.chain}|${scope.network}|${scope.kind}|${scope.id}|${scope.mempool ? 1 : 0}`;
  return createHash('sha256').update(text).digest().subarray(0, SCOPE_BYTES);
}

/**
 * The index's cursor secret as a key object, made once: createHmac with raw bytes makes one per call,
 * which was a tenth of a history page's time. A different secret (another index, a rotated one) replaces it.
 */
let macKey: { secret: Buffer; key: KeyObject } | null = null;

export function mac(secret: Buffer, signed: Buffer): Buffer {
  if (!macKey?.secret.equals(secret)) macKey = { secret: Buffer.from(secret), key: createSecretKey(secret) };
  return createHmac('sha256', macKey.key).update(signed).digest().subarray(0, MAC_BYTES);
}

export function encodeCursor(secret: Buffer, scope: CursorScope, tip: { height: number; hash: Buffer }, position: UtxoPosition): string {
  const op = position.outpoint;
  const body = Buffer.alloc(HEAD_BYTES + op.length);
  let at = body.writeUInt8(VERSION, 0);
  at += scopeDigest(scope).copy(body, at);
  at = body.writeUInt32BE(tip.height, at);
  at += tip.hash.copy(body, at, 0, TIP_HASH_BYTES);
  at = body.writeUInt8(position.phase === 'confirmed' ? 0 : 1, at);
  at = body.writeUInt32BE(position.phase === 'confirmed' ? position.height : 0, at);
  at = body.writeUInt8(op.length, at);
  op.copy(body, at);
  return Buffer.concat([body, mac(secret, body)]).toString('base64url');
}

export const malformed = (): ServingError =>
  new ServingError('INVALID_CURSOR', 'the cursor is not one this API issued: pass the `next` value of the previous page unchanged');

/** The cursor's fields, or INVALID_CURSOR when it cannot be one (not base64url, wrong length or version). */
export function decodeCursor(text: string): DecodedCursor {
  if (text.length === 0 || text.length > MAX_TEXT || !/^[A-Za-z0-9_-]+$/.test(text)) throw malformed();
  const raw = Buffer.from(text, 'base64url');
  if (raw.toString('base64url') !== text || raw.length < HEAD_BYTES + MAC_BYTES || raw[0] !== VERSION) throw malformed();
  const n = raw[HEAD_BYTES - 1]!;
  if (n < TXID_BYTES + 1 || n > TXID_BYTES + 4 || raw.length !== HEAD_BYTES + n + MAC_BYTES) throw malformed();
  const phase = raw[1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES]!;
  if (phase > 1) throw malformed();
  const outpoint = Buffer.from(raw.subarray(HEAD_BYTES, HEAD_BYTES + n));
  const height = raw.readUInt32BE(HEAD_BYTES - 5);
  return {
    scope: Buffer.from(raw.subarray(1, 1 + SCOPE_BYTES)),
    tipHeight: raw.readUInt32BE(1 + SCOPE_BYTES),
    tipHash: Buffer.from(raw.subarray(1 + SCOPE_BYTES + 4, 1 + SCOPE_BYTES + 4 + TIP_HASH_BYTES)),
    position: phase === 0 ? { phase: 'confirmed', height, outpoint } : { phase: 'mempool', outpoint },
    signed: Buffer.from(raw.subarray(0, HEAD_BYTES + n)),
    mac: Buffer.from(raw.subarray(HEAD_BYTES + n)),
  };
}

/**
 * Inside the page's read: CURSOR_TAMPERED when the MAC does not verify (edited, forged, or issued before
 * the listing was turned off and on), CURSOR_FOREIGN when it belongs to another listing, CURSOR_STALE when
 * the tip has moved since it was issued (the rest of the listing would come from another block).
 */
export function checkCursor(cursor: SealedCursor, secret: Buffer, scope: CursorScope, tip: { height: number; hash: Buffer }): void {
  if (!timingSafeEqual(mac(secret, cursor.signed), cursor.mac))
    throw new ServingError('CURSOR_TAMPERED', 'the cursor does not verify: it was changed, or issued before the listing was rebuilt');
  if (!cursor.scope.equals(scopeDigest(scope)))
    throw new ServingError('CURSOR_FOREIGN', 'the cursor belongs to another listing (another address, wallet, chain or mempool setting)');
  if (cursor.tipHeight !== tip.height || !cursor.tipHash.equals(tip.hash.subarray(0, TIP_HASH_BYTES)))
    throw new ServingError(
      'CURSOR_STALE',
      `the listing moved to a new block since this cursor was issued at height ${cursor.tipHeight}: start again without a cursor`,
      { cursorHeight: cursor.tipHeight, blockHeight: tip.height },
    );
}
