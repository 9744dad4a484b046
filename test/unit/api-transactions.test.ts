/**
 * GET …/address/{address}/transactions and …/scripthash/{hash}/transactions through the whole app (every
 * response checked against /openapi.json) over a real index file keeping history: paging newest first
 * reproduces an independent model of the chain (test/contract/model.ts), cursors are bound to their
 * history and tip (409 stale, 400 tampered/foreign/garbage), limits are checked, `mempool=true` is
 * refused rather than answered without the mempool, and the routes answer 404 HISTORY_DISABLED while
 * the index keeps no history.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { Answer, Caller } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2pkh, p2wpkh, Rng, spendTx } from '../support/blocks.js';
import { ChainModel, keyHex, type HistoryLine } from '../contract/model.js';

const rng = new Rng(29);
const A = p2pkh(rng);
const B = p2wpkh(rng);
const params = chainParams('LTC', 'mainnet');
const addrA = scriptToAddress(params, A)!;
const electrum = (script: Buffer) => createHash('sha256').update(script).digest().reverse().toString('hex');

interface Item {
  txid: string;
  height: number;
  receivedSatoshi: number;
  received: number;
  sentSatoshi: number;
  sent: number;
}
interface PageData {
  transactions: Item[];
  next: string | null;
  blockHeight: number;
  blockHash: string;
}

let caller: Caller;
let key: string;
let store: ChainStore;
let chain: ChainBuilder;
let model: ChainModel;

const get = (p: string) => caller.send('GET', p, { 'x-api-key': key });
const data = (a: Answer) => (a.body as { data: PageData & { code?: string } }).data;
const code = (a: Answer) => (a.body as { data: { code: string } }).data.code;

function apply(txs: Parameters<ChainBuilder['block']>[0]): void {
  const block = chain.block(txs);
  model.apply(block);
  store.applyBlocks([block]);
}

/** Blocks 0–9: coinbases alternate between A and B; each block pays A twice and B once in one tx; some spend A's coins back to A. */
function build(): void {
  chain = new ChainBuilder(rng);
  model = new ChainModel();
  apply([]);
  const paidA: { txid: Buffer; vout: number }[] = [];
  for (let h = 1; h <= 9; h++) {
    const cb = coinbaseTx([{ script: h % 2 ? A : B, value: 5_000_000_000 + h }], rng.bytes(32));
    const inputs = h % 3 === 0 ? paidA.splice(0, 2) : [];
    const tx = spendTx(
      inputs,
      [
        { script: A, value: 1000 * h + 1 },
        { script: B, value: 1000 * h + 2 },
        { script: A, value: 123_456_789 + h },
      ],
      { txid: rng.bytes(32) },
    );
    paidA.push({ txid: tx.txid, vout: 0 }, { txid: tx.txid, vout: 2 });
    apply([cb, tx]);
  }
}

