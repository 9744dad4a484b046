/**
 * One KEY of a descriptor (BIP380 key expressions): an optional origin `[fingerprint/path]`, then a hex
 * public key or an extended public key with unhardened steps, at most one BIP389 multipath step
 * `<a;b;…>`, and an optional `/*`. Hardened steps below an extended public key cannot be derived
 * without its private key, so they are refused, as Core refuses them without the private key.
 */
import { isPoint, isXOnlyPoint } from 'tiny-secp256k1';
import type { NetworkParams } from '../chain/chain-module.js';
import { WalletError, malformed } from './errors.js';
import { decodeBase58Check, decodeExtendedKey, refuseWif, type ExtendedPublicKey } from './extended-key.js';

export const HARDENED = 0x80000000;

/** A fixed child number (hardened bit included), or the alternatives of a multipath step. */
export type PathStep = number | readonly number[];

export interface KeyOrigin {
  readonly fingerprint: string;
  readonly path: readonly number[];
}

export type KeySource = { readonly type: 'hex'; readonly bytes: Uint8Array } | { readonly type: 'xpub'; readonly key: ExtendedPublicKey };

export interface KeyExpression {
  readonly origin: KeyOrigin | null;
  readonly source: KeySource;
  readonly path: readonly PathStep[];
  readonly wildcard: boolean;
  /** Number of multipath alternatives; 1 without a multipath step. */
  readonly branches: number;
}

/** Where a key stands decides which forms it may take (Core's ParseScriptContext). */
export interface KeyContext {
  readonly params: NetworkParams;
  /** Names the key in messages, e.g. "the key of wpkh()". */
  readonly what: string;
  /** Witness scripts take compressed keys only. */
  readonly compressedOnly: boolean;
  /** tr() takes 32-byte x-only keys. */
  readonly xonly: boolean;
}

const HEX = /^[0-9a-fA-F]*$/;
const STEP = /^(\d{1,10})(['h]?)$/;

function parseStep(text: string, ctx: KeyContext): number {
  const m = STEP.exec(text);
  if (!m) throw malformed(`${ctx.what}: a derivation step is not a number`);
  const value = Number(m[1]);
  if (value >= HARDENED) throw malformed(`${ctx.what}: a derivation step is out of range`);
  return m[2] ? value + HARDENED : value;
}

function parseOrigin(text: string, ctx: KeyContext): KeyOrigin {
  const [fingerprint = '', ...steps] = text.split('/');
  if (fingerprint.length !== 8 || !HEX.test(fingerprint)) throw malformed(`${ctx.what}: the origin fingerprint is not 8 hex digits`);
  return { fingerprint: fingerprint.toLowerCase(), path: steps.map((s) => parseStep(s, ctx)) };
}

function parseHexKey(text: string, ctx: KeyContext): Uint8Array {
  const bytes = Buffer.from(text, 'hex');
  if (ctx.xonly && bytes.length === 32) {
    if (!isXOnlyPoint(bytes)) throw malformed(`${ctx.what} is not a valid public key`);
    return bytes;
  }
  if (bytes.length === 65 && bytes[0] === 4) {
    if (ctx.compressedOnly || ctx.xonly) throw malformed(`${ctx.what}: uncompressed keys are not allowed here`);
  } else if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) {
    throw malformed(`${ctx.what} is not a valid public key`);
  }
  if (!isPoint(bytes)) throw malformed(`${ctx.what} is not a valid public key`);
  return bytes;
}

function parseSource(text: string, ctx: KeyContext): KeySource {
  if (text.length > 0 && HEX.test(text) && text.length % 2 === 0) return { type: 'hex', bytes: parseHexKey(text, ctx) };
  // Anything else must be base58: a WIF is refused here, an extended key by decodeExtendedKey.
  refuseWif(decodeBase58Check(text), ctx.what);
  return { type: 'xpub', key: decodeExtendedKey(ctx.params, text, ctx.what) };
}

function parseMultipath(text: string, ctx: KeyContext): number[] {
  const values = text
    .slice(1, -1)
    .split(';')
    .map((s) => parseStep(s, ctx));
  if (values.length < 2) throw malformed(`${ctx.what}: a multipath step needs at least two alternatives`);
  if (new Set(values).size !== values.length) throw malformed(`${ctx.what}: a multipath step repeats an alternative`);
  return values;
}

function refuseHardened(step: PathStep, ctx: KeyContext): void {
  const values = typeof step === 'number' ? [step] : step;
  if (values.some((v) => v >= HARDENED)) {
    throw new WalletError('HARDENED_BELOW_XPUB', `${ctx.what}: a hardened step below an extended public key cannot be derived`);
  }
}

export function parseKeyExpression(text: string, ctx: KeyContext): KeyExpression {
  let rest = text;
  let origin: KeyOrigin | null = null;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw malformed(`${ctx.what}: the key origin has no closing ']'`);
    origin = parseOrigin(rest.slice(1, close), ctx);
    rest = rest.slice(close + 1);
  }
  if (rest.includes('[') || rest.includes(']')) throw malformed(`${ctx.what}: misplaced '[' or ']'`);
  const [keyText = '', ...stepTexts] = rest.split('/');
  // The key is checked before its path, so a private key is refused whatever follows it.
  const source = parseSource(keyText, ctx);
  if (source.type === 'hex' && stepTexts.length > 0) throw malformed(`${ctx.what}: a hex public key takes no derivation path`);
  let wildcard = false;
  const path: PathStep[] = [];
  stepTexts.forEach((s, i) => {
    if (s === '*' || s === "*'" || s === '*h') {
      if (i !== stepTexts.length - 1) throw malformed(`${ctx.what}: '*' must be the last step`);
      if (s !== '*')
        throw new WalletError('HARDENED_BELOW_XPUB', `${ctx.what}: a hardened '*' below an extended public key cannot be derived`);
      wildcard = true;
      return;
    }
    const step = s.startsWith('<') && s.endsWith('>') ? parseMultipath(s, ctx) : parseStep(s, ctx);
    refuseHardened(step, ctx);
    path.push(step);
  });
  const multi = path.filter((s) => typeof s !== 'number');
  if (multi.length > 1) throw malformed(`${ctx.what}: at most one multipath step per key`);
  return { origin, source, path, wildcard, branches: multi[0]?.length ?? 1 };
}

/** A child number as Core prints it: hardened steps with `h`. */
export function stepText(step: number): string {
  return step >= HARDENED ? `${step - HARDENED}h` : String(step);
}

/** The key as Core prints it, with multipath step `branch` chosen; hardened steps written `h`. */
export function keyExpressionString(key: KeyExpression, branch: number, encodeKey: (k: ExtendedPublicKey) => string): string {
  const origin = key.origin ? `[${[key.origin.fingerprint, ...key.origin.path.map(stepText)].join('/')}]` : '';
  const body = key.source.type === 'hex' ? Buffer.from(key.source.bytes).toString('hex') : encodeKey(key.source.key);
  const steps = key.path.map((s) => '/' + stepText(typeof s === 'number' ? s : (s[branch] as number))).join('');
  return `${origin}${body}${steps}${key.wildcard ? '/*' : ''}`;
}
