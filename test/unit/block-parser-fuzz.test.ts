/**
 * Property tests: corrupt real blocks and transactions and check that the parser either throws a
 * ParseError or returns exactly the original transactions — never another error, never a hang, never
 * a silently different block.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBlock, parseTransaction, ParseError, type ParsedTx } from '../../src/chain/block-parser.js';
import { listFixtures, readFixture, readHexFixture, readJsonFixture } from '../support/fixtures.js';

interface Sample {
  name: string;
  raw: Buffer;
}

const btc = readJsonFixture<{ height: number; hex: string }[]>('blocks/btc-testnet3-blocks.json').map((b): Sample => ({
  name: `btc-${b.height}`,
  raw: Buffer.from(b.hex, 'hex'),
}));
const ltcRegtest = listFixtures('blocks/ltc-regtest/', '.hex').map((f): Sample => ({
  name: f,
  raw: readHexFixture(`blocks/ltc-regtest/${f}`),
}));
const smallBlocks = [...btc, ...ltcRegtest];
const bigBlock: Sample = { name: 'ltc-878439', raw: readFixture('blocks/ltc-mainnet-878439.raw') };
const mempoolTxs = readJsonFixture<{ txs: { name: string; hex: string }[] }>('ltc-mempool/mweb-txs.json').txs.map((t): Sample => ({
  name: t.name,
  raw: Buffer.from(t.hex, 'hex'),
}));

/** What must survive any corruption that still parses: the txids and the transparent data they commit to. */
function fingerprint(txs: ParsedTx[]): string {
  return txs
    .map((t) =>
      [
        t.txid.toString('hex'),
        t.coinbase,
        t.inputs.map((i) => `${i.prevTxid.toString('hex')}:${i.vout}`).join(','),
        t.outputs.map((o) => `${o.value}:${o.script.toString('hex')}`).join(','),
      ].join('|'),
    )
    .join('\n');
}

const blockPrints = new Map<Buffer, string>();
for (const s of [...smallBlocks, bigBlock]) blockPrints.set(s.raw, fingerprint(parseBlock(s.raw).txs));

/** Parses, and on success checks nothing observable changed; on failure checks the error type. */
function checkBlock(original: Buffer, corrupted: Buffer): void {
  let txs: ParsedTx[];
  try {
    txs = parseBlock(corrupted).txs;
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    return;
  }
  expect(fingerprint(txs)).toBe(blockPrints.get(original));
}

function checkTx(original: Buffer, corrupted: Buffer): void {
  let tx: ParsedTx;
  try {
    tx = parseTransaction(corrupted);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    return;
  }
  // A standalone transaction has no merkle root to check against: it may legitimately parse as a
  // different transaction. It must still be well-formed: the parse consumed the whole buffer.
  expect(tx.txid).toHaveLength(32);
}

/** Replace bytes: XOR flips, or values that steer the parser into CompactSize prefixes and flags. */
const edit = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
  value: fc.oneof(
    fc.integer({ min: 1, max: 255 }).map((x) => ({ xor: x })),
    fc.constantFrom(0x00, 0x01, 0x08, 0x09, 0xfd, 0xfe, 0xff).map((v) => ({ set: v })),
  ),
});
type Edit = { at: number; value: { xor: number } | { set: number } };

function applyEdits(raw: Buffer, edits: Edit[], window?: number): Buffer {
  const out = Buffer.from(raw);
  const span = Math.min(out.length, window ?? out.length);
  for (const e of edits) {
    const i = Math.floor(e.at * span);
    out[i] = 'xor' in e.value ? out[i]! ^ e.value.xor : e.value.set;
  }
  return out;
}

const pick = <T>(items: T[]) => fc.integer({ min: 0, max: items.length - 1 }).map((i) => items[i]!);

describe('parser robustness (fast-check)', () => {
  it('byte edits of small real blocks (BTC testnet3, LTC regtest incl. MWEB)', () => {
    fc.assert(
      fc.property(pick(smallBlocks), fc.array(edit, { minLength: 1, maxLength: 4 }), (s, edits) => {
        checkBlock(s.raw, applyEdits(s.raw, edits));
      }),
      { numRuns: 600 },
    );
  });

  it('byte edits of the 748 KB Litecoin block, anywhere and within its first kilobytes', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), fc.boolean(), (edits, nearStart) => {
        checkBlock(bigBlock.raw, applyEdits(bigBlock.raw, edits, nearStart ? 4096 : undefined));
      }),
      // Each run parses 748 KB to the end (the merkle check comes last): keep the suite within seconds.
      { numRuns: 120 },
    );
  });

  it('truncations of real blocks', () => {
    fc.assert(
      fc.property(pick([...smallBlocks, bigBlock]), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (s, f) => {
        checkBlock(s.raw, s.raw.subarray(0, Math.floor(f * s.raw.length)));
      }),
      { numRuns: 300 },
    );
  });

  it('byte edits and truncations of mempool MWEB transactions', () => {
    fc.assert(
      fc.property(
        pick(mempoolTxs),
        fc.array(edit, { minLength: 0, maxLength: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (s, edits, keep) => {
          const edited = applyEdits(s.raw, edits);
          checkTx(s.raw, keep > 0.8 ? edited : edited.subarray(0, Math.floor(keep * edited.length)));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('random bytes, and random bytes behind a real header', () => {
    const header = bigBlock.raw.subarray(0, 80);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.boolean(), (bytes, withHeader) => {
        const raw = withHeader ? Buffer.concat([header, bytes]) : Buffer.from(bytes);
        try {
          parseBlock(raw);
        } catch (e) {
          if (!(e instanceof ParseError)) throw e;
        }
        try {
          parseTransaction(Buffer.from(bytes));
        } catch (e) {
          if (!(e instanceof ParseError)) throw e;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a txid-changing edit is always refused: flipping any byte of a transaction body', () => {
    // Deterministic sweep over the smallest segwit-free BTC blocks: every byte after the header feeds a
    // txid (or a count), so every single-bit flip must fail.
    for (const s of btc.filter((b) => b.raw.length < 300)) {
      for (let i = 80; i < s.raw.length; i++) {
        const bad = Buffer.from(s.raw);
        bad[i] = bad[i]! ^ 0x01;
        expect(() => parseBlock(bad)).toThrow(ParseError);
      }
    }
  });
});
