import { describe, expect, it } from 'vitest';
import { compactSize } from '../../src/chain/compact-size.js';

describe('compactSize (Bitcoin serialisation)', () => {
  it.each<[number, string]>([
    [0, '00'],
    [252, 'fc'],
    [253, 'fdfd00'],
    [0xffff, 'fdffff'],
    [0x10000, 'fe00000100'],
    [0xffffffff, 'feffffffff'],
  ])('%d → %s', (n, hex) => {
    expect(compactSize(n).toString('hex')).toBe(hex);
  });
});
