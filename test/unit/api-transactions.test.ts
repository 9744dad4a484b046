/**
 * GET …/address/{address}/transactions and …/scripthash/{hash}/transactions through the whole app (every
 * response checked against /openapi.json) over a real index file keeping history: paging newest first
 * reproduces an independent model of the chain (test/contract/model.ts), cursors are bound to their
 * history, mempool flag and tip (409 stale, 400 tampered/foreign/garbage), limits are checked, and the
 * routes answer 404 HISTORY_DISABLED while the index keeps no history. With `mempool=true` the script's
 * mempool transactions come first (height null, the latest added first), with what each pays to and
 * spends from the script as the test computes it from the transactions it built; paging crosses into
 * the confirmed part, and a mempool that changes between pages neither repeats nor slips in a transaction.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { Answer, Caller } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2pkh, p2wpkh, Rng, spendTx } from '../support/blocks.js';
import { ChainModel, keyHex, outId, type HistoryLine } from '../contract/model.js';
import type { ParsedTx } from '../../src/chain/block-parser.js';

const rng = new Rng(29);
const A = p2pkh(rng);
const B = p2wpkh(rng);
const params = chainParams('LTC', 'mainnet');
const addrA = scriptToAddress(params, A)!;
const electrum = (script: Buffer) => createHash('sha256').update(script).digest().reverse().toString('hex');

interface Item {
  txid: string;
  height: number | null;
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

/** A history line as the route answers it: height null for a mempool transaction. */
type Line = Omit<HistoryLine, 'height'> & { height: number | null };

