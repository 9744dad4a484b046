/**
 * The Esplora dialect's pure parts against the values Blockstream's electrs writes: rust-bitcoin's script
 * assembly (its own test vectors), the script type names, ryu's float spelling and the difficulty.
 */
import { describe, expect, it } from 'vitest';
import { lastPush, scriptAsm } from '../../src/chain/script-asm.js';
import { backlogValue, newestFirst } from '../../src/api/esplora/esplora-backlog.js';
import type { MempoolFee } from '../../src/serving/mempool-fees.js';
import { rustF64, rustUint } from '../../src/api/esplora/esplora-parse.js';
import { f32Text, f64Text, F64, stringifyEsplora } from '../../src/api/esplora/esplora-json.js';
import { esploraScriptType } from '../../src/api/esplora/esplora-script.js';
import { esploraDifficulty } from '../../src/api/esplora/esplora-values.js';
import { merkleBlockProof } from '../../src/chain/merkle-block.js';
import { sha256d } from '../../src/chain/hash.js';

const hex = (h: string) => Buffer.from(h, 'hex');
const h20 = '89abcdefabbaabbaabbaabbaabbaabbaabbaabba';
const h32 = 'aa'.repeat(32);

describe('scriptAsm (rust-bitcoin)', () => {
  it.each([
    ['', ''],
    ['01', 'OP_PUSHBYTES_1 <push past end>'],
    ['0201', 'OP_PUSHBYTES_2 <push past end>'],
    ['4c', '<unexpected end>'],
    ['4d', '<unexpected end>'],
    ['764c', 'OP_DUP<unexpected end>'],
    ['4c0201', 'OP_PUSHDATA1 <push past end>'],
    ['4dffff01', 'OP_PUSHDATA2 <push past end>'],
    ['4effffffff01', 'OP_PUSHDATA4 <push past end>'],
    ['4c00', 'OP_PUSHDATA1'],
    ['6363636363686868686800', 'OP_IF OP_IF OP_IF OP_IF OP_IF OP_ENDIF OP_ENDIF OP_ENDIF OP_ENDIF OP_ENDIF OP_0'],
    [`76a914${h20}88ac`, `OP_DUP OP_HASH160 OP_PUSHBYTES_20 ${h20} OP_EQUALVERIFY OP_CHECKSIG`],
    [`a914${h20}87`, `OP_HASH160 OP_PUSHBYTES_20 ${h20} OP_EQUAL`],
    [`0014${h20}`, `OP_0 OP_PUSHBYTES_20 ${h20}`],
    [`5120${h32}`, `OP_PUSHNUM_1 OP_PUSHBYTES_32 ${h32}`],
    ['51024e73', 'OP_PUSHNUM_1 OP_PUSHBYTES_2 4e73'],
    ['6a04deadbeef', 'OP_RETURN OP_PUSHBYTES_4 deadbeef'],
    ['5100', 'OP_PUSHNUM_1 OP_0'],
    ['4fb1b2babbfeff', 'OP_PUSHNUM_NEG1 OP_CLTV OP_CSV OP_CHECKSIGADD OP_RETURN_187 OP_RETURN_254 OP_INVALIDOPCODE'],
    ['4c03010203', 'OP_PUSHDATA1 010203'],
  ])('%s → %s', (script, asm) => {
    expect(scriptAsm(hex(script))).toBe(asm);
  });

  it('finds the last push of a scriptSig, and none after an opcode or a cut push', () => {
    expect(lastPush(hex(`0047${'30'.repeat(71)}4c03010203`))?.toString('hex')).toBe('010203');
    expect(lastPush(hex('00'))?.length).toBe(0);
    expect(lastPush(hex('0176'))?.toString('hex')).toBe('76');
    expect(lastPush(hex('0201'))).toBeNull();
    expect(lastPush(hex('5176'))).toBeNull();
    expect(lastPush(hex(''))).toBeNull();
  });
});

describe('esploraScriptType', () => {
  it.each([
    ['', 'empty'],
    ['6a', 'op_return'],
    ['6a4c', 'op_return'],
    [`21${'02'.repeat(33)}ac`, 'p2pk'],
    [`41${'04'.repeat(65)}ac`, 'p2pk'],
    [`76a914${h20}88ac`, 'p2pkh'],
    [`a914${h20}87`, 'p2sh'],
    [`0014${h20}`, 'v0_p2wpkh'],
    [`0020${h32}`, 'v0_p2wsh'],
    [`5120${h32}`, 'v1_p2tr'],
    [`5121${'02'.repeat(33)}51ae`, 'unknown'],
    [`5920${h32}`, 'unknown'],
    ['51024e73', 'unknown'],
  ])('%s is %s', (script, type) => {
    expect(esploraScriptType(hex(script))).toBe(type);
  });
});

describe("floats in ryu's spelling", () => {
  it.each([
    [1, '1.0'],
    [0, '0.0'],
    [1.5, '1.5'],
    [123456.789, '123456.789'],
    [1e15, '1000000000000000.0'],
    [1e16, '1e16'],
    [1.5e17, '1.5e17'],
    [1e21, '1e21'],
    [0.0001, '0.0001'],
    [0.00001, '0.00001'],
    [0.000001, '1e-6'],
    [1.5e-7, '1.5e-7'],
    [4.6565423739069247e-10, '4.6565423739069247e-10'],
    [-2.5, '-2.5'],
    [Number.NaN, 'null'],
  ])('%d → %s', (x, text) => {
    expect(f64Text(x)).toBe(text);
  });

  it.each<[number, string]>([
    [1, '1.0'],
    [1 / 3, '0.33333334'],
    [18 / 7, '2.5714285'],
    [16_777_217, '16777216.0'],
    [1e12, '1000000000000.0'],
    [1e13, '1e13'],
    [0.000001, '0.000001'],
    [1e-7, '1e-7'],
  ])("f32 %d → %s (the nearest f32, its shortest digits, ryu's f32 layout)", (x, text) => {
    expect(f32Text(x)).toBe(text);
  });

  it('writes F64 fields as bare numbers inside JSON', () => {
    expect(stringifyEsplora({ a: new F64(1), b: [new F64(2.5e-7)], c: 'x' })).toBe('{"a":1.0,"b":[2.5e-7],"c":"x"}');
  });
});

