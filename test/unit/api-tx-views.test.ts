/**
 * The transaction and block routes through the whole app (every response checked against /openapi.json),
 * over a fake index and a fake node that answer as Core does: a confirmed transaction is asked for with
 * its block, its prevouts come from its funding transactions, a mempool one answers unconfirmed; a node
 * that cannot be reached answers 503 NODE_UNAVAILABLE, a pruned block 503 BLOCK_PRUNED naming it, a chain
 * without a node 404 NODE_NOT_CONFIGURED, an index without history 404 HISTORY_DISABLED; bad ids their
 * codes. A transaction with many funding transactions takes a token per 25 of them beyond the first 25.
 */
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { scriptToAddress } from '../../src/chain/address.js';
import { syntheticHeader } from '../../src/chain/block-header.js';
import { sha256d, toDisplayHex } from '../../src/chain/hash.js';
import { chainParams } from '../../src/chain/params.js';
import { NodeError } from '../../src/node/node-client.js';
import type { ChainNode } from '../../src/serving/chain-node.js';
import type { TxBlock } from '../../src/store/tx-block.js';
import { Rng, p2pkh, p2wpkh } from '../support/blocks.js';
import { worldPerTest, type Answer } from '../support/api-world.js';

const rng = new Rng(45);
const PAYEE = p2wpkh(rng);
const CHANGE = p2pkh(rng);
const params = chainParams('LTC', 'mainnet');

function coinbase(height: number, script: Buffer, value: bigint): Transaction {
  const tx = new Transaction();
  tx.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.from([0x01, height & 0xff, 0x00]));
  tx.addOutput(script, value);
  return tx;
}

/** A spend of output 0 of each of `funding`, paying PAYEE and CHANGE. */
function spend(funding: readonly Transaction[], pay: bigint, change: bigint): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  for (const f of funding) tx.addInput(Buffer.from(f.getHash()), 0, 0xfffffffd, Buffer.from([0x51]));
  tx.addOutput(PAYEE, pay);
  tx.addOutput(CHANGE, change);
  return tx;
}

interface Chain {
  /** By display txid: the raw hex and its block hash (display), null in the mempool. */
  readonly txs: Map<string, { hex: string; block: string | null }>;
  readonly blocks: { hash: string; height: number; header: Buffer; txids: string[] }[];
}

/** A node answering getrawtransaction, getblock and getblockheader from `chain`, failing as `fail` says. */
function fakeNode(chain: Chain, fail: { all?: NodeError; pruned?: boolean } = {}): ChainNode & { calls: string[] } {
  const calls: string[] = [];
  const notFound = (what: string) => new NodeError('NOT_FOUND', what, false, { rpcCode: -5, nodeMessage: what });
  return {
    calls,
    close: () => undefined,
    call: async <T>(method: string, params: readonly unknown[] = []): Promise<T> => {
      calls.push(method);
      if (fail.all) throw fail.all;
      if (method === 'getrawtransaction') {
        const [txid, , blockhash] = params as [string, boolean, string | undefined];
        if (fail.pruned && blockhash !== undefined)
          throw new NodeError('RPC', 'Block not available', false, { rpcCode: -1, nodeMessage: 'Block not available' });
        const tx = chain.txs.get(txid);
        if (tx === undefined || (tx.block ?? undefined) !== blockhash) throw notFound('No such mempool transaction');
        return tx.hex as T;
      }
      const block = chain.blocks.find((b) => b.hash === params[0]);
      if (block === undefined) throw notFound('Block not found');
      if (method === 'getblockheader') return { height: block.height } as T;
      if (method === 'getblock') return { size: 1000, strippedsize: 900, weight: 3700, tx: block.txids } as T;
      throw new Error(`unexpected ${method}`);
    },
  };
}

const world = worldPerTest();

