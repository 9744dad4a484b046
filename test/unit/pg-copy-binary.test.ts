/** The binary COPY encoder (src/store/postgres/copy-binary.ts), byte for byte against the format's reference. */
import { describe, expect, it } from 'vitest';
import { binaryCopy } from '../../src/store/postgres/copy-binary.js';

const hex = (chunks: Iterable<Buffer>): string => Buffer.concat([...chunks]).toString('hex');

describe('binaryCopy', () => {
  it('writes the header, each field with its length (−1: NULL), big-endian integers and the trailer', () => {
    const got = hex(
      binaryCopy(
        ['int4', 'bytea', 'int8'],
        [
          [7, Buffer.from([0xab, 0xcd]), 5_000_000_000],
          [-1, null, -2n],
        ],
      ),
    );
    const header = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1').toString('hex') + '00000000' + '00000000';
    const row1 = '0003' + '00000004' + '00000007' + '00000002' + 'abcd' + '00000008' + '000000012a05f200';
    const row2 = '0003' + '00000004' + 'ffffffff' + 'ffffffff' + '00000008' + 'fffffffffffffffe';
    expect(got).toBe(header + row1 + row2 + 'ffff');
  });

  it('splits many rows into several buffers, losing none', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [Buffer.alloc(36, i & 0xff), i]);
    const chunks = [...binaryCopy(['bytea', 'int4'], rows)];
    expect(chunks.length).toBeGreaterThan(3);
    // Header 19 bytes, each row 2 + 4 + 36 + 4 + 4, trailer 2.
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(19 + 20_000 * 50 + 2);
  });
});