async function pageAll(base: string, limit: number, query = ''): Promise<{ lines: Line[]; heights: Set<number> }> {
  const lines: Line[] = [];
  const heights = new Set<number>();
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const a = await get(`${base}?limit=${limit}${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
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
      [`/api/v1/ltc/address/${addrA}/transactions?mempool=yes`, 'BAD_REQUEST'],
      [`/api/v1/ltc/address/${addrA}/transactions?mempool=true&mempool=true`, 'BAD_REQUEST'],
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

  it('answers 503 HISTORY_BUILDING with how far the build is while history is built for an index that had none', async () => {
    t.world.index.LTC.historyBuilding = { height: 40, tipHeight: 99 };
    const a = await get(`/api/v1/ltc/address/${addrA}/transactions?mempool=true`);
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ status: 'error', code: 'HISTORY_BUILDING', data: { builtHeight: 40, tipHeight: 99, percent: 41 } });
    expect(a.headers['retry-after']).toBe('5');
    expect(caller.problems).toEqual([]);
  });
});

describe('GET …/transactions?mempool=true', () => {
  /** Every coin the test has seen (spent or not), by outpoint: what a mempool transaction's inputs were worth. */
  let seen: Map<string, { key: string; value: bigint }>;
  /** Mempool transactions in the order they were added to the index. */
  let added: ParsedTx[];

  beforeEach(() => {
    seen = new Map([...model.coins].map(([id, c]) => [id, { key: c.key, value: c.value }]));
    added = [];
  });

  function addTx(inputs: { txid: Buffer; vout: number }[], outputs: { script: Buffer; value: number }[]): ParsedTx {
    const tx = spendTx(inputs, outputs, { txid: rng.bytes(32) });
    tx.outputs.forEach((o, v) => seen.set(outId(tx.txid, v), { key: keyHex(o.script), value: o.value }));
    expect(store.mempool.add([tx]).added).toBe(1);
    added.push(tx);
    return tx;
  }

  /** What the held transactions do to `script`, latest added first, from the coins the test built. */
  function unconfirmedLines(script: Buffer, held: readonly ParsedTx[] = added): Line[] {
    const key = keyHex(script);
    const lines: Line[] = [];
    for (const tx of [...held].reverse()) {
      let sent = 0n;
      for (const i of tx.inputs) {
        const coin = seen.get(outId(i.prevTxid, i.vout))!;
        if (coin.key === key) sent += coin.value;
      }
      const received = tx.outputs.filter((o) => keyHex(o.script) === key).reduce((sum, o) => sum + o.value, 0n);
      if (sent > 0n || tx.outputs.some((o) => keyHex(o.script) === key))
        lines.push({ txid: Buffer.from(tx.txid).reverse().toString('hex'), height: null, position: -1, received, sent });
    }
    return lines;
  }

  /** A's coins in the model's UTXO set, and B's: what the mempool transactions spend. */
  const coinsOf = (script: Buffer) =>
    [...model.coins.values()].filter((c) => c.key === keyHex(script)).map((c) => ({ txid: c.txid, vout: c.vout, value: Number(c.value) }));

  /** Five mempool transactions: A spends with change back to itself, a child of that, B pays A, one touches B only. */
  function fillMempool(): void {
    const [a1, a2] = coinsOf(A);
    const [b1, b2] = coinsOf(B);
    const change = addTx(
      [a1!],
      [
        { script: B, value: 1000 },
        { script: A, value: a1!.value - 1500 },
      ],
    );
    addTx([b1!], [{ script: B, value: b1!.value - 300 }]);
    addTx(
      [{ txid: change.txid, vout: 1 }, a2!],
      [
        { script: A, value: 700 },
        { script: A, value: a1!.value + a2!.value - 5000 },
      ],
    );
    addTx([b2!], [{ script: A, value: b2!.value - 200 }]);
    addTx([{ txid: change.txid, vout: 0 }], [{ script: B, value: 900 }]);
  }

  it('lists the mempool’s transactions first, latest added first with height null, then the confirmed ones, at limit 2 and 3', async () => {
    fillMempool();
    for (const [script, base] of [
      [A, `/api/v1/ltc/address/${addrA}/transactions`],
      [B, `/api/v1/ltc/scripthash/${electrum(B)}/transactions`],
    ] as const) {
      const want = [...unconfirmedLines(script), ...expected(script)];
      expect(unconfirmedLines(script).length).toBeGreaterThanOrEqual(3);
      for (const limit of [2, 3]) {
        const { lines, heights } = await pageAll(base, limit, '&mempool=true');
        expect(lines, `limit ${limit}`).toEqual(want);
        expect([...heights]).toEqual([9]);
      }
      // Without the flag the answer is the confirmed history alone, as before.
      expect((await pageAll(base, 3)).lines).toEqual(expected(script));
    }
    // The page where the mempool part ends exactly: its cursor leads on into the confirmed part.
    const n = unconfirmedLines(A).length;
    const first = data(await get(`/api/v1/ltc/address/${addrA}/transactions?mempool=1&limit=${n}`));
    expect(first.transactions.map((t) => t.height)).toEqual(Array<null>(n).fill(null));
    const second = data(await get(`/api/v1/ltc/address/${addrA}/transactions?mempool=1&limit=1&cursor=${first.next}`));
    expect(second.transactions.map((t) => t.txid)).toEqual([expected(A)[0]!.txid]);
  });

  it('a mempool that changes between pages neither repeats nor slips in a transaction; a block makes the cursor stale', async () => {
    fillMempool();
    const base = `/api/v1/ltc/address/${addrA}/transactions`;
    const page1 = data(await get(`${base}?mempool=true&limit=1`));
    const before = unconfirmedLines(A);
    expect(page1.transactions.map((t) => t.txid)).toEqual([before[0]!.txid]);
    // A new transaction paying A arrives, and one not listed yet leaves (evicted, with nothing depending on it).
    const [b3] = coinsOf(B).slice(2);
    const late = addTx([b3!], [{ script: A, value: 1234 }]);
    const gone = added[2]!; // the child: listed after the first page, and nothing spends it
    expect(store.mempool.remove([gone.txid])).toBe(1);
    const rest: Line[] = [];
    for (let cursor = page1.next; cursor !== null;) {
      const d = data(await get(`${base}?mempool=true&limit=2&cursor=${cursor}`));
      rest.push(
        ...d.transactions.map((t) => ({
          txid: t.txid,
          height: t.height,
          position: -1,
          received: BigInt(t.receivedSatoshi),
          sent: BigInt(t.sentSatoshi),
        })),
      );
      cursor = d.next;
    }
    const display = (tx: ParsedTx) => Buffer.from(tx.txid).reverse().toString('hex');
    const stayed = unconfirmedLines(
      A,
      added.filter((tx) => tx !== late && tx !== gone),
    ).slice(1);
    expect(rest).toEqual([...stayed, ...expected(A)]);
    expect(rest.map((l) => l.txid)).not.toContain(display(late));
    // A fresh first page has the newcomer on top.
    const fresh = data(await get(`${base}?mempool=true&limit=1`));
    expect(fresh.transactions.map((t) => t.txid)).toEqual([display(late)]);
    // A block moves the tip: the cursor, wherever it points, is stale.
    apply([coinbaseTx([{ script: B, value: 1 }], rng.bytes(32))]);
    const stale = await get(`${base}?mempool=true&limit=1&cursor=${fresh.next}`);
    expect([stale.status, code(stale)]).toEqual([409, 'CURSOR_STALE']);
  });

  it('a cursor of a mempool=true history is foreign to a mempool=false request, and the other way round', async () => {
    fillMempool();
    const base = `/api/v1/ltc/address/${addrA}/transactions`;
    const withMempool = data(await get(`${base}?mempool=true&limit=1`)).next!;
    const confirmedPart = data(await get(`${base}?mempool=true&limit=${unconfirmedLines(A).length + 1}`)).next!;
    const without = data(await get(`${base}?limit=1`)).next!;
    for (const [query, cursor] of [
      ['', withMempool],
      ['&mempool=false', confirmedPart],
      ['&mempool=true', without],
    ] as const) {
      const a = await get(`${base}?limit=1${query}&cursor=${cursor}`);
      expect([a.status, code(a)], query).toEqual([400, 'CURSOR_FOREIGN']);
    }
  });
});