/**
 * Blocks 0–2: each a coinbase; block 2 also holds a spend of the coinbases of 0 and 1 (fee 5,000). In
 * the mempool: a spend of block 2's coinbase. With `wide`, block 2 holds instead a spend of 60 coinbases
 * of 60 more blocks below it.
 */
function build(wide = false) {
  const blocks: Chain['blocks'] = [];
  const txs: Chain['txs'] = new Map();
  const txBlocks = new Map<string, TxBlock>();
  const headers: Buffer[] = [];
  let prev: Buffer = Buffer.alloc(32);
  const add = (list: Transaction[]) => {
    const height = blocks.length;
    const { header, hash } = syntheticHeader(
      prev,
      list.map((t) => Buffer.from(t.getHash())),
      1_700_000_000 + height * 600,
      height,
    );
    prev = hash;
    headers.push(header);
    blocks.push({ hash: toDisplayHex(hash), height, header, txids: list.map((t) => t.getId()) });
    list.forEach((t, position) => {
      txs.set(t.getId(), { hex: t.toHex(), block: toDisplayHex(hash) });
      txBlocks.set(Buffer.from(t.getHash()).toString('hex'), { height, hash, position, txNum: txBlocks.size });
    });
  };
  const bases: Transaction[] = [];
  const count = wide ? 62 : 2;
  for (let h = 0; h < count; h++) {
    bases.push(coinbase(h, CHANGE, 50_000n));
    add([bases[h]!]);
  }
  const spent = spend(wide ? bases.slice(0, 60) : bases, 60_000n, wide ? 2_935_000n : 35_000n);
  add([coinbase(count, PAYEE, 50_000n), spent]);
  const pending = spend([], 0n, 0n);
  pending.addInput(Buffer.from(blocks.at(-1)!.txids[0]!, 'hex').reverse(), 0, 0xffffffff, Buffer.from([0x51]));
  txs.set(pending.getId(), { hex: pending.toHex(), block: null });
  return { chain: { txs, blocks }, txBlocks, headers, spent, pending };
}

function setUp(opts: { wide?: boolean; history?: boolean; fail?: { all?: NodeError; pruned?: boolean } } = {}) {
  const b = build(opts.wide);
  const node = fakeNode(b.chain, opts.fail);
  const { w, c } = world({ nodes: { LTC: node }, tiers: { default: { rate: 0.001, burst: 10 }, private: { rate: 0.001, burst: 10 } } });
  const index = w.index.LTC;
  index.tipHeight = b.chain.blocks.length - 1;
  index.tipHash = b.chain.blocks.at(-1)!.hash;
  index.nodeHeight = index.tipHeight;
  index.storedHeaders = b.headers;
  for (const [k, v] of b.txBlocks) index.txBlocks.set(k, v);
  if (opts.history !== false) index.historian = { historyPage: () => null, walletHistoryPage: () => null };
  // The spend index: the coinbases of 0 and 1 spent by `spent` (inputs 0 and 1), block 2's by the mempool one.
  const internal = (txid: string) => Buffer.from(txid, 'hex').reverse();
  const [cb0, cb1, cb2] = [0, 1, 2].map((h) => b.chain.blocks[h]!.txids[0]!);
  if (!opts.wide) {
    index.spends.set(`${internal(cb0!).toString('hex')}:0`, {
      unspent: false,
      spenders: [{ txid: internal(b.spent.getId()), vin: 0, height: 2 }],
      mempool: null,
    });
    index.spends.set(`${internal(cb1!).toString('hex')}:0`, {
      unspent: false,
      spenders: [{ txid: internal(b.spent.getId()), vin: 1, height: 2 }],
      mempool: null,
    });
    index.spends.set(`${internal(cb2!).toString('hex')}:0`, { unspent: false, spenders: [], mempool: internal(b.pending.getId()) });
  }
  const key = w.createKey('private').key;
  const get = (p: string): Promise<Answer> => c.send('GET', p, { 'x-api-key': key });
  return { ...b, node, w, c, get };
}