describe('difficulty', () => {
  it('is 1.0 at the largest target and as electrs gives it for regtest', () => {
    expect(esploraDifficulty(0x1d00ffff)).toBe(1);
    expect(f64Text(esploraDifficulty(0x207fffff))).toBe('4.6565423739069247e-10');
    expect(esploraDifficulty(0x1b0404cb)).toBeCloseTo(16307.420938523983, 6);
  });
});

describe('merkleBlockProof (CMerkleBlock of one match)', () => {
  const header = Buffer.alloc(80, 7);
  const txids = Array.from({ length: 5 }, (_, i) => Buffer.alloc(32, i + 1));
  const pair = (a: Buffer, b: Buffer) => sha256d(Buffer.concat([a, b]));

  it('holds the header, the count, the hashes of the unmatched subtrees and the path bits', () => {
    expect(merkleBlockProof(header, txids.slice(0, 1), 0).toString('hex')).toBe(
      `${header.toString('hex')}01000000` + `01${txids[0]!.toString('hex')}` + '0101',
    );
    // 5 leaves, height 3. Matching leaf 2: the walk visits root(1) → [0-3](1) → [0-1](0, hash) → [2-3](1)
    // → leaf 2(1, hash) → leaf 3(0, hash) → [4](0, hash): bits 1101100 and four hashes.
    const proof = merkleBlockProof(header, txids, 2);
    const l4 = txids[4]!;
    const right = pair(pair(l4, l4), pair(l4, l4));
    expect(proof.subarray(80, 84).readUInt32LE()).toBe(5);
    expect(proof[84]).toBe(4);
    expect(proof.subarray(85, 85 + 128).toString('hex')).toBe(
      [pair(txids[0]!, txids[1]!), txids[2]!, txids[3]!, right].map((h) => h.toString('hex')).join(''),
    );
    expect(proof.subarray(85 + 128).toString('hex')).toBe('011b');
  });
});

describe('the mempool backlog (electrs util/fees.rs)', () => {
  const entry = (txid: string, feeSats: number, weight: number, time = 0, ancestors = 1): MempoolFee => ({
    txid,
    feeSats,
    vsize: Math.ceil(weight / 4),
    weight,
    time,
    ancestors,
  });

  it('is empty for an empty mempool', () => {
    expect(stringifyEsplora(backlogValue([]))).toBe('{"count":0,"vsize":0,"total_fee":0,"fee_histogram":[]}');
  });

  it('counts weight / 4 rounded down, rates as f32, and closes a bin past 50,000 vB when the rate changes', () => {
    const txs = [
      entry('a', 3_000, 4_003), // 1,000 vB at 3.0
      ...Array.from({ length: 50 }, (_, i) => entry(`b${i}`, 2_000, 4_000)), // 50,000 vB at 2.0
      entry('c', 2_000, 4_000), // the same rate: the bin stays open
      entry('d', 1_000, 3_000), // 750 vB at 1.3333334: the bin (52,000 vB) closes before it
    ];
    expect(stringifyEsplora(backlogValue(txs))).toBe(
      '{"count":53,"vsize":52750,"total_fee":106000,"fee_histogram":[[2.0,52000],[1.3333334,750]]}',
    );
  });

  it('shows the newest ten, a child before a parent of the same second, then by txid', () => {
    const txs = [
      entry('old', 1, 400, 5),
      entry('parent', 1, 400, 9, 1),
      entry('child', 1, 400, 9, 2),
      ...Array.from({ length: 10 }, (_, i) => entry(`t${i}`, 1, 400, 8)),
    ];
    expect(newestFirst(txs).map((t) => t.txid)).toEqual(['child', 'parent', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
  });
});

describe("Rust's number parsing, as electrs's answers to odd input depend on it", () => {
  it.each<[string, 32 | 64, bigint | null]>([
    ['7', 32, 7n],
    ['+7', 32, 7n],
    ['007', 32, 7n],
    ['00000000000000000000001', 32, 1n],
    ['4294967295', 32, 4294967295n],
    ['4294967296', 32, null],
    ['18446744073709551615', 64, 18446744073709551615n],
    ['18446744073709551616', 64, null],
    ['', 64, null],
    ['+', 64, null],
    ['-1', 64, null],
    [' 1', 64, null],
    ['1e3', 64, null],
    ['0x10', 64, null],
  ])('u%s: %s', (text, bits, want) => {
    expect(rustUint(text, bits)).toBe(want);
  });

  it.each<[string, number | null]>([
    ['0.1', 0.1],
    ['+1e-3', 0.001],
    ['.5', 0.5],
    ['5.', 5],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['x', null],
    ['', null],
    ['0x10', null],
    [' 1', null],
  ])('f64: %s', (text, want) => {
    expect(rustF64(text)).toBe(want);
  });

  it('reads NaN as Rust does', () => {
    expect(rustF64('NaN')).toBeNaN();
  });
});
