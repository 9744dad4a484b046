/**
 * src/api/live/summaries.ts over a real index keeping history: a pushed wallet summary is the GET wallet
 * summary's `data`, its distinct txCount, received and sent included, with and without the mempool,
 * while several wallets sharing scripts are read in the one snapshot; and a block that moves coins
 * between two of a wallet's addresses (balance unchanged, history grown) changes its fingerprint.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppDeps } from '../../src/api/deps.js';
import type { ChainHandle } from '../../src/serving/chain-handle.js';
import { readSummaries, type Summary } from '../../src/api/live/summaries.js';
import { walletWatch } from '../../src/api/live/watch.js';
import { addressToScript } from '../../src/chain/address.js';
import { stringifyWithCoins } from '../../src/chain/amount.js';
import { chainParams } from '../../src/chain/params.js';
import { scriptKey } from '../../src/store/script-key.js';
import type { ChainStore } from '../../src/store/sqlite/chain-store.js';
import type { DerivedScript } from '../../src/wallet/derive.js';
import { listingWorld, type ListingWorld } from '../support/listing-world.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng, spendTx } from '../support/blocks.js';
import type { ParsedTx } from '../../src/chain/block-parser.js';

const params = chainParams('BTC', 'mainnet');
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
/** Range 1: the wallet is exactly these two scripts, in this derivation order. */
const WALLET = [
  { path: '0/0', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
  { path: '1/0', address: 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el' },
];
const script = (address: string): Buffer => {
  const r = addressToScript(params, address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script);
};
const [R, C] = WALLET.map((w) => script(w.address)) as [Buffer, Buffer];

let t: ListingWorld;
let store: ChainStore;
let chain: ChainBuilder;
let rng: Rng;
let X: Buffer;
/** The coin R got in block 1 and the one C got in block 2 (value 5000 each). */
let coinR: ParsedTx;
let coinC: ParsedTx;

const apply = (txs: ParsedTx[]): void => store.applyBlocks([chain.block(txs)]);
const tx = (outs: { script: Buffer; value: number }[], inputs: { txid: Buffer; vout: number }[] = []): ParsedTx =>
  spendTx(inputs, outs, { txid: rng.bytes(32) });

beforeEach(() => {
  t = listingWorld(
    'BTC',
    (s) => {
      store = s;
      rng = new Rng(61);
      chain = new ChainBuilder(rng);
      X = p2wpkh(rng);
      apply([]);
      coinR = tx([
        { script: R, value: 5000 },
        { script: R, value: 100 },
      ]);
      apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), coinR]);
      coinC = tx([
        { script: C, value: 5000 },
        { script: X, value: 9 },
      ]);
      // One transaction paying both of the wallet's scripts and X: it counts once in the wallet's txCount.
      apply([
        coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)),
        coinC,
        tx([
          { script: R, value: 700 },
          { script: C, value: 800 },
        ]),
      ]);
    },
    'history',
  );
  t.world.index.BTC.viewer = t.reader;
});

afterEach(() => t.close());

function deps(): AppDeps {
  const handle = { params, configured: true, acquire: () => ({ ok: true, source: t.world.index.BTC }) } as unknown as ChainHandle;
  return { chains: new Map([['BTC', handle]]), settings: { syncLagBlocks: 3 }, clock: t.world.clock } as unknown as AppDeps;
}

/** The GET wallet summary's `data` (range 1), as a subscriber would read it. */
async function getSummary(mempool: boolean): Promise<Record<string, unknown>> {
  const a = await t.caller.send('GET', `/api/v1/btc/xpub/${ZPUB}?range=1${mempool ? '&mempool=true' : ''}`, { 'x-api-key': t.key });
  expect(a.status, a.text).toBe(200);
  return (a.body as { data: Record<string, unknown> }).data;
}

const json = (s: Summary): Record<string, unknown> => JSON.parse(stringifyWithCoins(s.data)) as Record<string, unknown>;

/** Watches of the range-1 wallet (without and with mempool) and of a second wallet sharing C, read together. */
async function pushes(descriptors: readonly string[]): Promise<Summary[]> {
  const derived = (s: Buffer, i: number): DerivedScript => ({ branch: i, index: 0, path: WALLET[i]!.path, script: s });
  const wallet = { fingerprint: 'f1', range: 1, descriptors, scripts: [R, C].map(derived), keys: [R, C].map((s) => scriptKey(s)) };
  const other = { fingerprint: 'f2', range: 1, descriptors, scripts: [C, X].map(derived), keys: [C, X].map((s) => scriptKey(s)) };
  return readSummaries(deps(), 'BTC', [
    walletWatch('BTC', wallet, false),
    walletWatch('BTC', wallet, true),
    walletWatch('BTC', other, false),
  ]);
}

describe('live wallet pushes with history kept', () => {
  it('a pushed wallet summary is the GET summary, txCount, received and sent included, with and without the mempool', async () => {
    store.mempool.add([
      tx(
        [
          { script: C, value: 4000 },
          { script: R, value: 900 },
        ],
        [{ txid: coinR.txid, vout: 0 }],
      ),
    ]);
    const [plain, withMempool] = await Promise.all([getSummary(false), getSummary(true)]);
    expect([plain.txCount, plain.receivedSatoshi, plain.sentSatoshi]).toEqual([3, 11600, 0]);
    const [a, b, c] = await pushes(plain.descriptors as string[]);
    expect(json(a!)).toEqual(plain);
    expect(json(b!)).toEqual(withMempool);
    // The second wallet's own distinct count, from the same read: C's two transactions and X's three.
    expect(json(c!).txCount).toBe(4);
  });

  it('a block moving coins between two of the wallet’s addresses changes the pushed fingerprint', async () => {
    const descriptors = (await getSummary(false)).descriptors as string[];
    const [before] = await pushes(descriptors);
    apply([coinbaseTx([{ script: X, value: 1 }], rng.bytes(32)), tx([{ script: R, value: 5000 }], [{ txid: coinC.txid, vout: 0 }])]);
    const [after] = await pushes(descriptors);
    expect([json(after!).balanceSatoshi, json(after!).txCount]).toEqual([json(before!).balanceSatoshi, 4]);
    expect(after!.fingerprint).not.toBe(before!.fingerprint);
    expect(json(after!)).toEqual(await getSummary(false));
  });
});
