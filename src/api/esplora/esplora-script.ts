/**
 * `scriptpubkey_type` as Blockstream's electrs names an output script: by its bytes alone, first match
 * wins. There is no multisig type (bare multisig is `unknown`), and witness programs of versions 2 and up
 * are `unknown` too (Litecoin's MWEB peg-in and HogAddr programs among them). Pure.
 */

export type EsploraScriptType = 'empty' | 'op_return' | 'p2pk' | 'p2pkh' | 'p2sh' | 'v0_p2wpkh' | 'v0_p2wsh' | 'v1_p2tr' | 'unknown';

export function esploraScriptType(s: Uint8Array): EsploraScriptType {
  const n = s.length;
  if (n === 0) return 'empty';
  if (s[0] === 0x6a) return 'op_return';
  if ((n === 35 && s[0] === 0x21 && s[34] === 0xac) || (n === 67 && s[0] === 0x41 && s[66] === 0xac)) return 'p2pk';
  if (n === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'p2pkh';
  if (n === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'p2sh';
  if (n === 22 && s[0] === 0x00 && s[1] === 0x14) return 'v0_p2wpkh';
  if (n === 34 && s[0] === 0x00 && s[1] === 0x20) return 'v0_p2wsh';
  if (n === 34 && s[0] === 0x51 && s[1] === 0x20) return 'v1_p2tr';
  return 'unknown';
}
