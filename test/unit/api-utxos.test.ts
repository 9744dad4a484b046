/**
 * GET …/address/{address}/utxos and …/scripthash/{hash}/utxos through the whole app (every response
 * checked against /openapi.json) over a real index file with the listing on: paging reproduces the
 * UTXO table, cursors are bound to their listing and tip (409 stale, 400 tampered/foreign/garbage),
 * limits are checked, and the routes answer 404 UTXO_LIST_DISABLED while the listing is off.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import type { Answer, Caller, World } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2pkh, p2wpkh, Rng, spendTx } from '../support/blocks.js';

const rng = new Rng(23);
const A = p2pkh(rng);
const B = p2wpkh(rng);
const params = chainParams('LTC', 'mainnet');
const addrA = scriptToAddress(params, A)!;
const addrB = scriptToAddress(params, B)!;
const electrum = (script: Buffer) => createHash('sha256').update(script).digest().reverse().toString('hex');

interface Item {
  txid: string;
  vout: number;
  valueSatoshi: number;
  value: number;
  height: number | null;
  coinbase: boolean | null;
  unconfirmed?: boolean;
  spentInMempool?: boolean;
}
interface PageData {
  utxos: Item[];
  next: string | null;
  blockHeight: number;
  blockHash: string;
}

let world: World;
let caller: Caller;
let key: string;
let store: ChainStore;
let chain: ChainBuilder;

const get = (p: string) => caller.send('GET', p, { 'x-api-key': key });
const data = (a: Answer) => (a.body as { data: PageData & { code?: string } }).data;
const code = (a: Answer) => (a.body as { data: { code: string } }).data.code;

/** Blocks 0–8: coinbases alternate between A and B, every block also pays A twice and B once; block 6 spends two of A's. */
function build(): void {
  chain = new ChainBuilder(rng);
  store.applyBlocks([chain.block([])]);
  const paidA: { txid: Buffer; vout: number }[] = [];
  for (let h = 1; h <= 8; h++) {
    const cb = coinbaseTx([{ script: h % 2 ? A : B, value: 5_000_000_000 + h }], rng.bytes(32));
    const inputs = h === 6 ? paidA.splice(0, 2) : [];
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
    store.applyBlocks([chain.block([cb, tx])]);
  }
}

/** A's outputs straight from the table, in the listing's order. */
function tableRows(script: Buffer): string[] {
  const rows = store.db
    .prepare('SELECT outpoint, value, height FROM utxos NOT INDEXED WHERE script_key = ? ORDER BY height, outpoint')
    .all(scriptKey(script)) as { outpoint: Buffer; value: number; height: number }[];
  return rows.map((r) => {
    const { txid, vout } = decodeOutpoint(r.outpoint);
    return `${toDisplayHex(txid)}:${vout} ${r.value} ${r.height}`;
  });
}

