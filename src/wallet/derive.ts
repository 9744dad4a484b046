/**
 * Expands a parsed descriptor into the scripts it names: for each multipath branch, indices
 * 0 … range-1 of a ranged descriptor (as `scantxoutset` reads `"range": [0, range-1]`), or its one
 * script otherwise. Keys come from bip32 (the ranged step on child-key.ts's path), scripts from
 * bitcoinjs-lib; each fixed part of a key's path is derived once per branch, not once per index.
 */
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { hash } from 'node:crypto';
import { opcodes, payments, script } from 'bitcoinjs-lib';
import { hash160 } from '../chain/hash.js';
// The address codec registers the ECC backend bitcoinjs needs for p2tr; descriptor.ts imports it too.
import '../chain/address.js';
import { descriptorKeys, type Descriptor, type ScriptNode } from './descriptor.js';
import { childKeys, type ChildKeys } from './child-key.js';
import { ecc, nativeBinding } from './ecc.js';
import { WalletError } from './errors.js';
import { HARDENED, stepText, type KeyExpression } from './key-expression.js';

const bip32 = BIP32Factory(ecc);

export interface DerivedScript {
  /** Which multipath alternative (0 without multipath). */
  readonly branch: number;
  /** The `*` index, or null for a descriptor without one. */
  readonly index: number | null;
  /**
   * Derivation path of the descriptor's first key: from the master (`m/…`) when the key has an origin,
   * else relative to the extended key (`0/5`); null when the descriptor has no extended key.
   */
  readonly path: string | null;
  readonly script: Uint8Array;
}

export interface RangeLimits {
  /** Indices 0 … range-1 of every branch. */
  readonly range: number;
  /** The operator's cap on `range`. */
  readonly maxRange: number;
}

/** Core's ranged derivation stops below the hardened index space. */
const MAX_INDEX = HARDENED;

/** Throws BAD_RANGE or RANGE_TOO_LARGE unless deriveScripts would accept `limits` for `desc`. */
export function checkRange(desc: Descriptor, { range, maxRange }: RangeLimits): void {
  if (!Number.isSafeInteger(range) || range < 1) throw new WalletError('BAD_RANGE', 'range must be a whole number of at least 1');
  if (range > maxRange || range > MAX_INDEX) throw new WalletError('RANGE_TOO_LARGE', `range is at most ${Math.min(maxRange, MAX_INDEX)}`);
  // A bare key's two branches at the cap are the most one request derives.
  if (desc.ranged && desc.branches * range > 2 * maxRange) {
    throw new WalletError('RANGE_TOO_LARGE', `${desc.branches} branches × range ${range} exceeds ${2 * maxRange} scripts`);
  }
}

/** How many scripts deriveScripts names for `range`: known before any key is derived. */
export function scriptCount(desc: Descriptor, range: number): number {
  return desc.ranged ? desc.branches * range : desc.branches;
}

/**
 * What deriving the wallet costs, known before any key is derived (a request's price and its place in
 * the derivation queue): one unit per child key derived at a script's index, so a script of 16 ranged
 * keys costs 16 and a bare key's script 1; a script that derives nothing (hex keys, addr, raw) still
 * costs 1 to build and look up.
 */
export function derivationWork(desc: Descriptor, range: number): number {
  return scriptCount(desc, range) * workPerScript(desc);
}

/** Units of derivationWork per script: the ranged extended keys each script derives a child of. */
export function workPerScript(desc: Descriptor): number {
  const ranged = descriptorKeys(desc).filter((k) => k.source.type === 'xpub' && k.wildcard).length;
  return Math.max(1, ranged);
}

/** Per key and branch: the node at the end of the fixed path, derived once, and its children. */
class KeyDeriver {
  private readonly bases = new Map<KeyExpression, Map<number, ChildKeys & { readonly node: BIP32Interface }>>();

  private base(key: KeyExpression & { source: { type: 'xpub' } }, branch: number): ChildKeys & { readonly node: BIP32Interface } {
    let byBranch = this.bases.get(key);
    if (!byBranch) this.bases.set(key, (byBranch = new Map()));
    let base = byBranch.get(branch);
    if (!base) {
      let node = bip32.fromPublicKey(Buffer.from(key.source.key.publicKey), Buffer.from(key.source.key.chainCode));
      for (const step of key.path) node = node.derive(typeof step === 'number' ? step : (step[branch] as number));
      // bip32 hashes a parent's key into its fingerprint again for every child it derives (a getter, not
      // cached); where bip32 derives the children (child-key.ts), it is hashed once here.
      Object.defineProperty(node, 'fingerprint', { value: node.fingerprint });
      base = Object.assign(childKeys(node, nativeBinding), { node });
      byBranch.set(branch, base);
    }
    return base;
  }

