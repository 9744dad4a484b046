/**
 * Wallet history over a real index keeping history (every response checked against /openapi.json):
 * GET /api/v1/{chain}/xpub/{key}/transactions pages the wallet's scripts' histories merged newest first,
 * each transaction once with its amounts summed and the wallet addresses it touched, through sealed
 * chunks, with no gap or repeat at any limit; the wallet summary's txCount counts a transaction touching
 * two of its scripts once. Expectations come from an independent model of the chain (test/contract/model.ts)
 * merged by hand. Cursors are bound to the wallet, its range and the tip; history off answers 404. The
 * POST form (the key in the body) answers what GET answers and refuses bodies as the wallet summary does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { scriptKey } from '../../src/store/script-key.js';
import type { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { Answer, Caller } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng, spendTx } from '../support/blocks.js';
import { ChainModel, keyHex } from '../contract/model.js';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
/** Range 1: the wallet is exactly these two scripts, in this derivation order. */
const RECEIVE_0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const CHANGE_0 = 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el';
const WALLET = [
  { path: '0/0', address: RECEIVE_0 },
  { path: '1/0', address: CHANGE_0 },
];
const script = (address: string): Buffer => {
  const r = addressToScript(chainParams('BTC', 'mainnet'), address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script);
};
const R = script(RECEIVE_0);
const C = script(CHANGE_0);

interface Part {
  path: string;
  address: string;
  receivedSatoshi: number;
  received: number;
  sentSatoshi: number;
  sent: number;
}
interface Item {
  txid: string;
  height: number;
  receivedSatoshi: number;
  received: number;
  sentSatoshi: number;
  sent: number;
  addresses: Part[];
}
interface PageData {
  range: number;
  transactions: Item[];
  next: string | null;
  blockHeight: number;
  code?: string;
}

let caller: Caller;
let key: string;
let store: ChainStore;
let chain: ChainBuilder;
let model: ChainModel;
let rng: Rng;
/** The transactions built to touch both wallet scripts. */
const both: string[] = [];

const get = (p: string) => caller.send('GET', p, { 'x-api-key': key });
const data = (a: Answer) => (a.body as { data: PageData }).data;
const txs = (query: string) => `/api/v1/btc/xpub/${ZPUB}/transactions?range=1${query}`;
const post = (query: string, body: string) =>
  caller.send('POST', `/api/v1/btc/xpub/transactions${query}`, { 'x-api-key': key, 'content-type': 'application/json' }, body);

function apply(list: Parameters<ChainBuilder['block']>[0]): void {
  const block = chain.block(list);
  model.apply(block);
  store.applyBlocks([block]);
}

const display = (txid: Buffer) => Buffer.from(txid).reverse().toString('hex');

/**
 * Block 1 pays R; block 2 a coinbase to R and one transaction paying R and C; block 3 moves R's coin
 * to C (both scripts in one transaction) and pays C; block 4 spends from C alone and from R and C
 * together. Then 40 blocks paying R, and R and C together: past a sealed chunk of each.
 */
function build(): void {
  rng = new Rng(33);
  chain = new ChainBuilder(rng);
  model = new ChainModel();
  both.length = 0;
  apply([]);
  const X = p2wpkh(rng);
  const t1 = spendTx(
    [],
    [
      { script: R, value: 1000 },
      { script: X, value: 5 },
    ],
    { txid: rng.bytes(32) },
  );
  apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), t1]);
  const t2 = spendTx(
    [],
    [
      { script: R, value: 2000 },
      { script: C, value: 3000 },
    ],
    { txid: rng.bytes(32) },
  );
  apply([coinbaseTx([{ script: R, value: 5_000_000_000 }], rng.bytes(32)), t2]);
  const t3 = spendTx([{ txid: t1.txid, vout: 0 }], [{ script: C, value: 900 }], { txid: rng.bytes(32) });
  const t4 = spendTx([], [{ script: C, value: 4000 }], { txid: rng.bytes(32) });
  apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), t3, t4]);
  const t5 = spendTx([{ txid: t2.txid, vout: 1 }], [{ script: X, value: 2999 }], { txid: rng.bytes(32) });
  const t6 = spendTx(
    [
      { txid: t2.txid, vout: 0 },
      { txid: t4.txid, vout: 0 },
    ],
    [
      { script: R, value: 5000 },
      { script: X, value: 999 },
    ],
    { txid: rng.bytes(32) },
  );
  apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), t5, t6]);
  both.push(display(t2.txid), display(t3.txid), display(t6.txid));
  for (let h = 5; h < 45; h++) {
    const toR = spendTx([], [{ script: R, value: 10_000 + h }], { txid: rng.bytes(32) });
    const toBoth = spendTx(
      [],
      [
        { script: C, value: 20_000 + h },
        { script: X, value: 7 },
        { script: R, value: 30_000 + h },
      ],
      { txid: rng.bytes(32) },
    );
    both.push(display(toBoth.txid));
    apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), toR, toBoth]);
  }
}

