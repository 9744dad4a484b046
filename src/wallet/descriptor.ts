/**
 * Output descriptors (BIP380–BIP389) as far as a balance lookup needs them: pk, pkh, wpkh, sh, wsh, tr
 * (key path only, BIP386), multi and sortedmulti, addr and raw. Parsing checks what Core's
 * ParseScript checks for these forms (nesting, key kinds, multisig bounds) and the BIP380 checksum
 * when one is given; canonicalDescriptors prints one descriptor per multipath branch, as Core's
 * getdescriptorinfo expands them, each with its checksum.
 */
import { addressToScript, scriptToAddress } from '../chain/address.js';
import type { ChainParams } from '../chain/params.js';
import { descriptorChecksum } from './checksum.js';
import { WalletError, malformed } from './errors.js';
import { encodeExtendedKey, refusePrivateKeys } from './extended-key.js';
import { keyExpressionString, parseKeyExpression, type KeyExpression } from './key-expression.js';

export type ScriptNode =
  | { readonly fn: 'pk' | 'pkh' | 'wpkh' | 'tr'; readonly key: KeyExpression }
  | { readonly fn: 'multi' | 'sortedmulti'; readonly threshold: number; readonly keys: readonly KeyExpression[] }
  | { readonly fn: 'sh' | 'wsh'; readonly inner: ScriptNode }
  | { readonly fn: 'addr'; readonly script: Uint8Array }
  | { readonly fn: 'raw'; readonly script: Uint8Array };

export interface Descriptor {
  readonly params: ChainParams;
  readonly root: ScriptNode;
  /** Multipath alternatives shared by every multipath key; 1 without multipath. */
  readonly branches: number;
  /** True when some key ends in `/*`: the descriptor names one script per index. */
  readonly ranged: boolean;
}

/** Longer input is refused before parsing: 16 extended keys with origins fit well within it. */
export const MAX_DESCRIPTOR_LENGTH = 4096;
/**
 * Keys of one multi(): OP_1…OP_16, what bitcoinjs's p2ms encodes (Core reads up to 20 inside wsh());
 * a bare multi() takes at most 3, as in Core.
 */
const MAX_MULTISIG_KEYS = 16;
const MAX_BARE_MULTISIG_KEYS = 3;
/** A P2SH redeem script is one push (Core's MAX_SCRIPT_ELEMENT_SIZE). */
const MAX_SCRIPT_ELEMENT_SIZE = 520;
const CHECKSUM = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{8}$/;

type Context = 'top' | 'sh' | 'wsh';

/** Splits `a,b(c,d),e` at the commas outside any bracket. */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '{' || ch === '[') depth++;
    else if (ch === ')' || ch === '}' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw malformed('unbalanced brackets');
  }
  if (depth !== 0) throw malformed('unbalanced brackets');
  out.push(text.slice(start));
  return out;
}

function parseCall(text: string): { fn: string; args: string[] } {
  const open = text.indexOf('(');
  if (open <= 0 || !text.endsWith(')')) throw malformed('expected a script expression such as wpkh(…)');
  return { fn: text.slice(0, open), args: splitArgs(text.slice(open + 1, -1)) };
}

function one(fn: string, args: string[]): string {
  if (args.length !== 1 || args[0] === '') throw malformed(`${fn}() takes exactly one argument`);
  return args[0] as string;
}

function parseMulti(params: ChainParams, fn: 'multi' | 'sortedmulti', args: string[], ctx: Context): ScriptNode {
  const [k = '', ...keyTexts] = args;
  if (!/^\d{1,2}$/.test(k)) throw malformed(`${fn}(): the threshold is not a small number`);
  const threshold = Number(k);
  const max = ctx === 'top' ? MAX_BARE_MULTISIG_KEYS : MAX_MULTISIG_KEYS;
  if (keyTexts.length < 1 || keyTexts.length > max) throw malformed(`${fn}(): takes 1 to ${max} keys here`);
  if (threshold < 1 || threshold > keyTexts.length) throw malformed(`${fn}(): the threshold must be between 1 and the number of keys`);
  const keys = keyTexts.map((t, i) =>
    parseKeyExpression(t, { params, what: `key ${i + 1} of ${fn}()`, compressedOnly: ctx === 'wsh', xonly: false }),
  );
  return { fn, threshold, keys };
}

/** Size of a multisig script (OP_k, a push per key, OP_n, OP_CHECKMULTISIG); 0 for anything else. */
function multisigScriptSize(node: ScriptNode): number {
  if (node.fn !== 'multi' && node.fn !== 'sortedmulti') return 0;
  return 3 + node.keys.reduce((n, k) => n + 1 + (k.source.type === 'hex' ? k.source.bytes.length : 33), 0);
}

function parseHexScript(text: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw malformed('raw() takes hex');
  return Buffer.from(text, 'hex');
}

