import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256d, sha256Into } from '../../src/chain/hash.js';
import { scriptKey, SCRIPT_KEY_BYTES, writeScriptKey } from '../../src/store/script-key.js';

// Every byte value, at lengths across SHA-256's one- and two-block boundaries (55/56/64 bytes).
const inputs = [0, 1, 22, 25, 55, 56, 63, 64, 65, 119, 300].map((n) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 97 + n * 31) & 0xff)),
);
inputs.push(Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)));

const digest = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

describe('SHA-256 through a binary string', () => {
  it('writes the exact digest, every byte value included', () => {
    for (const data of inputs) {
      const out = Buffer.alloc(40, 0xee);
      expect(sha256Into(data, out, 3)).toBe(35);
      expect(out.subarray(3, 35).equals(digest(data))).toBe(true);
      // Nothing written outside [at, at + length).
      expect([...out.subarray(0, 3), ...out.subarray(35)]).toEqual([0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee]);
    }
  });

  it('sha256d is SHA-256 twice, and each result is its own', () => {
    const results = inputs.map((data) => sha256d(data));
    inputs.forEach((data, i) => expect(results[i]!.equals(digest(digest(data)))).toBe(true));
    expect(new Set(results.map((r) => r.toString('hex'))).size).toBe(inputs.length);
  });

  it('a script key is the first 16 bytes of the digest', () => {
    for (const data of inputs) {
      expect(scriptKey(data).equals(digest(data).subarray(0, SCRIPT_KEY_BYTES))).toBe(true);
      const out = Buffer.alloc(20);
      expect(writeScriptKey(out, 2, data)).toBe(18);
      expect(out.subarray(2, 18).equals(digest(data).subarray(0, SCRIPT_KEY_BYTES))).toBe(true);
    }
  });
});