/** The model's histories of the wallet's scripts merged by hand: newest first, each transaction once. */
function expected(): { lines: string[]; txCount: number; received: bigint; sent: bigint } {
  const byTx = new Map<string, { height: number; position: number; received: bigint; sent: bigint; parts: string[] }>();
  const history = model.history();
  WALLET.forEach(({ path, address }) => {
    for (const l of history.get(keyHex(script(address)))?.lines ?? []) {
      const t = byTx.get(l.txid) ?? { height: l.height, position: l.position, received: 0n, sent: 0n, parts: [] };
      t.received += l.received;
      t.sent += l.sent;
      t.parts.push(`${path} ${address} ${l.received} ${l.sent}`);
      byTx.set(l.txid, t);
    }
  });
  const sorted = [...byTx.entries()].sort(([, a], [, b]) => b.height - a.height || b.position - a.position);
  let [received, sent] = [0n, 0n];
  for (const [, t] of sorted) [received, sent] = [received + t.received, sent + t.sent];
  return {
    lines: sorted.map(([txid, t]) => `${txid} ${t.height} ${t.received} ${t.sent} [${t.parts.join(', ')}]`),
    txCount: sorted.length,
    received,
    sent,
  };
}

const line = (t: Item): string =>
  `${t.txid} ${t.height} ${t.receivedSatoshi} ${t.sentSatoshi} [${t.addresses
    .map((a) => `${a.path} ${a.address} ${a.receivedSatoshi} ${a.sentSatoshi}`)
    .join(', ')}]`;

async function pageAll(limit: number): Promise<{ lines: string[]; tips: Set<number> }> {
  const lines: string[] = [];
  const tips = new Set<number>();
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const a = await get(txs(`&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`));
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = data(a);
    expect(d.transactions.length).toBeLessThanOrEqual(limit);
    expect(d.range).toBe(1);
    for (const t of d.transactions) {
      expect([t.received, t.sent]).toEqual([t.receivedSatoshi / 1e8, t.sentSatoshi / 1e8]);
      for (const p of t.addresses) expect([p.received, p.sent]).toEqual([p.receivedSatoshi / 1e8, p.sentSatoshi / 1e8]);
    }
    lines.push(...d.transactions.map(line));
    tips.add(d.blockHeight);
    // A second of the hand-moved clock per page: the bucket refills, so long walks stay within the tier's limits.
    t.world.clock.t += 1000;
    if (d.next === null) return { lines, tips };
    cursor = d.next;
  }
  throw new Error('no last page');
}

let t: ListingWorld;
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
});

afterEach(() => t.close());