async function pageAll(base: string, limit: number): Promise<{ lines: HistoryLine[]; heights: Set<number> }> {
  const lines: HistoryLine[] = [];
  const heights = new Set<number>();
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const a = await get(`${base}?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = data(a);
    expect(d.transactions.length).toBeLessThanOrEqual(limit);
    for (const t of d.transactions) {
      expect(t.received).toBe(t.receivedSatoshi / 1e8);
      expect(t.sent).toBe(t.sentSatoshi / 1e8);
    }
    lines.push(
      ...d.transactions.map((t) => ({
        txid: t.txid,
        height: t.height,
        position: -1,
        received: BigInt(t.receivedSatoshi),
        sent: BigInt(t.sentSatoshi),
      })),
    );
    heights.add(d.blockHeight);
    if (d.next === null) return { lines, heights };
    cursor = d.next;
  }
  throw new Error('no last page');
}

/** The model's lines without positions (the route does not answer them). */
const expected = (script: Buffer): HistoryLine[] => (model.history().get(keyHex(script))?.lines ?? []).map((l) => ({ ...l, position: -1 }));

let t: ListingWorld;
beforeEach(() => {
  t = listingWorld(
    'LTC',
    (s) => {
      store = s;
      build();
    },
    'history',
  );
  ({ caller, key } = t);
});

afterEach(() => t.close());

describe('GET …/transactions', () => {
  it('pages with limit=3 through exactly the model’s history, newest first, at one tip', async () => {
    for (const [script, base] of [
      [A, `/api/v1/ltc/address/${addrA}/transactions`],
      [B, `/api/v1/ltc/scripthash/${electrum(B)}/transactions`],
    ] as const) {
      const { lines, heights } = await pageAll(base, 3);
      expect(lines).toEqual(expected(script));
      expect(lines.length).toBeGreaterThan(9);
      expect([...heights]).toEqual([9]);
    }
    // Amounts go through the summaries' serializer: exactly 8 decimals in the JSON text.
    const first = await get(`/api/v1/ltc/address/${addrA}/transactions?limit=1`);
    expect(first.text).toMatch(/"received":\d+\.\d{8},"sentSatoshi":\d+,"sent":\d+\.\d{8}\}/);
    const whole = data(await get(`/api/v1/ltc/address/${addrA}/transactions?limit=1000`));
    expect(whole.next).toBeNull();
    expect(whole.transactions).toHaveLength(expected(A).length);
  });

  it('answers 409 CURSOR_STALE for a cursor taken before the latest block, never a mixed page', async () => {
    const page1 = data(await get(`/api/v1/ltc/address/${addrA}/transactions?limit=2`));
    expect(page1.next).not.toBeNull();
    apply([coinbaseTx([{ script: A, value: 1 }], rng.bytes(32))]);
    const stale = await get(`/api/v1/ltc/address/${addrA}/transactions?limit=2&cursor=${page1.next}`);
    expect([stale.status, code(stale)]).toEqual([409, 'CURSOR_STALE']);
  });

  it('refuses tampered, foreign and malformed cursors, bad limits and mempool=true with their own 400 codes', async () => {
    const next = data(await get(`/api/v1/ltc/address/${addrA}/transactions?limit=2`)).next!;
    const flipped = next.slice(0, 12) + (next[12] === 'A' ? 'B' : 'A') + next.slice(13);
    const cases: [string, string][] = [
      [`/api/v1/ltc/address/${addrA}/transactions?cursor=${flipped}`, 'CURSOR_TAMPERED'],
      [`/api/v1/ltc/scripthash/${electrum(B)}/transactions?cursor=${next}`, 'CURSOR_FOREIGN'],
      [`/api/v1/ltc/address/${addrA}/transactions?cursor=abc`, 'INVALID_CURSOR'],
      [`/api/v1/ltc/address/${addrA}/transactions?limit=0`, 'INVALID_LIMIT'],
      [`/api/v1/ltc/address/${addrA}/transactions?limit=1001`, 'INVALID_LIMIT'],
      [`/api/v1/ltc/address/${addrA}/transactions?limit=2&limit=3`, 'BAD_REQUEST'],
      [`/api/v1/ltc/address/${addrA}/transactions?mempool=true`, 'BAD_REQUEST'],
    ];
    for (const [path, want] of cases) {
      const a = await get(path);
      expect([a.status, code(a)], path).toEqual([400, want]);
    }
    // A UTXO listing cursor is no history cursor.
    const utxoLike = Buffer.alloc(70, 1);
    utxoLike[0] = 1;
    const other = await get(`/api/v1/ltc/address/${addrA}/transactions?cursor=${utxoLike.toString('base64url')}`);
    expect(code(other)).toBe('INVALID_CURSOR');
  });

  it('answers 404 HISTORY_DISABLED while the index keeps no history', async () => {
    t.world.index.LTC.historian = null;
    const a = await get(`/api/v1/ltc/address/${addrA}/transactions`);
    expect([a.status, code(a)]).toEqual([404, 'HISTORY_DISABLED']);
  });
});