function parseScript(params: ChainParams, text: string, ctx: Context): ScriptNode {
  const { fn, args } = parseCall(text);
  const keyCtx = (compressedOnly: boolean, xonly = false) => ({ params, what: `the key of ${fn}()`, compressedOnly, xonly });
  switch (fn) {
    case 'pk':
    case 'pkh':
      return { fn, key: parseKeyExpression(one(fn, args), keyCtx(ctx === 'wsh')) };
    case 'wpkh':
      if (ctx === 'wsh') throw malformed('wpkh() cannot be inside wsh()');
      return { fn, key: parseKeyExpression(one(fn, args), keyCtx(true)) };
    case 'multi':
    case 'sortedmulti':
      return parseMulti(params, fn, args, ctx);
    case 'sh': {
      if (ctx !== 'top') throw malformed('sh() must be at the top level');
      const inner = parseScript(params, one(fn, args), 'sh');
      if (multisigScriptSize(inner) > MAX_SCRIPT_ELEMENT_SIZE) throw malformed('sh(): the redeem script is over 520 bytes');
      return { fn, inner };
    }
    case 'wsh':
      if (ctx === 'wsh') throw malformed('wsh() cannot be inside wsh()');
      return { fn, inner: parseScript(params, one(fn, args), 'wsh') };
    case 'tr':
      if (ctx !== 'top') throw malformed('tr() must be at the top level');
      if (args.length > 1) throw malformed('tr() with a script tree is not supported; give its key path only');
      return { fn, key: parseKeyExpression(one(fn, args), keyCtx(true, true)) };
    case 'addr': {
      if (ctx !== 'top') throw malformed('addr() must be at the top level');
      const result = addressToScript(params, one(fn, args));
      if (result.ok) return { fn, script: result.script };
      const code = result.error.code === 'WRONG_NETWORK' || result.error.code === 'WRONG_CHAIN' ? 'WRONG_NETWORK' : 'MALFORMED_DESCRIPTOR';
      throw new WalletError(code, `addr(): ${result.error.message}`);
    }
    case 'raw':
      if (ctx !== 'top') throw malformed('raw() must be at the top level');
      return { fn, script: parseHexScript(one(fn, args)) };
    default:
      throw malformed(`unsupported script expression: ${fn.slice(0, 16)}()`);
  }
}

function keysOf(node: ScriptNode): readonly KeyExpression[] {
  switch (node.fn) {
    case 'sh':
    case 'wsh':
      return keysOf(node.inner);
    case 'multi':
    case 'sortedmulti':
      return node.keys;
    case 'addr':
    case 'raw':
      return [];
    default:
      return [node.key];
  }
}

export function descriptorKeys(desc: Descriptor): readonly KeyExpression[] {
  return keysOf(desc.root);
}

/** Parses a descriptor of `params`' network; a `#checksum`, when present, must match. */
export function parseDescriptor(params: ChainParams, text: string): Descriptor {
  if (text.length > MAX_DESCRIPTOR_LENGTH) throw malformed(`a descriptor is at most ${MAX_DESCRIPTOR_LENGTH} characters`);
  // A private key is refused before anything else is judged, so no other error can hide it.
  refusePrivateKeys(text);
  const hash = text.indexOf('#');
  const body = hash < 0 ? text : text.slice(0, hash);
  const checksum = hash < 0 ? null : text.slice(hash + 1);
  if (checksum !== null && !CHECKSUM.test(checksum))
    throw new WalletError('BAD_CHECKSUM', 'a descriptor checksum is 8 characters of the bech32 charset');
  const root = parseScript(params, body, 'top');
  const keys = keysOf(root);
  const counts = new Set(keys.map((k) => k.branches).filter((n) => n > 1));
  if (counts.size > 1) throw malformed('every multipath step of a descriptor must have as many alternatives');
  if (checksum !== null && descriptorChecksum(body) !== checksum)
    throw new WalletError('BAD_CHECKSUM', 'the descriptor checksum does not match');
  return { params, root, branches: [...counts][0] ?? 1, ranged: keys.some((k) => k.wildcard) };
}

function nodeString(desc: Descriptor, node: ScriptNode, branch: number): string {
  const key = (k: KeyExpression) => keyExpressionString(k, branch, (x) => encodeExtendedKey(desc.params, x));
  switch (node.fn) {
    case 'sh':
    case 'wsh':
      return `${node.fn}(${nodeString(desc, node.inner, branch)})`;
    case 'multi':
    case 'sortedmulti':
      return `${node.fn}(${[String(node.threshold), ...node.keys.map(key)].join(',')})`;
    case 'addr':
      return `addr(${scriptToAddress(desc.params, node.script) ?? ''})`;
    case 'raw':
      return `raw(${Buffer.from(node.script).toString('hex')})`;
    default:
      return `${node.fn}(${key(node.key)})`;
  }
}

/** One canonical descriptor per branch, each `body#checksum`. */
export function canonicalDescriptors(desc: Descriptor): string[] {
  return Array.from({ length: desc.branches }, (_, b) => {
    const body = nodeString(desc, desc.root, b);
    return `${body}#${descriptorChecksum(body) ?? ''}`;
  });
}