  publicKey(key: KeyExpression, branch: number, index: number): Uint8Array {
    if (key.source.type === 'hex') return key.source.bytes;
    const base = this.base(key as KeyExpression & { source: { type: 'xpub' } }, branch);
    return key.wildcard ? base(index) : base.node.publicKey;
  }
}

/**
 * bitcoinjs builds each script: `script.compile` from the template where the template holds a hash
 * (pkh, wpkh, sh, wsh), `payments` for the rest. payments re-checks what is known here (that a key is a
 * point, that a script decompiles) and builds its lazy schema per call, ≈ 17 µs a script against ≈ 4 µs
 * for the template (BENCHMARKS.md, figures behind design choices); the hashes are node:crypto's. The
 * keys are points by construction (libsecp256k1 derives them, and key-expression.ts checks a hex key
 * and refuses an uncompressed one inside a witness script), and inner scripts come from this function.
 */
function scriptOf(node: ScriptNode, keys: KeyDeriver, branch: number, index: number): Uint8Array {
  const pub = (k: KeyExpression) => keys.publicKey(k, branch, index);
  let out: Uint8Array | undefined;
  switch (node.fn) {
    case 'pk':
      out = payments.p2pk({ pubkey: pub(node.key) }).output;
      break;
    case 'pkh':
      out = script.compile([opcodes.OP_DUP, opcodes.OP_HASH160, hash160(pub(node.key)), opcodes.OP_EQUALVERIFY, opcodes.OP_CHECKSIG]);
      break;
    case 'wpkh':
      out = script.compile([opcodes.OP_0, hash160(pub(node.key))]);
      break;
    case 'tr': {
      const key = pub(node.key);
      out = payments.p2tr({ internalPubkey: key.length === 32 ? key : key.slice(1, 33) }).output;
      break;
    }
    case 'multi':
    case 'sortedmulti': {
      const pubkeys = node.keys.map(pub);
      if (node.fn === 'sortedmulti') pubkeys.sort((a, b) => Buffer.compare(a, b));
      out = payments.p2ms({ m: node.threshold, pubkeys }).output;
      break;
    }
    case 'sh':
      out = script.compile([opcodes.OP_HASH160, hash160(scriptOf(node.inner, keys, branch, index)), opcodes.OP_EQUAL]);
      break;
    case 'wsh':
      out = script.compile([opcodes.OP_0, hash('sha256', scriptOf(node.inner, keys, branch, index), 'buffer')]);
      break;
    case 'addr':
    case 'raw':
      out = node.script;
  }
  if (!out) throw new Error(`bitcoinjs built no output for ${node.fn}()`);
  return out;
}

function pathOf(key: KeyExpression | undefined, branch: number, index: number | null): string | null {
  if (!key || key.source.type !== 'xpub') return null;
  const steps = key.path.map((s) => stepText(typeof s === 'number' ? s : (s[branch] as number)));
  if (index !== null) steps.push(String(index));
  return key.origin ? ['m', ...key.origin.path.map(stepText), ...steps].join('/') : steps.join('/');
}

/**
 * The scripts of one wallet, derived slice by slice (the derivation pool hands out slices so that one
 * large wallet cannot hold a worker for long): item `i` of the flat order is branch ⌊i / perBranch⌋ at
 * index i mod perBranch, the order deriveScripts answers in. Each fixed part of a key's path is derived
 * once per deriver, whatever the slices.
 */
export class WalletDeriver {
  private readonly keys = new KeyDeriver();
  private readonly first: KeyExpression | undefined;
  readonly perBranch: number;
  readonly total: number;

  constructor(
    private readonly desc: Descriptor,
    limits: RangeLimits,
  ) {
    checkRange(desc, limits);
    this.first = descriptorKeys(desc).find((k) => k.source.type === 'xpub');
    this.perBranch = desc.ranged ? limits.range : 1;
    this.total = desc.branches * this.perBranch;
  }

  /** Items from … to-1 of the flat order. */
  slice(from: number, to: number): DerivedScript[] {
    if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to && to <= this.total))
      throw new RangeError(`no slice ${from}…${to} of ${this.total} scripts`);
    const out: DerivedScript[] = [];
    for (let at = from; at < to; at++) {
      const branch = Math.floor(at / this.perBranch);
      const i = at % this.perBranch;
      const index = this.desc.ranged ? i : null;
      out.push({ branch, index, path: pathOf(this.first, branch, index), script: scriptOf(this.desc.root, this.keys, branch, i) });
    }
    return out;
  }
}

/** Every script the descriptor names over `limits.range`, branch by branch, in index order. */
export function deriveScripts(desc: Descriptor, limits: RangeLimits): DerivedScript[] {
  const deriver = new WalletDeriver(desc, limits);
  return deriver.slice(0, deriver.total);
}