async function pageAll(base: string, limit: number): Promise<{ items: Item[]; heights: Set<number> }> {
  const items: Item[] = [];
  const heights = new Set<number>();
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const a = await get(`${base}${base.includes('?') ? '&' : '?'}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const d = data(a);
    expect(d.utxos.length).toBeLessThanOrEqual(limit);
    items.push(...d.utxos);
    heights.add(d.blockHeight);
    if (d.next === null) return { items, heights };
    cursor = d.next;
  }
  throw new Error('no last page');
}

let t: ListingWorld;
beforeEach(() => {
  t = listingWorld('LTC', (s) => {
    store = s;
    build();
  });
  ({ world, caller, key } = t);
});

afterEach(() => t.close());

describe('GET …/utxos', () => {
  it('pages with limit=2 through exactly the UTXO table, oldest first, at one tip, with coinbase flags', async () => {
    for (const [script, base] of [
      [A, `/api/v1/ltc/address/${addrA}/utxos`],
      [B, `/api/v1/ltc/scripthash/${electrum(B)}/utxos`],
    ] as const) {
      const { items, heights } = await pageAll(base, 2);
      expect(items.map((i) => `${i.txid}:${i.vout} ${i.valueSatoshi} ${i.height}`)).toEqual(tableRows(script));
      expect([...heights]).toEqual([8]);
      for (const i of items) {
        expect(i.value).toBe(i.valueSatoshi / 1e8);
        expect(i.coinbase).toBe(i.valueSatoshi >= 5_000_000_000);
      }
      const sum = items.reduce((s, i) => s + i.valueSatoshi, 0);
      const balance = store.db.prepare('SELECT balance FROM scripts WHERE script_key = ?').pluck().get(scriptKey(script));
      expect(sum).toBe(balance);
    }
    // The value is the summaries' serializer: exactly 8 decimals in the JSON text.
    const first = await get(`/api/v1/ltc/address/${addrA}/utxos?limit=1`);
    expect(first.text).toMatch(/"value":50\.00000001,/);
    const whole = data(await get(`/api/v1/ltc/address/${addrA}/utxos`));
    expect(whole.next).toBeNull();
    expect(whole.utxos).toHaveLength(tableRows(A).length);
  });

  it('answers 409 CURSOR_STALE for a cursor taken before the latest block, never a mixed page', async () => {
    const page1 = data(await get(`/api/v1/ltc/address/${addrA}/utxos?limit=2`));
    expect(page1.next).not.toBeNull();
    store.applyBlocks([chain.block([coinbaseTx([{ script: A, value: 1 }], rng.bytes(32))])]);
    const stale = await get(`/api/v1/ltc/address/${addrA}/utxos?limit=2&cursor=${page1.next}`);
    expect(stale.status).toBe(409);
    expect(code(stale)).toBe('CURSOR_STALE');
    store.rollbackTip();
    // Back at the same height but after a disconnection: still the block it was taken at, so it pages on.
    const again = await get(`/api/v1/ltc/address/${addrA}/utxos?limit=2&cursor=${page1.next}`);
    expect(again.status).toBe(200);
  });

  it('refuses garbage, tampered and foreign cursors with their own 400 codes', async () => {
    const next = data(await get(`/api/v1/ltc/address/${addrA}/utxos?limit=2`)).next!;
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    const cases: [string, string][] = [
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=!!!`, 'INVALID_CURSOR'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=AAAA`, 'INVALID_CURSOR'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=${'A'.repeat(500)}`, 'INVALID_CURSOR'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=`, 'INVALID_CURSOR'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=${flip(next, 20)}`, 'CURSOR_TAMPERED'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=${flip(next, next.length - 3)}`, 'CURSOR_TAMPERED'],
      [`/api/v1/ltc/address/${addrB}/utxos?cursor=${next}`, 'CURSOR_FOREIGN'],
      [`/api/v1/ltc/scripthash/${electrum(B)}/utxos?cursor=${next}`, 'CURSOR_FOREIGN'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=${next}&mempool=true`, 'CURSOR_FOREIGN'],
      [`/api/v1/ltc/address/${addrA}/utxos?cursor=${next}&cursor=${next}`, 'BAD_REQUEST'],
    ];
    for (const [p, want] of cases) {
      const a = await get(p);
      expect([a.status, code(a)], p).toEqual([400, want]);
    }
    // The same cursor on the same address (scripthash spelling included) is fine.
    expect((await get(`/api/v1/ltc/scripthash/${electrum(A)}/utxos?limit=2&cursor=${next}`)).status).toBe(200);
  });

  it('checks limit: 1 … 1000, default 100', async () => {
    for (const bad of ['0', '1001', '-1', 'abc', '1.5', '', '99999']) {
      const a = await get(`/api/v1/ltc/address/${addrA}/utxos?limit=${bad}`);
      expect([a.status, code(a)], bad).toEqual([400, 'INVALID_LIMIT']);
    }
    for (const ok of ['1', '1000']) expect((await get(`/api/v1/ltc/address/${addrA}/utxos?limit=${ok}`)).status).toBe(200);
    expect(data(await get(`/api/v1/ltc/address/${addrA}/utxos?limit=1`)).utxos).toHaveLength(1);
  });

  it('marks unconfirmed outputs and confirmed outputs the mempool spends with ?mempool=true', async () => {
    const [spent] = store.db
      .prepare('SELECT outpoint FROM utxos NOT INDEXED WHERE script_key = ? ORDER BY height LIMIT 1')
      .pluck()
      .all(scriptKey(A)) as Buffer[];
    const { txid, vout } = decodeOutpoint(spent!);
    const child = spendTx(
      [{ txid, vout }],
      [
        { script: A, value: 777 },
        { script: B, value: 1 },
      ],
      { txid: rng.bytes(32) },
    );
    expect(store.mempool.add([child]).added).toBe(1);
    const { items } = await pageAll(`/api/v1/ltc/address/${addrA}/utxos?mempool=true`, 2);
    const confirmed = items.filter((i) => !i.unconfirmed);
    expect(confirmed.map((i) => `${i.txid}:${i.vout} ${i.valueSatoshi} ${i.height}`)).toEqual(tableRows(A));
    expect(confirmed.filter((i) => i.spentInMempool).map((i) => `${i.txid}:${i.vout}`)).toEqual([`${toDisplayHex(txid)}:${vout}`]);
    expect(items.filter((i) => i.unconfirmed)).toEqual([
      {
        txid: toDisplayHex(child.txid),
        vout: 0,
        valueSatoshi: 777,
        value: 0.00000777,
        height: null,
        coinbase: null,
        unconfirmed: true,
        spentInMempool: false,
      },
    ]);
    // Without the flag: no mempool fields, no unconfirmed outputs.
    const plain = data(await get(`/api/v1/ltc/address/${addrA}/utxos?limit=1000`));
    expect(plain.utxos.every((i) => i.unconfirmed === undefined && i.height !== null)).toBe(true);
  });

  it('answers 404 UTXO_LIST_DISABLED while the listing is off, and 400 for a bad address before reading', async () => {
    store.setUtxoList(false);
    for (const p of [`/api/v1/ltc/address/${addrA}/utxos`, `/api/v1/ltc/scripthash/${electrum(A)}/utxos`]) {
      const a = await get(p);
      expect([a.status, code(a)], p).toEqual([404, 'UTXO_LIST_DISABLED']);
    }
    world.index.LTC.lister = null;
    expect(code(await get(`/api/v1/ltc/address/${addrA}/utxos`))).toBe('UTXO_LIST_DISABLED');
    expect(code(await get('/api/v1/ltc/address/notanaddress/utxos'))).toBe('INVALID_ADDRESS');
    expect(code(await get('/api/v1/ltc/scripthash/xyz/utxos'))).toBe('INVALID_SCRIPTHASH');
    expect((await caller.send('POST', `/api/v1/ltc/address/${addrA}/utxos`, { 'x-api-key': key })).status).toBe(405);
  });
});
