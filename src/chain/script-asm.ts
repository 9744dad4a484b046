/**
 * A script in the assembly text Esplora shows (`scriptpubkey_asm`, `scriptsig_asm`): rust-bitcoin's
 * formatter, which Blockstream's electrs prints. Pushes are their opcode then the data in hex
 * (`OP_PUSHBYTES_20 89ab…`); 0x00 is `OP_0`, 0x51–0x60 `OP_PUSHNUM_1`–`_16`, 0xb1/0xb2 `OP_CLTV`/`OP_CSV`,
 * 0xbb–0xfe `OP_RETURN_<byte>`. Data never becomes numbers. A push longer than what is left ends the
 * text with `<push past end>`; a PUSHDATA whose length is cut off with `<unexpected end>`, right after the
 * previous token. Pure.
 */

const NAMES: readonly string[] = (() => {
  const names = new Array<string>(256);
  names[0] = 'OP_0';
  for (let b = 0x01; b <= 0x4b; b++) names[b] = `OP_PUSHBYTES_${b}`;
  for (let b = 0x51; b <= 0x60; b++) names[b] = `OP_PUSHNUM_${b - 0x50}`;
  for (let b = 0xbb; b <= 0xfe; b++) names[b] = `OP_RETURN_${b}`;
  // prettier-ignore
  const named: [number, string][] = [
    [0x4c, 'PUSHDATA1'], [0x4d, 'PUSHDATA2'], [0x4e, 'PUSHDATA4'], [0x4f, 'PUSHNUM_NEG1'], [0x50, 'RESERVED'],
    [0x61, 'NOP'], [0x62, 'VER'], [0x63, 'IF'], [0x64, 'NOTIF'], [0x65, 'VERIF'], [0x66, 'VERNOTIF'], [0x67, 'ELSE'],
    [0x68, 'ENDIF'], [0x69, 'VERIFY'], [0x6a, 'RETURN'], [0x6b, 'TOALTSTACK'], [0x6c, 'FROMALTSTACK'], [0x6d, '2DROP'],
    [0x6e, '2DUP'], [0x6f, '3DUP'], [0x70, '2OVER'], [0x71, '2ROT'], [0x72, '2SWAP'], [0x73, 'IFDUP'], [0x74, 'DEPTH'],
    [0x75, 'DROP'], [0x76, 'DUP'], [0x77, 'NIP'], [0x78, 'OVER'], [0x79, 'PICK'], [0x7a, 'ROLL'], [0x7b, 'ROT'],
    [0x7c, 'SWAP'], [0x7d, 'TUCK'], [0x7e, 'CAT'], [0x7f, 'SUBSTR'], [0x80, 'LEFT'], [0x81, 'RIGHT'], [0x82, 'SIZE'],
    [0x83, 'INVERT'], [0x84, 'AND'], [0x85, 'OR'], [0x86, 'XOR'], [0x87, 'EQUAL'], [0x88, 'EQUALVERIFY'],
    [0x89, 'RESERVED1'], [0x8a, 'RESERVED2'], [0x8b, '1ADD'], [0x8c, '1SUB'], [0x8d, '2MUL'], [0x8e, '2DIV'],
    [0x8f, 'NEGATE'], [0x90, 'ABS'], [0x91, 'NOT'], [0x92, '0NOTEQUAL'], [0x93, 'ADD'], [0x94, 'SUB'], [0x95, 'MUL'],
    [0x96, 'DIV'], [0x97, 'MOD'], [0x98, 'LSHIFT'], [0x99, 'RSHIFT'], [0x9a, 'BOOLAND'], [0x9b, 'BOOLOR'],
    [0x9c, 'NUMEQUAL'], [0x9d, 'NUMEQUALVERIFY'], [0x9e, 'NUMNOTEQUAL'], [0x9f, 'LESSTHAN'], [0xa0, 'GREATERTHAN'],
    [0xa1, 'LESSTHANOREQUAL'], [0xa2, 'GREATERTHANOREQUAL'], [0xa3, 'MIN'], [0xa4, 'MAX'], [0xa5, 'WITHIN'],
    [0xa6, 'RIPEMD160'], [0xa7, 'SHA1'], [0xa8, 'SHA256'], [0xa9, 'HASH160'], [0xaa, 'HASH256'],
    [0xab, 'CODESEPARATOR'], [0xac, 'CHECKSIG'], [0xad, 'CHECKSIGVERIFY'], [0xae, 'CHECKMULTISIG'],
    [0xaf, 'CHECKMULTISIGVERIFY'], [0xb0, 'NOP1'], [0xb1, 'CLTV'], [0xb2, 'CSV'], [0xb3, 'NOP4'], [0xb4, 'NOP5'],
    [0xb5, 'NOP6'], [0xb6, 'NOP7'], [0xb7, 'NOP8'], [0xb8, 'NOP9'], [0xb9, 'NOP10'], [0xba, 'CHECKSIGADD'],
    [0xff, 'INVALIDOPCODE'],
  ];
  for (const [b, name] of named) names[b] = `OP_${name}`;
  return names;
})();

/** The length field's bytes of PUSHDATA1/2/4; 0 for every other opcode. */
const lengthBytes = (op: number): number => (op === 0x4c ? 1 : op === 0x4d ? 2 : op === 0x4e ? 4 : 0);

export function scriptAsm(script: Uint8Array): string {
  const bytes = Buffer.from(script.buffer, script.byteOffset, script.byteLength);
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const op = bytes[i++]!;
    let n = op <= 0x4b ? op : 0;
    const field = lengthBytes(op);
    if (field > 0) {
      if (bytes.length - i < field) return `${out}<unexpected end>`;
      n = bytes.readUIntLE(i, field);
      i += field;
    }
    out += (out === '' ? '' : ' ') + NAMES[op]!;
    if (n > 0) {
      if (n > bytes.length - i) return `${out} <push past end>`;
      out += ` ${bytes.toString('hex', i, i + n)}`;
      i += n;
    }
  }
  return out;
}

/**
 * The data of the script's last push, when its last instruction is one (a complete one); null otherwise.
 * Esplora shows it as the redeem script of a P2SH spend.
 */
export function lastPush(script: Uint8Array): Buffer | null {
  const bytes = Buffer.from(script.buffer, script.byteOffset, script.byteLength);
  let last: Buffer | null = null;
  let i = 0;
  while (i < bytes.length) {
    const op = bytes[i++]!;
    const field = lengthBytes(op);
    if (op > 0x4e) {
      last = null;
      continue;
    }
    if (bytes.length - i < field) return null;
    const n = field > 0 ? bytes.readUIntLE(i, field) : op;
    i += field;
    if (n > bytes.length - i) return null;
    last = bytes.subarray(i, i + n);
    i += n;
  }
  return last;
}
