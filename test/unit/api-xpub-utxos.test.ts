/**
 * GET /api/v1/{chain}/xpub/{key}/utxos over a real index with the listing on: the outputs of every
 * derived script merged oldest first, paged, each with its path and address; the cursor is bound to the
 * wallet and its range; wallet refusals keep their codes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { Answer, Caller } from '../support/api-world.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng, spendTx } from '../support/blocks.js';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const RECEIVE_0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const CHANGE_0 = 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el';
const script = (address: string): Buffer => {
  const r = addressToScript(chainParams('BTC', 'mainnet'), address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script);
};

interface Item {
  txid: string;
  vout: number;
  valueSatoshi: number;
  height: number;
  path: string | null;
  address: string | null;
}

let caller: Caller;
let key: string;

const get = (p: string) => caller.send('GET', p, { 'x-api-key': key });
const data = (a: Answer) => (a.body as { data: { utxos: Item[]; next: string | null; code?: string; range: number } }).data;

let t: ListingWorld;
beforeEach(() => {
  t = listingWorld('BTC', (store) => {
    const rng = new Rng(9);
    const chain = new ChainBuilder(rng);
    store.applyBlocks([chain.block([])]);
    for (let h = 1; h <= 5; h++) {
      const pay = [
        { script: script(RECEIVE_0), value: 10_000 + h },
        { script: p2wpkh(rng), value: 5 },
        { script: script(CHANGE_0), value: 20_000 + h },
      ];
      store.applyBlocks([
        chain.block([coinbaseTx([{ script: p2wpkh(rng), value: 1 }], rng.bytes(32)), spendTx([], pay, { txid: rng.bytes(32) })]),
      ]);
    }
  });
  ({ caller, key } = t);
});

afterEach(() => t.close());

describe('GET /api/v1/{chain}/xpub/{key}/utxos', () => {
  it("pages the wallet's outputs oldest first, each with its path and address", async () => {
    const items: Item[] = [];
    let cursor: string | null = null;
    do {
      const a = await get(`/api/v1/btc/xpub/${ZPUB}/utxos?range=5&limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(data(a).utxos.length).toBeLessThanOrEqual(3);
      items.push(...data(a).utxos);
      cursor = data(a).next;
    } while (cursor !== null);
    expect(items.map((i) => `${i.height} ${i.address} ${i.path} ${i.valueSatoshi}`)).toEqual(
      [1, 2, 3, 4, 5].flatMap((h) => [`${h} ${RECEIVE_0} 0/0 ${10_000 + h}`, `${h} ${CHANGE_0} 1/0 ${20_000 + h}`]),
    );
  });

  it('binds the cursor to the wallet and its range, and keeps the wallet refusals', async () => {
    const next = data(await get(`/api/v1/btc/xpub/${ZPUB}/utxos?range=5&limit=1`)).next!;
    const other = await get(`/api/v1/btc/xpub/${ZPUB}/utxos?range=6&limit=1&cursor=${next}`);
    expect([other.status, data(other).code]).toEqual([400, 'CURSOR_FOREIGN']);
    const byAddress = await get(`/api/v1/btc/address/${RECEIVE_0}/utxos?cursor=${next}`);
    expect([byAddress.status, data(byAddress).code]).toEqual([400, 'CURSOR_FOREIGN']);
    const bad = await get(`/api/v1/btc/xpub/notakey/utxos`);
    expect([bad.status, data(bad).code]).toEqual([400, 'MALFORMED_DESCRIPTOR']);
    const limit = await get(`/api/v1/btc/xpub/${ZPUB}/utxos?limit=0`);
    expect([limit.status, data(limit).code]).toEqual([400, 'INVALID_LIMIT']);
    // The wallet summary route is untouched by the listing route in front of it.
    expect((await get(`/api/v1/btc/xpub/${ZPUB}?range=5`)).status).toBe(200);
  });
});
