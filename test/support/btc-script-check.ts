/**
 * An independent checker of the spends the chain builder makes: recognises the spent output by its raw
 * byte template (not through the builder's own code), recomputes the sighash with bitcoinjs-lib's
 * Transaction hash functions and verifies every signature with tiny-secp256k1. It mirrors the parts of
 * Core's script interpreter the builder's templates exercise (VerifyScript, CHECKMULTISIG ordering,
 * BIP143, BIP341 key path), not the whole interpreter.
 */
import { crypto as bcrypto, script as bscript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';

export type SpendTemplate = 'p2pkh' | 'p2pk' | 'bare-multisig' | 'p2sh-multisig' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2wsh' | 'p2tr';

export interface CheckPrevout {
  readonly script: Uint8Array;
  readonly value: bigint;
}

export class ScriptCheckError extends Error {}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;
const fail = (msg: string): never => {
  throw new ScriptCheckError(msg);
};

function pushes(script: Uint8Array): (number | Uint8Array)[] {
  return bscript.decompile(script) ?? fail(`undecodable script ${hex(script)}`);
}

function bytesAt(items: (number | Uint8Array)[], i: number): Uint8Array {
  const item = items[i];
  // OP_0 decompiles to the number 0 but is an empty push for the stack.
  if (item === bscript.OPS.OP_0) return new Uint8Array(0);
  return item instanceof Uint8Array ? item : fail(`item ${i} is opcode ${String(item)}, not data`);
}

function verifyEcdsa(der: Uint8Array, pubkey: Uint8Array, hashFor: (hashType: number) => Uint8Array): boolean {
  const { signature, hashType } = bscript.signature.decode(der);
  return ecc.verify(hashFor(hashType), pubkey, signature, true);
}

/** `OP_m <pk>… OP_n OP_CHECKMULTISIG` → m and the keys, or null. */
function parseMultisig(script: Uint8Array): { m: number; keys: Uint8Array[] } | null {
  const c = bscript.decompile(script);
  if (!c || c.length < 4 || c[c.length - 1] !== bscript.OPS.OP_CHECKMULTISIG) return null;
  const m = (c[0] as number) - bscript.OPS.OP_1 + 1;
  const n = (c[c.length - 2] as number) - bscript.OPS.OP_1 + 1;
  const keys = c.slice(1, -2);
  if (keys.length !== n || !keys.every((k) => k instanceof Uint8Array) || m < 1 || m > n) return null;
  return { m, keys: keys as Uint8Array[] };
}

/** CHECKMULTISIG: signatures must match keys in key order, each key used at most once. */
function checkMultisig(sigs: Uint8Array[], ms: { m: number; keys: Uint8Array[] }, hashFor: (t: number) => Uint8Array): void {
  if (sigs.length !== ms.m) fail(`multisig wants ${ms.m} signatures, got ${sigs.length}`);
  let k = 0;
  for (const sig of sigs) {
    while (k < ms.keys.length && !verifyEcdsa(sig, ms.keys[k] as Uint8Array, hashFor)) k++;
    if (k === ms.keys.length) fail('multisig signature matches no remaining key');
    k++;
  }
}

function p2pkhCode(keyHash: Uint8Array): Uint8Array {
  return Uint8Array.from([0x76, 0xa9, 0x14, ...keyHash, 0x88, 0xac]);
}

/**
 * Verifies input `index` of `tx` against its spent output; `prevouts` lists every input's spent
 * output. Returns the template recognised; throws ScriptCheckError when anything does not verify.
 */
export function checkInput(tx: Transaction, index: number, prevouts: readonly CheckPrevout[]): SpendTemplate {
  const input = tx.ins[index] ?? fail(`no input ${index}`);
  const prev = prevouts[index] ?? fail(`no prevout ${index}`);
  const s = prev.script;
  const sig = pushes(input.script);
  const wit = input.witness;
  const legacy = (code: Uint8Array) => (t: number) => tx.hashForSignature(index, code, t);
  const v0 = (code: Uint8Array) => (t: number) => tx.hashForWitnessV0(index, code, prev.value, t);

  if (s.length === 25 && hex(s.subarray(0, 3)) === '76a914' && hex(s.subarray(23)) === '88ac') {
    const pubkey = bytesAt(sig, 1);
    if (!eq(bcrypto.hash160(pubkey), s.subarray(3, 23))) fail('p2pkh: key hash mismatch');
    if (!verifyEcdsa(bytesAt(sig, 0), pubkey, legacy(s))) fail('p2pkh: bad signature');
    return 'p2pkh';
  }
  if ((s.length === 35 || s.length === 67) && s[0] === s.length - 2 && s[s.length - 1] === 0xac) {
    if (!verifyEcdsa(bytesAt(sig, 0), s.subarray(1, s.length - 1), legacy(s))) fail('p2pk: bad signature');
    return 'p2pk';
  }
  const bare = parseMultisig(s);
  if (bare) {
    if (bytesAt(sig, 0).length !== 0) fail('bare multisig: dummy element not empty (NULLDUMMY)');
    checkMultisig(
      sig.slice(1).map((_, i) => bytesAt(sig, i + 1)),
      bare,
      legacy(s),
    );
    return 'bare-multisig';
  }
  if (s.length === 23 && hex(s.subarray(0, 2)) === 'a914' && s[22] === 0x87) {
    const redeem = bytesAt(sig, sig.length - 1);
    if (!eq(bcrypto.hash160(redeem), s.subarray(2, 22))) fail('p2sh: redeem script hash mismatch');
    if (redeem.length === 22 && hex(redeem.subarray(0, 2)) === '0014') {
      if (sig.length !== 1) fail('p2sh-p2wpkh: scriptSig must be the redeem push only');
      const [wsig, pubkey] = wit;
      if (wit.length !== 2 || !wsig || !pubkey) fail('p2sh-p2wpkh: witness must be [sig, pubkey]');
      if (!eq(bcrypto.hash160(pubkey as Uint8Array), redeem.subarray(2))) fail('p2sh-p2wpkh: key hash mismatch');
      if (!verifyEcdsa(wsig as Uint8Array, pubkey as Uint8Array, v0(p2pkhCode(redeem.subarray(2))))) {
        fail('p2sh-p2wpkh: bad signature');
      }
      return 'p2sh-p2wpkh';
    }
    const ms = parseMultisig(redeem) ?? fail('p2sh: redeem script is not multisig');
    if (bytesAt(sig, 0).length !== 0) fail('p2sh multisig: dummy element not empty');
    checkMultisig(
      sig.slice(1, -1).map((_, i) => bytesAt(sig, i + 1)),
      ms,
      legacy(redeem),
    );
    return 'p2sh-multisig';
  }
  if (input.script.length !== 0) fail('native witness spend with a non-empty scriptSig');
  if (s.length === 22 && hex(s.subarray(0, 2)) === '0014') {
    const [wsig, pubkey] = wit;
    if (wit.length !== 2 || !wsig || !pubkey) fail('p2wpkh: witness must be [sig, pubkey]');
    if (!eq(bcrypto.hash160(pubkey as Uint8Array), s.subarray(2))) fail('p2wpkh: key hash mismatch');
    if (!verifyEcdsa(wsig as Uint8Array, pubkey as Uint8Array, v0(p2pkhCode(s.subarray(2))))) fail('p2wpkh: bad signature');
    return 'p2wpkh';
  }
  if (s.length === 34 && hex(s.subarray(0, 2)) === '0020') {
    const ws = wit[wit.length - 1] ?? fail('p2wsh: empty witness');
    if (!eq(bcrypto.sha256(ws), s.subarray(2))) fail('p2wsh: witness script hash mismatch');
    const ms = parseMultisig(ws) ?? fail('p2wsh: witness script is not multisig');
    if (wit[0]?.length !== 0) fail('p2wsh: dummy element not empty');
    checkMultisig(wit.slice(1, -1), ms, v0(ws));
    return 'p2wsh';
  }
  if (s.length === 34 && hex(s.subarray(0, 2)) === '5120') {
    const [ssig] = wit;
    if (wit.length !== 1 || !ssig || (ssig.length !== 64 && ssig.length !== 65)) fail('p2tr: key path witness must be one signature');
    const hashType = ssig?.length === 65 ? (ssig[64] as number) : Transaction.SIGHASH_DEFAULT;
    const hash = tx.hashForWitnessV1(
      index,
      prevouts.map((p) => p.script),
      prevouts.map((p) => p.value),
      hashType,
    );
    if (!ecc.verifySchnorr(hash, s.subarray(2), (ssig as Uint8Array).subarray(0, 64))) fail('p2tr: bad Schnorr signature');
    return 'p2tr';
  }
  return fail(`unrecognised prevout script ${hex(s)}`);
}
