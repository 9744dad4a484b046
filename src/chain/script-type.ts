/**
 * What kind of output a scriptPubKey is, named as Bitcoin and Litecoin Core name it in
 * decoderawtransaction's `scriptPubKey.type` (Core's Solver, script/standard.cpp), so an explorer can
 * show one name whichever it asks. Litecoin's two MWEB programs (witness v8 and v9 of 32 bytes, the
 * HogEx's HogAddr and a peg-in's output) have names of their own there; on Bitcoin they are
 * witness_unknown. Pure.
 */

export type ScriptType =
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_v1_taproot'
  | 'witness_mweb_hogaddr'
  | 'witness_mweb_pegin'
  | 'witness_unknown'
  | 'nonstandard';

const OP_0 = 0x00;
const OP_PUSHDATA4 = 0x4e;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_RETURN = 0x6a;
const OP_DUP = 0x76;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;
const OP_CHECKMULTISIG = 0xae;
const MAX_PUBKEYS_PER_MULTISIG = 20;

/** One opcode and, for a push, its data; null where the script cannot be read further (a push cut short). */
interface Op {
  readonly op: number;
  readonly data: Uint8Array | null;
}

/** CScript::GetOp over the whole script; null when a push runs past its end. */
function ops(script: Uint8Array): Op[] | null {
  const out: Op[] = [];
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    if (op > OP_PUSHDATA4) {
      out.push({ op, data: null });
      continue;
    }
    let size = op;
    const widths: Record<number, number> = { 0x4c: 1, 0x4d: 2, 0x4e: 4 };
    const width = widths[op];
    if (width !== undefined) {
      if (i + width > script.length) return null;
      size = 0;
      for (let b = width - 1; b >= 0; b--) size = size * 256 + script[i + b]!;
      i += width;
    }
    if (i + size > script.length) return null;
    out.push({ op, data: script.subarray(i, i + size) });
    i += size;
  }
  return out;
}

/** CPubKey::ValidSize: a compressed (33 bytes, 02/03) or uncompressed (65 bytes, 04/06/07) key's shape. */
function pubkeyShaped(data: Uint8Array | null): boolean {
  if (data === null) return false;
  if (data.length === 33) return data[0] === 0x02 || data[0] === 0x03;
  if (data.length === 65) return data[0] === 0x04 || data[0] === 0x06 || data[0] === 0x07;
  return false;
}

/** CScript::DecodeOP_N for OP_1 … OP_16; null for anything else. */
const smallInt = (op: number): number | null => (op >= OP_1 && op <= OP_16 ? op - OP_1 + 1 : null);

function multisig(list: readonly Op[]): boolean {
  if (list.length < 4 || list[list.length - 1]!.op !== OP_CHECKMULTISIG) return false;
  const required = smallInt(list[0]!.op);
  const keys = smallInt(list[list.length - 2]!.op);
  if (required === null || keys === null || keys > MAX_PUBKEYS_PER_MULTISIG) return false;
  const pubkeys = list.slice(1, -2);
  return pubkeys.length === keys && required <= keys && pubkeys.every((o) => pubkeyShaped(o.data));
}

/** CScript::IsWitnessProgram: a version opcode, then one push of 2 … 40 bytes that ends the script. */
function witness(script: Uint8Array): { version: number; size: number } | null {
  if (script.length < 4 || script.length > 42) return null;
  const op = script[0]!;
  if (op !== OP_0 && smallInt(op) === null) return null;
  if (script[1]! + 2 !== script.length) return null;
  return { version: op === OP_0 ? 0 : smallInt(op)!, size: script[1]! };
}

/** Core's Solver's answer for `script`; `mweb`: the chain knows Litecoin's MWEB programs. */
export function scriptType(script: Uint8Array, mweb: boolean): ScriptType {
  if (script.length === 23 && script[0] === OP_HASH160 && script[1] === 20 && script[22] === OP_EQUAL) return 'scripthash';
  const program = witness(script);
  if (program !== null) {
    const { version, size } = program;
    if (version === 0 && size === 20) return 'witness_v0_keyhash';
    if (version === 0 && size === 32) return 'witness_v0_scripthash';
    if (version === 1 && size === 32) return 'witness_v1_taproot';
    if (mweb && version === 8 && size === 32) return 'witness_mweb_hogaddr';
    if (mweb && version === 9 && size === 32) return 'witness_mweb_pegin';
    if (version !== 0) return 'witness_unknown';
    return 'nonstandard';
  }
  const list = ops(script);
  if (list === null) return 'nonstandard';
  // IsPushOnly after OP_RETURN: every later opcode a push (OP_1 … OP_16 and OP_1NEGATE count as pushes).
  if (script[0] === OP_RETURN && list.slice(1).every((o) => o.op <= OP_16)) return 'nulldata';
  // MatchPayToPubkey: the key pushed directly (its size as the opcode), then OP_CHECKSIG.
  if (list.length === 2 && list[1]!.op === OP_CHECKSIG && list[0]!.op === script.length - 2 && pubkeyShaped(list[0]!.data)) return 'pubkey';
  if (
    script.length === 25 &&
    script[0] === OP_DUP &&
    script[1] === OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP_EQUALVERIFY &&
    script[24] === OP_CHECKSIG
  )
    return 'pubkeyhash';
  if (multisig(list)) return 'multisig';
  return 'nonstandard';
}