const dataOf = (a: Answer) => (a.body as { data: Record<string, unknown> }).data;
const codeOf = (a: Answer) => {
  const body = a.body as { code?: string; data?: { code?: string } };
  return body.data?.code ?? body.code;
};

describe('GET /api/v1/{chain}/tx/{txid}', () => {
  it('a confirmed transaction: decoded, prevouts from the funding transactions, the fee, its place', async () => {
    const { get, spent, chain, c } = setUp();
    const a = await get(`/api/v1/LTC/tx/${spent.getId()}`);
    expect(a.status).toBe(200);
    const d = dataOf(a);
    expect(d).toMatchObject({ chain: 'LTC', txid: spent.getId(), version: 2, coinbase: false, feeSatoshi: 5000, fee: 0.00005 });
    expect(d.size).toBe(spent.byteLength());
    expect(d.feePerKvbSatoshi).toBe(Math.floor((5000 * 1000) / spent.virtualSize()));
    const inputs = d.inputs as { txid: string; prevout: { valueSatoshi: number; address: string } }[];
    expect(inputs.map((i) => i.txid)).toEqual([chain.blocks[0]!.txids[0], chain.blocks[1]!.txids[0]]);
    expect(inputs[0]!.prevout).toMatchObject({ valueSatoshi: 50_000, address: scriptToAddress(params, CHANGE), type: 'pubkeyhash' });
    const outputs = d.outputs as { n: number; type: string; address: string; scripthash: string }[];
    expect(outputs[0]).toMatchObject({ n: 0, type: 'witness_v0_keyhash', address: scriptToAddress(params, PAYEE) });
    expect(d.status).toEqual({
      confirmed: true,
      height: 2,
      blockHash: chain.blocks[2]!.hash,
      blockTime: 1_700_001_200,
      position: 1,
      confirmations: 1,
    });
    expect(a.text).toContain('"fee":0.00005000,');
    expect(c.problems).toEqual([]);
  });

  it('a coinbase has no prevout and no fee; a mempool transaction answers unconfirmed', async () => {
    const { get, chain, pending, c } = setUp();
    const cb = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[0]!.txids[0]}`));
    expect(cb).toMatchObject({ coinbase: true, feeSatoshi: null, feePerKvb: null });
    expect((cb.inputs as { txid: null; prevout: null }[])[0]).toMatchObject({ txid: null, vout: null, prevout: null, scriptSig: '010000' });
    const m = dataOf(await get(`/api/v1/LTC/tx/${pending.getId()}`));
    expect(m.status).toEqual({ confirmed: false });
    expect(c.problems).toEqual([]);
  });

  it('…/hex answers the raw form; …/merkle-proof folds to the root; a mempool transaction has no proof', async () => {
    const { get, spent, pending, chain } = setUp();
    expect(dataOf(await get(`/api/v1/LTC/tx/${spent.getId()}/hex`)).hex).toBe(spent.toHex());
    const proof = dataOf(await get(`/api/v1/LTC/tx/${spent.getId()}/merkle-proof`));
    expect(proof).toMatchObject({ blockHeight: 2, blockHash: chain.blocks[2]!.hash, position: 1 });
    // Two leaves: the branch is the other one.
    expect(proof.merkle).toEqual([chain.blocks[2]!.txids[0]]);
    const none = await get(`/api/v1/LTC/tx/${pending.getId()}/merkle-proof`);
    expect([none.status, codeOf(none)]).toEqual([404, 'TX_NOT_FOUND']);
  });

  it('refuses bad and unknown txids, a chain without a node, and an index without history', async () => {
    const { get } = setUp({ history: false });
    const cases: [string, number, string][] = [
      ['/api/v1/LTC/tx/xyz', 400, 'INVALID_TXID'],
      [`/api/v1/LTC/tx/${'ab'.repeat(32)}`, 404, 'HISTORY_DISABLED'],
      [`/api/v1/BTC/tx/${'ab'.repeat(32)}`, 404, 'NODE_NOT_CONFIGURED'],
      [`/api/v1/BTC/blocks/tip`, 404, 'NODE_NOT_CONFIGURED'],
    ];
    for (const [path, status, code] of cases) {
      const a = await get(path);
      expect([path, a.status, codeOf(a)]).toEqual([path, status, code]);
    }
    const on = setUp();
    const a = await on.get(`/api/v1/LTC/tx/${'ab'.repeat(32)}`);
    expect([a.status, codeOf(a)]).toEqual([404, 'TX_NOT_FOUND']);
  });

  it('a node that cannot be reached: 503 NODE_UNAVAILABLE with Retry-After, and the app answers on', async () => {
    const { get, spent, c } = setUp({ fail: { all: new NodeError('UNREACHABLE', 'node at 127.0.0.1 unreachable (ECONNREFUSED)', true) } });
    const a = await get(`/api/v1/LTC/tx/${spent.getId()}`);
    expect([a.status, codeOf(a)]).toEqual([503, 'NODE_UNAVAILABLE']);
    expect(a.headers['retry-after']).toBe('5');
    expect(a.text).not.toContain('127.0.0.1');
    expect((await c.send('GET', '/health')).status).toBe(200);
  });

  it('a block the node has pruned: 503 BLOCK_PRUNED naming it', async () => {
    const { get, spent, chain } = setUp({ fail: { pruned: true } });
    const a = await get(`/api/v1/LTC/tx/${spent.getId()}`);
    expect([a.status, codeOf(a)]).toEqual([503, 'BLOCK_PRUNED']);
    expect((a.body as { data: unknown }).data).toEqual({ blockHash: chain.blocks[2]!.hash, height: 2 });
  });

  it('takes one more token per 25 funding transactions past the first 25, before reading them', async () => {
    const { get, spent, node } = setUp({ wide: true });
    const a = await get(`/api/v1/LTC/tx/${spent.getId()}`);
    expect(a.status).toBe(200);
    expect((dataOf(a).inputs as unknown[]).length).toBe(60);
    // Burst 10, refill nil: the route's token and ⌈60 / 25⌉ − 1 = 2 more.
    expect(a.headers['ratelimit-remaining']).toBe('7');
    expect(node.calls.filter((m) => m === 'getrawtransaction').length).toBe(61);
  });
});

describe('what spent each output: `spent` and …/outspends', () => {
  it('the spender from the spend index; a mempool spender with the input it uses; null while unspent', async () => {
    const { get, chain, spent, pending, c } = setUp();
    const cb0 = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[0]!.txids[0]}`));
    expect((cb0.outputs as { spent: unknown }[])[0]!.spent).toEqual({ txid: spent.getId(), vin: 0, height: 2 });
    const cb1 = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[1]!.txids[0]}/outspends`));
    expect(cb1).toEqual({ chain: 'LTC', txid: chain.blocks[1]!.txids[0], outspends: [{ txid: spent.getId(), vin: 1, height: 2 }] });
    const cb2 = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[2]!.txids[0]}/outspends`));
    expect(cb2.outspends).toEqual([{ txid: pending.getId(), vin: 0, height: null }]);
    expect(dataOf(await get(`/api/v1/LTC/tx/${spent.getId()}/outspends`)).outspends).toEqual([null, null]);
    expect(c.problems).toEqual([]);
  });

  it('candidates under one spend key are told apart by the spending transactions; a spend before the index kept spends has no txid', async () => {
    const { get, chain, spent, w } = setUp();
    const internal = (txid: string) => Buffer.from(txid, 'hex').reverse();
    const cb0 = internal(chain.blocks[0]!.txids[0]!);
    // Another txid sharing the key: its "spender" (block 1's coinbase) spends nothing of cb0.
    w.index.LTC.spends.set(`${cb0.toString('hex')}:0`, {
      unspent: false,
      spenders: [
        { txid: internal(chain.blocks[1]!.txids[0]!), vin: 0, height: 1 },
        { txid: internal(spent.getId()), vin: 0, height: 2 },
      ],
      mempool: null,
    });
    const answer = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[0]!.txids[0]}/outspends`));
    expect(answer.outspends).toEqual([{ txid: spent.getId(), vin: 0, height: 2 }]);
    w.index.LTC.spends.set(`${cb0.toString('hex')}:0`, { unspent: false, spenders: [], mempool: null });
    const before = dataOf(await get(`/api/v1/LTC/tx/${chain.blocks[0]!.txids[0]}/outspends`));
    expect(before.outspends).toEqual([{ txid: null, vin: null, height: null }]);
  });
});

describe('GET /api/v1/{chain}/block/{id}', () => {
  it('by height and by hash: the header fields, the node’s size and weight; the tip; txids page by page', async () => {
    const { get, chain, c } = setUp();
    const b = chain.blocks[2]!;
    for (const id of ['2', b.hash]) {
      const d = dataOf(await get(`/api/v1/LTC/block/${id}`));
      expect(d).toEqual({
        chain: 'LTC',
        hash: b.hash,
        height: 2,
        version: 0x20000000,
        time: 1_700_001_200,
        medianTime: 1_700_000_600,
        bits: '207fffff',
        nonce: 2,
        difficulty: 4.656542373906925e-10,
        merkleRoot: toDisplayHex(b.header.subarray(36, 68)),
        previousBlockHash: chain.blocks[1]!.hash,
        nextBlockHash: null,
        confirmations: 1,
        txCount: 2,
        size: 1000,
        strippedSize: 900,
        weight: 3700,
      });
    }
    expect(dataOf(await get('/api/v1/LTC/blocks/tip')).hash).toBe(b.hash);
    expect(dataOf(await get('/api/v1/LTC/block/0')).previousBlockHash).toBeNull();
    expect(dataOf(await get('/api/v1/LTC/block/0')).nextBlockHash).toBe(chain.blocks[1]!.hash);
    const first = dataOf(await get(`/api/v1/LTC/block/${b.hash}/txids?limit=1`));
    expect(first).toMatchObject({ txCount: 2, start: 0, txids: [b.txids[0]], next: 1 });
    expect(dataOf(await get(`/api/v1/LTC/block/${b.hash}/txids?limit=1&start=1`))).toMatchObject({ txids: [b.txids[1]], next: null });
    expect(c.problems).toEqual([]);
  });

  it('refuses bad ids, heights above the tip, unknown hashes and a node list that misses the merkle root', async () => {
    const { get, chain } = setUp();
    const cases: [string, number, string][] = [
      ['/api/v1/LTC/block/-1', 400, 'INVALID_BLOCK_ID'],
      ['/api/v1/LTC/block/01', 400, 'INVALID_BLOCK_ID'],
      ['/api/v1/LTC/block/2147483648', 400, 'INVALID_BLOCK_ID'],
      ['/api/v1/LTC/block/3', 404, 'BLOCK_NOT_FOUND'],
      [`/api/v1/LTC/block/${'cd'.repeat(32)}`, 404, 'BLOCK_NOT_FOUND'],
      ['/api/v1/LTC/block/0/txids?limit=0', 400, 'INVALID_LIMIT'],
      ['/api/v1/LTC/block/0/txids?start=-1', 400, 'BAD_REQUEST'],
    ];
    for (const [path, status, code] of cases) {
      const a = await get(path);
      expect([path, a.status, codeOf(a)]).toEqual([path, status, code]);
    }
    chain.blocks[1]!.txids.push(toDisplayHex(sha256d(Buffer.from('not in the block'))));
    const bad = await get('/api/v1/LTC/block/1');
    expect([bad.status, codeOf(bad)]).toEqual([503, 'NODE_UNAVAILABLE']);
  });
});
