/**
 * Wallet history with `?mempool=true` over a real index keeping history (every response checked against
 * /openapi.json): the wallet's mempool transactions come first (height null, the latest added first),
 * each once with its amounts summed over the wallet's scripts it touched and those scripts named, then
 * the confirmed history merged as without the flag; paging crosses from one part into the other at any
 * limit, GET and POST agree, and a cursor of one mode is foreign to the other. The mempool part is
 * computed by the test from the transactions it built; the confirmed part from an independent model of
 * the chain (test/contract/model.ts), merged by hand.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ParsedTx } from '../../src/chain/block-parser.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { Answer, Caller } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng, spendTx } from '../support/blocks.js';
import { ChainModel, keyHex, outId } from '../contract/model.js';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
/** Range 1: the wallet is exactly these two scripts, in this derivation order. */
const WALLET = [
  { path: '0/0', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
  { path: '1/0', address: 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el' },
];
const script = (address: string): Buffer => {
  const r = addressToScript(chainParams('BTC', 'mainnet'), address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script);
};
const [R, C] = WALLET.map((w) => script(w.address)) as [Buffer, Buffer];

interface Item {
  txid: string;
  height: number | null;
  receivedSatoshi: number;
  sentSatoshi: number;
  addresses: { path: string; address: string; receivedSatoshi: number; sentSatoshi: number }[];
}
interface PageData {
  transactions: Item[];
  next: string | null;
  code?: string;
}

let t: ListingWorld;
let caller: Caller;
let key: string;
let store: ChainStore;
let chain: ChainBuilder;
let model: ChainModel;
let rng: Rng;
let X: Buffer;
/** Every coin the test has made (spent or not), by outpoint: what a mempool transaction's inputs were worth. */
let seen: Map<string, { key: string; value: bigint }>;
/** Mempool transactions in the order they were added to the index. */
let added: ParsedTx[];

const get = (p: string) => caller.send('GET', p, { 'x-api-key': key });
const post = (query: string) =>
  caller.send(
    'POST',
    `/api/v1/btc/xpub/transactions${query}`,
    { 'x-api-key': key, 'content-type': 'application/json' },
    JSON.stringify({ key: ZPUB, range: 1 }),
  );
const data = (a: Answer) => (a.body as { data: PageData }).data;
const txs = (query: string) => `/api/v1/btc/xpub/${ZPUB}/transactions?range=1${query}`;
const display = (txid: Buffer) => Buffer.from(txid).reverse().toString('hex');

function apply(list: ParsedTx[]): void {
  const block = chain.block(list);
  model.apply(block);
  store.applyBlocks([block]);
}

/** Ten blocks: each pays R, C and an outsider X; some pay R and C in one transaction. */
function build(): void {
  rng = new Rng(47);
  chain = new ChainBuilder(rng);
  model = new ChainModel();
  X = p2wpkh(rng);
  apply([]);
  for (let h = 1; h <= 10; h++) {
    const outs = [
      { script: R, value: 100_000 + h },
      { script: X, value: 7 },
    ];
    if (h % 3 === 0) outs.push({ script: C, value: 200_000 + h });
    apply([
      coinbaseTx([{ script: X, value: 50_000 }], rng.bytes(32)),
      spendTx([], outs, { txid: rng.bytes(32) }),
      spendTx([], [{ script: C, value: 300_000 + h }], { txid: rng.bytes(32) }),
    ]);
  }
}

function addTx(inputs: { txid: Buffer; vout: number }[], outputs: { script: Buffer; value: number }[]): ParsedTx {
  const tx = spendTx(inputs, outputs, { txid: rng.bytes(32) });
  tx.outputs.forEach((o, v) => seen.set(outId(tx.txid, v), { key: keyHex(o.script), value: o.value }));
  expect(store.mempool.add([tx]).added).toBe(1);
  added.push(tx);
  return tx;
}

const coinsOf = (s: Buffer) =>
  [...model.coins.values()].filter((c) => c.key === keyHex(s)).map((c) => ({ txid: c.txid, vout: c.vout, value: Number(c.value) }));

/**
 * Six mempool transactions: R pays C (between the wallet's own addresses) with change to R; X pays R;
 * a child of the first spends C's new coin to X; one touches X alone; C pays R and X; R and C pay X together.
 */
function fillMempool(): void {
  const [r1, r2] = coinsOf(R);
  const [c1, c2] = coinsOf(C);
  const [x1, x2] = coinsOf(X).filter((c) => c.value >= 50_000);
  const own = addTx(
    [r1!],
    [
      { script: C, value: 40_000 },
      { script: R, value: r1!.value - 40_500 },
    ],
  );
  addTx([x1!], [{ script: R, value: x1!.value - 100 }]);
  addTx([{ txid: own.txid, vout: 0 }], [{ script: X, value: 39_000 }]);
  addTx([x2!], [{ script: X, value: x2!.value - 100 }]);
  addTx(
    [c1!],
    [
      { script: R, value: 1_000 },
      { script: X, value: c1!.value - 1_500 },
    ],
  );
  addTx([r2!, c2!], [{ script: X, value: r2!.value + c2!.value - 300 }]);
}

/** A page line as the route writes it: txid, height, sums, and the wallet's parts in derivation order. */
const line = (i: Item): string =>
  `${i.txid} ${i.height} ${i.receivedSatoshi} ${i.sentSatoshi} [${i.addresses
    .map((a) => `${a.path} ${a.address} ${a.receivedSatoshi} ${a.sentSatoshi}`)
    .join(', ')}]`;

/** The held transactions touching the wallet, latest added first, from the coins the test built. */
function unconfirmedLines(held: readonly ParsedTx[] = added): string[] {
  const lines: string[] = [];
  for (const tx of [...held].reverse()) {
    const parts = WALLET.map(({ path, address }) => {
      const k = keyHex(script(address));
      let sent = 0n;
      for (const i of tx.inputs) {
        const coin = seen.get(outId(i.prevTxid, i.vout))!;
        if (coin.key === k) sent += coin.value;
      }
      const mine = tx.outputs.filter((o) => keyHex(o.script) === k);
      const received = mine.reduce((sum, o) => sum + o.value, 0n);
      return { text: `${path} ${address} ${received} ${sent}`, touched: sent > 0n || mine.length > 0, received, sent };
    }).filter((p) => p.touched);
    if (parts.length === 0) continue;
    const [received, sent] = parts.reduce(([r, s], p) => [r + p.received, s + p.sent], [0n, 0n]);
    lines.push(`${display(tx.txid)} null ${received} ${sent} [${parts.map((p) => p.text).join(', ')}]`);
  }
  return lines;
}

/** The model's confirmed histories of the wallet's scripts merged by hand: newest first, each transaction once. */
function confirmedLines(): string[] {
  const byTx = new Map<string, { height: number; position: number; received: bigint; sent: bigint; parts: string[] }>();
  const history = model.history();
  for (const { path, address } of WALLET) {
    for (const l of history.get(keyHex(script(address)))?.lines ?? []) {
      const e = byTx.get(l.txid) ?? { height: l.height, position: l.position, received: 0n, sent: 0n, parts: [] };
      e.received += l.received;
      e.sent += l.sent;
      e.parts.push(`${path} ${address} ${l.received} ${l.sent}`);
      byTx.set(l.txid, e);
    }
  }
  return [...byTx.entries()]
    .sort(([, a], [, b]) => b.height - a.height || b.position - a.position)
    .map(([txid, e]) => `${txid} ${e.height} ${e.received} ${e.sent} [${e.parts.join(', ')}]`);
}

async function pageAll(read: (query: string) => Promise<Answer>, limit: number, mempool: string): Promise<string[]> {
  const lines: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 500; i++) {
    const a = await read(`&limit=${limit}${mempool}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = data(a);
    expect(d.transactions.length).toBeLessThanOrEqual(limit);
    lines.push(...d.transactions.map(line));
    // The hand-moved clock refills the bucket: long walks stay within the tier's limits.
    t.world.clock.t += 1000;
    if (d.next === null) return lines;
    cursor = d.next;
  }
  throw new Error('no last page');
}

beforeEach(() => {
  t = listingWorld(
    'BTC',
    (s) => {
      store = s;
      build();
    },
    'history',
  );
  ({ caller, key } = t);
  t.world.index.BTC.viewer = t.reader;
  seen = new Map([...model.coins].map(([id, c]) => [id, { key: c.key, value: c.value }]));
  added = [];
  fillMempool();
});

afterEach(() => t.close());

describe('GET/POST …/xpub/{key}/transactions?mempool=true', () => {
  it('lists the wallet’s mempool transactions first, each once with summed amounts, then the confirmed ones, at every limit', async () => {
    const unconfirmed = unconfirmedLines();
    expect(unconfirmed).toHaveLength(5);
    // The payment between the wallet's own addresses is one item naming both.
    expect(unconfirmed.at(-1)).toMatch(/\[0\/0 \S+ \d+ \d+, 1\/0 \S+ 40000 0\]$/);
    const want = [...unconfirmed, ...confirmedLines()];
    for (const limit of [1, 2, 3, 5, 6, 1000]) {
      expect(await pageAll((q) => get(txs(q)), limit, '&mempool=true'), `GET limit ${limit}`).toEqual(want);
    }
    // The POST form: the key in the body, the same pages.
    expect(await pageAll((q) => post(`?${q.slice(1)}`), 3, '&mempool=1')).toEqual(want);
    // Without the flag: the confirmed history alone, as before.
    expect(await pageAll((q) => get(txs(q)), 4, '')).toEqual(confirmedLines());
  });

  it('the page where the mempool part ends leads on into the confirmed part', async () => {
    const n = unconfirmedLines().length;
    const first = data(await get(txs(`&mempool=true&limit=${n}`)));
    expect(first.transactions.map((i) => i.height)).toEqual(Array<null>(n).fill(null));
    const second = data(await get(txs(`&mempool=true&limit=1&cursor=${first.next}`)));
    expect(second.transactions.map(line)).toEqual(confirmedLines().slice(0, 1));
  });

  it('its items add up to the wallet summary’s unconfirmed received and sent (each script’s part counted)', async () => {
    const all = data(await get(txs('&mempool=true&limit=1000'))).transactions.filter((i) => i.height === null);
    const summary = await get(`/api/v1/btc/xpub/${ZPUB}?range=1&mempool=true`);
    const u = (summary.body as { data: { unconfirmed: { receivedSatoshi: number; sentSatoshi: number; balanceSatoshi: number } } }).data
      .unconfirmed;
    const received = all.reduce((s, i) => s + i.receivedSatoshi, 0);
    const sent = all.reduce((s, i) => s + i.sentSatoshi, 0);
    expect([u.receivedSatoshi, u.sentSatoshi, u.balanceSatoshi]).toEqual([received, sent, received - sent]);
  });

  it('a mempool that changes between pages neither repeats nor slips in a transaction', async () => {
    const page1 = data(await get(txs('&mempool=true&limit=2')));
    expect(page1.transactions.map(line)).toEqual(unconfirmedLines().slice(0, 2));
    const [x3] = coinsOf(X)
      .filter((c) => c.value >= 50_000)
      .slice(2);
    const late = addTx([x3!], [{ script: C, value: 1234 }]);
    const gone = added[2]!; // the child paying X: not listed yet, and nothing spends it
    expect(store.mempool.remove([gone.txid])).toBe(1);
    const rest: string[] = [];
    for (let cursor = page1.next; cursor !== null;) {
      const d = data(await get(txs(`&mempool=true&limit=2&cursor=${cursor}`)));
      rest.push(...d.transactions.map(line));
      cursor = d.next;
    }
    const stayed = unconfirmedLines(added.filter((tx) => tx !== late && tx !== gone)).slice(2);
    expect(rest).toEqual([...stayed, ...confirmedLines()]);
    expect(data(await get(txs('&mempool=true&limit=1'))).transactions.map((i) => i.txid)).toEqual([display(late.txid)]);
  });

  it('a cursor of one mode is foreign to the other', async () => {
    const withMempool = data(await get(txs('&mempool=true&limit=1'))).next!;
    const confirmedPart = data(await get(txs(`&mempool=true&limit=${unconfirmedLines().length + 1}`))).next!;
    const without = data(await get(txs('&limit=1'))).next!;
    for (const [query, cursor] of [
      ['', withMempool],
      ['&mempool=false', confirmedPart],
      ['&mempool=true', without],
    ] as const) {
      const a = await get(txs(`&limit=1${query}&cursor=${cursor}`));
      expect([a.status, data(a).code], query).toEqual([400, 'CURSOR_FOREIGN']);
    }
  });
});