describe('GET /api/v1/{chain}/xpub/{key}/transactions', () => {
  it('pages the merged history newest first, each transaction once with summed amounts and its wallet addresses', async () => {
    const want = expected();
    expect(want.txCount).toBeGreaterThan(80);
    const { lines, tips } = await pageAll(3);
    expect(lines).toEqual(want.lines);
    expect([...tips]).toEqual([44]);
    expect(new Set(lines.map((l) => l.slice(0, 64))).size).toBe(lines.length);
    // A transaction touching both scripts is one item naming both, in derivation order.
    const whole = data(await get(txs('&limit=1000')));
    expect(whole.next).toBeNull();
    for (const txid of both) {
      const item = whole.transactions.find((i) => i.txid === txid);
      expect(
        item?.addresses.map((a) => a.path),
        txid,
      ).toEqual(['0/0', '1/0']);
      expect(item!.receivedSatoshi).toBe(item!.addresses[0]!.receivedSatoshi + item!.addresses[1]!.receivedSatoshi);
      expect(item!.sentSatoshi).toBe(item!.addresses[0]!.sentSatoshi + item!.addresses[1]!.sentSatoshi);
    }
    // Amounts go through the summaries' serializer: exactly 8 decimals in the JSON text.
    const first = await get(txs('&limit=1'));
    expect(first.text).toMatch(/"sentSatoshi":\d+,"sent":\d+\.\d{8},"addresses":\[\{"path":"0\/0","address":"bc1q/);
  });

  it('gives the same history at every page size: no gap, no repeat', async () => {
    const want = expected().lines;
    for (const limit of [1, 2, 7, 64, 65, 1000]) expect((await pageAll(limit)).lines, `limit ${limit}`).toEqual(want);
  });

  it('the wallet summary: txCount counts each transaction once, received and sent are the scripts’ sums', async () => {
    const want = expected();
    const a = await get(`/api/v1/btc/xpub/${ZPUB}?range=1&details=funded`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = (a.body as { data: Record<string, unknown> }).data;
    expect([d.txCount, d.receivedSatoshi, d.sentSatoshi]).toEqual([want.txCount, Number(want.received), Number(want.sent)]);
    expect(BigInt(d.balanceSatoshi as number)).toBe(want.received - want.sent);
    const perScript = WALLET.map(({ address }) => model.history().get(keyHex(script(address)))!);
    // Not a sum: the transactions touching both scripts count once.
    expect(want.txCount).toBe(perScript[0]!.txCount + perScript[1]!.txCount - both.length);
    // Each funded address carries its own figures.
    const listed = (d.addresses as { path: string; txCount: number; receivedSatoshi: number; sentSatoshi: number }[]).map((x) => [
      x.path,
      x.txCount,
      x.receivedSatoshi,
      x.sentSatoshi,
    ]);
    expect(listed).toEqual(
      WALLET.map(({ path }, i) => [path, perScript[i]!.txCount, Number(perScript[i]!.received), Number(perScript[i]!.sent)]),
    );
    expect(a.text).toMatch(
      /"utxoCount":\d+,"txCount":\d+,"receivedSatoshi":\d+,"received":\d+\.\d{8},"sentSatoshi":\d+,"sent":\d+\.\d{8},"fundedAddresses"/,
    );
  });

  it('the distinct count reads one snapshot and counts a key given twice once', () => {
    const keys = [scriptKey(R), scriptKey(C), scriptKey(R)];
    const views = t.reader.keyViews(keys, false, { distinct: true })!;
    expect(views.distinctTxCount).toBe(expected().txCount);
    expect(t.reader.keyViews(keys, false)!.distinctTxCount).toBeUndefined();
  });

  it('binds the cursor to the wallet, its range and the tip; refuses what every history route refuses', async () => {
    const next = data(await get(txs('&limit=2'))).next!;
    expect(data(await get(txs(`&limit=2&cursor=${next}`))).transactions).toHaveLength(2);
    const flipped = next.slice(0, 12) + (next[12] === 'A' ? 'B' : 'A') + next.slice(13);
    const byAddress = data(await get(`/api/v1/btc/address/${RECEIVE_0}/transactions?limit=2`)).next!;
    const cases: [string, number, string][] = [
      [txs(`&cursor=${flipped}`), 400, 'CURSOR_TAMPERED'],
      [`/api/v1/btc/xpub/${ZPUB}/transactions?range=2&cursor=${next}`, 400, 'CURSOR_FOREIGN'],
      [`/api/v1/btc/address/${RECEIVE_0}/transactions?cursor=${next}`, 400, 'CURSOR_FOREIGN'],
      [txs(`&cursor=${byAddress}`), 400, 'CURSOR_FOREIGN'],
      [txs('&cursor=abc'), 400, 'INVALID_CURSOR'],
      [txs('&limit=0'), 400, 'INVALID_LIMIT'],
      [txs('&limit=1001'), 400, 'INVALID_LIMIT'],
      [txs('&mempool=yes'), 400, 'BAD_REQUEST'],
      [`/api/v1/btc/xpub/${ZPUB}/transactions?range=0`, 400, 'BAD_RANGE'],
      [
        `/api/v1/btc/xpub/xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi/transactions`,
        400,
        'PRIVATE_KEY_REFUSED',
      ],
    ];
    for (const [path, status, code] of cases) {
      const a = await get(path);
      expect([a.status, data(a).code], path).toEqual([status, code]);
    }
    const utxoCursor = Buffer.alloc(70, 1);
    utxoCursor[0] = 1;
    expect(data(await get(txs(`&cursor=${utxoCursor.toString('base64url')}`))).code).toBe('INVALID_CURSOR');
    apply([coinbaseTx([{ script: R, value: 1 }], rng.bytes(32))]);
    t.world.index.BTC.tipHeight = 45;
    const stale = await get(txs(`&limit=2&cursor=${next}`));
    expect([stale.status, data(stale).code]).toEqual([409, 'CURSOR_STALE']);
    expect((await caller.send('POST', txs(''), { 'x-api-key': key })).status).toBe(405);
  });

  it('answers 503 HISTORY_BUILDING while history is built for an index that had none', async () => {
    t.world.index.BTC.historyBuilding = { height: -1, tipHeight: 44 };
    const a = await get(txs(''));
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ status: 'error', code: 'HISTORY_BUILDING', data: { builtHeight: -1, tipHeight: 44, percent: 0 } });
  });

  it('answers 404 HISTORY_DISABLED while the index keeps no history, and the summary has no txCount', async () => {
    t.world.index.BTC.historian = null;
    t.world.index.BTC.viewer = null;
    const a = await get(txs(''));
    expect([a.status, data(a).code]).toEqual([404, 'HISTORY_DISABLED']);
    const summary = await get(`/api/v1/btc/xpub/${ZPUB}?range=1`);
    expect(summary.status).toBe(200);
    expect(summary.text).not.toMatch(/txCount|received|sent/);
  });
  it('POST /api/v1/{chain}/xpub/transactions answers what GET answers, its cursors are GET’s, and it refuses bodies by code', async () => {
    const body = JSON.stringify({ key: ZPUB, range: 1 });
    const lines: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const a = await post(`?limit=7${cursor === null ? '' : `&cursor=${cursor}`}`, body);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      lines.push(...data(a).transactions.map(line));
      cursor = data(a).next;
      if (cursor === null) break;
      t.world.clock.t += 1000;
    }
    expect(lines).toEqual(expected().lines);
    const next = data(await post('?limit=2', body)).next!;
    expect(data(await get(txs(`&limit=2&cursor=${next}`))).transactions.map(line)).toEqual(expected().lines.slice(2, 4));
    const cases: [string, string, string][] = [
      ['', '{"key":', 'INVALID_JSON'],
      ['?range=1', body, 'BAD_RANGE'],
      ['', JSON.stringify({ key: ZPUB, gap: 20 }), 'BAD_REQUEST'],
      ['?mempool=maybe', body, 'BAD_REQUEST'],
      ['?limit=0', body, 'INVALID_LIMIT'],
      [
        '?range=1&range=2',
        JSON.stringify({
          key: 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
        }),
        'PRIVATE_KEY_REFUSED',
      ],
    ];
    for (const [query, text, code] of cases) {
      const a = await post(query, text);
      expect([a.status, data(a).code], `${query} ${text.slice(0, 20)}`).toEqual([400, code]);
      expect(a.text).not.toContain('xprv');
    }
    const wrong = await get('/api/v1/btc/xpub/transactions');
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'POST']);
  });
});
