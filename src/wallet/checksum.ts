/**
 * The descriptor checksum of BIP380 (Bitcoin Core's DescriptorChecksum in script/descriptor.cpp): a BCH
 * code over the descriptor's characters, eight characters after a `#`.
 */

/** Every character a descriptor may hold; its position is the symbol the checksum reads. */
const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn] as const;

function polymod(c: bigint, value: number): bigint {
  const c0 = c >> 35n;
  let next = ((c & 0x7ffffffffn) << 5n) ^ BigInt(value);
  for (let i = 0; i < 5; i++) {
    if ((c0 >> BigInt(i)) & 1n) next ^= GENERATOR[i] as bigint;
  }
  return next;
}

/** The checksum of a descriptor body (no `#`), or null when it holds a character outside the charset. */
export function descriptorChecksum(body: string): string | null {
  let c = 1n;
  let cls = 0;
  let clsCount = 0;
  for (const ch of body) {
    const pos = INPUT_CHARSET.indexOf(ch);
    if (pos < 0) return null;
    // Symbols are the low 5 bits; every 3 characters also contribute their group numbers as one symbol.
    c = polymod(c, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clsCount === 3) {
      c = polymod(c, cls);
      cls = 0;
      clsCount = 0;
    }
  }
  if (clsCount > 0) c = polymod(c, cls);
  for (let i = 0; i < 8; i++) c = polymod(c, 0);
  c ^= 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}
