/**
 * The Esplora dialect judged by a real client, @mempool/mempool.js, against a real litecoind without
 * -txindex, on the default settings: the API with ADDRSUM_ESPLORA on and nothing else changed. The client
 * calls with a key (the private tier), and waits out a 429 as a well-behaved client does, so the default
 * limits hold. Every answer is compared with the node's own account of its chain (chain-walk.ts): the
 * transactions of every kind (coinbases, MWEB peg-ins, the HogEx, many inputs), their prevouts and fees,
 * outspends, merkle proofs (and merkle blocks, against `gettxoutproof`), blocks with their transactions
 * and raw form, and the tip; electrs's error texts and statuses; then a transaction relayed through
 * POST /tx (api.broadcast on), seen unconfirmed, in the mempool's txids, figures and newest ten and,
 * mined, confirmed; POST /txs/package, which litecoind cannot take, absent as electrs's would be.
 */
import mempoolJS from '@mempool/mempool.js';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { fromDisplayHex, toDisplayHex } from '../../src/chain/hash.js';
import { foldBranch } from '../../src/chain/merkle.js';
import { walkChain, type NodeBlock, type Walk } from '../support/chain-walk.js';
import { addressOf, comparable, expectedAddress, expectedOutspend, expectedTx, scriptsOf, type Json } from '../support/esplora-oracle.js';
import { cachedHistoryChain } from '../support/history-chain.js';
import { politely } from '../support/polite.js';

describe('the Esplora dialect, judged by mempool.js, against a real litecoind without -txindex', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let client: ReturnType<typeof mempoolJS>['bitcoin'];
  let walk: Walk;

  /** A client that waits out a 429 (Retry-After), as one that shares a rate limit must. */
  const polite = politely((err) => {
    const r = (err as { response?: { status: number; headers: Record<string, string> } }).response;
    return r?.status === 429 ? Number(r.headers['retry-after'] ?? 1) : null;
  }, 60_000);

  /** An answer's status and text, straight from the API (what the client would see as an error). */
  const raw = async (path: string): Promise<{ status: number; type: string | null; text: string }> =>
    polite(async () => {
      const res = await fetch(`${api.url}/esplora/LTC/api${path}`);
      const text = await res.text();
      if (res.status === 429)
        throw Object.assign(new Error('429'), {
          response: { status: 429, headers: { 'retry-after': res.headers.get('retry-after') ?? '1' } },
        });
      return { status: res.status, type: res.headers.get('content-type'), text };
    });

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ litecoind: { from: (await cachedHistoryChain({ seed: 23 })).template } });
    node = lw.node;
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    await lw.world.waitForTip('catch-up with history', 120_000);
    api = await lw.world.startApi('', { ADDRSUM_ESPLORA: 'true', ADDRSUM_BROADCAST: 'true' });
    const key = lw.world.createKey('esplora');
    const base = new URL(api.url);
    client = mempoolJS({
      hostname: `${base.host}/esplora/LTC`,
      protocol: 'http',
      config: { headers: { 'x-api-key': key }, proxy: false },
    }).bitcoin;
    walk = await walkChain(node);
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  it('answers every kind of transaction as the node holds it, with prevouts, fee and status', async () => {
    const all = [...walk.txs.values()].filter((w) => w.block.height > 0);
    // Every transaction that is not a plain coinbase, and some coinbases: the limits pace the client.
    const sample = all.filter((w, i) => w.tx.vin[0]?.coinbase === undefined || i % 40 === 0);
    const seen = { coinbase: 0, pegIn: 0, hogEx: 0, manyInputs: 0, witness: 0 };
    const wrong: unknown[] = [];
    for (const w of sample) {
      const got = (await polite(() => client.transactions.getTx({ txid: w.tx.txid }))) as unknown as Json;
      const want = expectedTx(w, walk);
      if (JSON.stringify(comparable(got)) !== JSON.stringify(want)) wrong.push({ want, got: comparable(got) });
      if (want.vin[0]!.is_coinbase) seen.coinbase++;
      if (w.tx.vout.some((v) => v.scriptPubKey.type === 'witness_mweb_pegin')) seen.pegIn++;
      if (w.position === w.block.tx.length - 1 && w.block.height >= 432) seen.hogEx++;
      if (w.tx.vin.length >= 3) seen.manyInputs++;
      if (want.vin.some((i) => 'witness' in i)) seen.witness++;
    }
    expect(wrong.slice(0, 2), `${wrong.length} of ${sample.length} transactions differ`).toEqual([]);
    expect(seen.coinbase).toBeGreaterThan(5);
    expect(seen.pegIn).toBeGreaterThan(0);
    expect(seen.hogEx).toBeGreaterThan(0);
    expect(seen.manyInputs).toBeGreaterThan(0);
    expect(seen.witness).toBeGreaterThan(0);
  }, 300_000);

  it('gives status, hex, outspends and merkle proofs as the node says', async () => {
    const sample = [...walk.txs.values()].filter((w, i) => w.block.height > 0 && i % 9 === 0);
    for (const w of sample) {
      const { txid } = w.tx;
      expect(await polite(() => client.transactions.getTxStatus({ txid }))).toEqual(expectedTx(w, walk).status);
      expect(await polite(() => client.transactions.getTxHex({ txid }))).toBe(
        await node.cli<string>('getrawtransaction', txid, false, w.block.hash),
      );
      const outspends = (await polite(() => client.transactions.getTxOutspends({ txid }))) as unknown as Json[];
      const want = w.tx.vout.map((v) => expectedOutspend(walk, `${txid}:${v.n}`));
      expect(outspends, txid).toEqual(want);
      const one = w.tx.vout.length - 1;
      expect(await polite(() => client.transactions.getTxOutspend({ txid, vout: one }))).toEqual(want[one]);
      const proof = (await polite(() => client.transactions.getTxMerkleProof({ txid }))) as unknown as {
        block_height: number;
        merkle: string[];
        pos: number;
      };
      expect(proof.block_height).toBe(w.block.height);
      expect(proof.pos).toBe(w.position);
      const root = foldBranch(fromDisplayHex(txid), proof.pos, proof.merkle.map(fromDisplayHex));
      expect(toDisplayHex(root)).toBe(w.block.merkleroot);
      expect(await polite(() => client.transactions.getTxMerkleBlockProof({ txid }))).toBe(
        await node.cli<string>('gettxoutproof', [txid], w.block.hash),
      );
    }
  }, 300_000);

  it('gives blocks, their txids and headers, and the tip as the node says', async () => {
    const tip = walk.blocks.at(-1)!;
    expect(await polite(() => client.blocks.getBlocksTipHeight())).toBe(tip.height);
    expect(await polite(() => client.blocks.getBlocksTipHash())).toBe(tip.hash);
    const expectedBlock = (b: NodeBlock) => ({
      id: b.hash,
      height: b.height,
      version: b.version,
      timestamp: b.time,
      tx_count: b.nTx,
      size: b.size,
      weight: b.weight,
      merkle_root: b.merkleroot,
      previousblockhash: b.previousblockhash ?? null,
      mediantime: b.mediantime,
      nonce: b.nonce,
      bits: Number.parseInt(b.bits, 16),
      difficulty: Number(b.difficulty),
    });
    for (const b of walk.blocks.filter((_, h) => h % 37 === 0 || h === tip.height)) {
      expect(await polite(() => client.blocks.getBlockHeight({ height: b.height }))).toBe(b.hash);
      expect(await polite(() => client.blocks.getBlockTxids({ hash: b.hash }))).toEqual(b.tx.map((t) => t.txid));
      expect(await polite(() => client.blocks.getBlockTxid({ hash: b.hash, index: b.nTx - 1 }))).toBe(b.tx.at(-1)!.txid);
      expect(await polite(() => client.blocks.getBlockHeader({ hash: b.hash }))).toBe(
        await node.cli<string>('getblockheader', b.hash, false),
      );
      expect(await polite(() => client.blocks.getBlockStatus({ hash: b.hash }))).toEqual({
        in_best_chain: true,
        height: b.height,
        next_best: b.nextblockhash ?? null,
      });
      const block = await raw(`/block/${b.hash}`);
      expect(block.type).toBe('application/json');
      const parsed = JSON.parse(block.text) as Json;
      // Esplora's difficulty is ryu's float: the same number, `.0` on an integral one.
      expect({ ...parsed, difficulty: Number(parsed.difficulty) }).toEqual({ ...expectedBlock(b), difficulty: parsed.difficulty });
      expect(Number(parsed.difficulty)).toBeCloseTo(Number(b.difficulty), 20);
    }
    // A block's transactions, 25 a page, each as /tx/:txid gives it; its raw form as the node holds it.
    const busy = walk.blocks.reduce((a, b) => (b.nTx > a.nTx ? b : a));
    expect(busy.nTx).toBeGreaterThan(1);
    const pages: Json[] = [];
    for (let start = 0; start < busy.nTx; start += 25)
      pages.push(...((await polite(() => client.blocks.getBlockTxs({ hash: busy.hash, start_index: start }))) as unknown as Json[]));
    expect(pages.map(comparable)).toEqual(busy.tx.map((t) => expectedTx(walk.txs.get(t.txid)!, walk)));
    const bytes = await polite(async () => {
      const res = await fetch(`${api.url}/esplora/LTC/api/block/${busy.hash}/raw`);
      if (res.status === 429) throw Object.assign(new Error('429'), { response: { status: 429, headers: { 'retry-after': '1' } } });
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      return Buffer.from(await res.arrayBuffer());
    });
    expect(bytes.toString('hex')).toBe(await node.cli<string>('getblock', busy.hash, 0));
    const page = JSON.parse((await raw('/blocks')).text) as Json[];
    expect(page.map((b) => b.id)).toEqual(
      walk.blocks
        .slice(-10)
        .reverse()
        .map((b) => b.hash),
    );
    const older = JSON.parse((await raw('/blocks/5')).text) as Json[];
    expect(older.map((b) => b.height)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(older.at(-1)!.previousblockhash).toBeNull();
  }, 300_000);

  it("answers electrs's statuses and texts for bad and unknown ids and paths", async () => {
    const absent = 'ab'.repeat(32);
    const cases: [string, number, string][] = [
      [`/tx/${absent}`, 404, 'Transaction not found'],
      ['/tx/xyz', 400, 'Invalid hex string'],
      [`/tx/${absent}/status`, 200, '{"confirmed":false}'],
      [`/tx/${absent}/outspend/0`, 200, '{"spent":false}'],
      [`/tx/${absent}/merkle-proof`, 404, 'Transaction not found or is unconfirmed'],
      [`/tx/${walk.blocks[1]!.tx[0]!.txid}/outspend/x`, 400, 'Invalid number'],
      [`/block/${absent}`, 404, 'Block not found'],
      [`/block/${absent}/status`, 200, '{"in_best_chain":false,"height":null,"next_best":null}'],
      ['/block/123', 400, 'Invalid hex string'],
      [`/block/${walk.blocks[1]!.hash}/txid/99`, 404, 'tx index out of range'],
      ['/block-height/99999', 404, 'Block not found'],
      ['/block-height/-1', 400, 'Invalid number'],
      // Rust's usize parse: a `+` and leading zeros are fine, past 2^64 is not a number.
      ['/block-height/+00000000001', 200, walk.blocks[1]!.hash],
      ['/block-height/18446744073709551615', 404, 'Block not found'],
      ['/block-height/18446744073709551616', 400, 'Invalid number'],
      [`/block/${walk.blocks[1]!.hash}/txs/1`, 400, 'start index must be a multiple of 25'],
      [`/block/${walk.blocks[1]!.hash}/txs/25`, 400, 'start index out of range'],
      [`/block/${absent}/txs`, 404, 'Block not found'],
      [`/tx/${absent}/merkleblock-proof`, 404, 'Transaction not found or is unconfirmed'],
      ['/nope', 404, 'endpoint does not exist "/esplora/LTC/api/nope"'],
      [`/tx/${walk.blocks[1]!.tx[0]!.txid}/`, 404, `endpoint does not exist "/esplora/LTC/api/tx/${walk.blocks[1]!.tx[0]!.txid}/"`],
    ];
    for (const [path, status, text] of cases) {
      const got = await raw(path);
      expect({ path, status: got.status, text: got.text }).toEqual({ path, status, text });
      if (status !== 200) expect(got.type, path).toBe('text/plain');
    }
    // A trailing slash on /blocks is read as no start height, as electrs reads it.
    expect((JSON.parse((await raw('/blocks/')).text) as Json[]).length).toBe(10);
    const fees = JSON.parse((await raw('/fee-estimates')).text) as Record<string, number>;
    for (const [target, rate] of Object.entries(fees)) {
      expect([...Array.from({ length: 25 }, (_, i) => String(i + 1)), '144', '504', '1008']).toContain(target);
      expect(rate).toBeGreaterThan(0);
    }
  }, 120_000);

  it('answers addresses as the node holds them: stats, pages replayed as BDK pages them, and UTXOs', async () => {
    const per = scriptsOf(walk);
    const busiest = [...per.entries()].sort((x, y) => y[1].txs.length - x[1].txs.length);
    const sample = [...busiest.slice(0, 4), ...busiest.filter((_, i) => i % 25 === 7)];
    expect(busiest[0]![1].txs.length).toBeGreaterThan(60);
    const json = async (path: string): Promise<Json[]> => JSON.parse((await raw(path)).text) as Json[];
    for (const [address, e] of sample) {
      expect(await polite(() => client.addresses.getAddress({ address }))).toEqual(expectedAddress(address, e));
      // BDK's sync: …/txs, then …/txs/chain/:last_seen until a page holds fewer than 25.
      const pages: Json[][] = [(await polite(() => client.addresses.getAddressTxs({ address }))) as unknown as Json[]];
      while (pages.at(-1)!.length >= 25) pages.push(await json(`/address/${address}/txs/chain/${pages.at(-1)!.at(-1)!.txid as string}`));
      const got = pages.flat();
      expect(
        got.map((t) => t.txid),
        address,
      ).toEqual([...e.txs].reverse().map((w) => w.tx.txid));
      expect(comparable(got[0]!)).toEqual(expectedTx(e.txs.at(-1)!, walk));
      const chainPage = (await polite(() => client.addresses.getAddressTxsChain({ address }))) as unknown as Json[];
      expect(chainPage.map((t) => t.txid)).toEqual(got.slice(0, 25).map((t) => t.txid));
      const utxos = (await polite(() => client.addresses.getAddressTxsUtxo({ address }))) as unknown as Json[];
      expect(new Map(utxos.map((u) => [`${u.txid as string}:${u.vout as number}`, u.value]))).toEqual(e.utxos);
      for (const u of utxos) expect(u.status, address).toEqual(expectedTx(walk.txs.get(u.txid as string)!, walk).status);
    }
    // A last_seen_txid the history lacks ends it, as in electrs; one that is no txid is none.
    const [address, e] = sample[0]!;
    expect(await json(`/address/${address}/txs/chain/${walk.blocks[1]!.tx[0]!.txid}`)).toEqual([]);
    expect(await json(`/address/${address}/txs/chain/${'ee'.repeat(32)}`)).toEqual([]);
    expect((await json(`/address/${address}/txs/chain/xyz`)).map((t) => t.txid)).toEqual(
      [...e.txs]
        .reverse()
        .slice(0, 25)
        .map((w) => w.tx.txid),
    );
    const scripthash = createHash('sha256')
      .update(Buffer.from(e.txs[0]!.tx.vout.find((v) => addressOf(v) === address)?.scriptPubKey.hex ?? '', 'hex'))
      .digest('hex');
    const byHash = JSON.parse((await raw(`/scripthash/${scripthash}`)).text) as Json;
    expect(Object.keys(byHash)).toEqual(['chain_stats', 'mempool_stats', 'scripthash']);
    expect(byHash.chain_stats).toEqual((await polite(() => client.addresses.getAddress({ address }))).chain_stats);
    for (const [path, status, text] of [
      ['/address/nope', 400, 'Invalid Bitcoin address'],
      ['/scripthash/abc', 400, 'Invalid hex string'],
      ['/scripthash/abcd', 400, 'Invalid scripthash'],
    ] as const) {
      const r = await raw(path);
      expect({ path, status: r.status, text: r.text }).toEqual({ path, status, text });
    }
  }, 300_000);

  /**
   * /mempool and /mempool/recent against the node's getrawmempool, once their few seconds of keeping
   * have passed (waited for with a deadline): the count, vsizes as electrs's weight / 4, fees, one
   * histogram bin (a small mempool) at its lowest f32 rate, and `txid` (or nothing) newest, its `value`
   * what its inputs spend.
   */
  async function expectMempoolFigures(txid: string | null): Promise<void> {
    type Entry = { weight: number; fees: { base: number } };
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pool = await node.cli<Record<string, Entry>>('getrawmempool', true);
      const entries = Object.values(pool);
      const got = (await polite(() => client.mempool.getMempool())) as unknown as Json;
      const recent = (await polite(() => client.mempool.getMempoolRecent())) as unknown as Json[];
      const fresh = got.count === entries.length && (txid === null ? recent.length === 0 : recent[0]?.txid === txid);
      if (!fresh && Date.now() < deadline) {
        await sleep(500);
        continue;
      }
      const vsizes = entries.map((e) => Math.floor(e.weight / 4));
      const fees = entries.map((e) => Math.round(e.fees.base * 1e8));
      const total = vsizes.reduce((a, b) => a + b, 0);
      expect({ ...got, fee_histogram: undefined }).toEqual({
        count: entries.length,
        vsize: total,
        total_fee: fees.reduce((a, b) => a + b, 0),
        fee_histogram: undefined,
      });
      const lowest = Math.min(...fees.map((f, i) => Math.fround(f / vsizes[i]!)));
      const histogram = got.fee_histogram as [number, number][];
      expect(histogram.map(([rate, size]) => [Math.fround(rate), size])).toEqual(entries.length === 0 ? [] : [[lowest, total]]);
      if (txid === null) return expect(recent).toEqual([]);
      const decoded = await node.cli<{ vout: { value: number }[] }>('getrawtransaction', txid, true);
      const fee = Math.round(pool[txid]!.fees.base * 1e8);
      expect(recent[0]).toEqual({
        txid,
        fee,
        vsize: Math.floor(pool[txid]!.weight / 4),
        value: fee + decoded.vout.reduce((sum, o) => sum + Math.round(o.value * 1e8), 0),
      });
      return;
    }
  }

  // Last: it changes the chain the suite walked.
  it('relays a transaction through POST /tx, which then answers unconfirmed, then confirmed once mined', async () => {
    const to = await node.cli<string>('getnewaddress', '', 'bech32');
    const unsigned = await node.cli<string>('createrawtransaction', [], { [to]: '0.01' });
    const funded = await node.cli<{ hex: string }>('fundrawtransaction', unsigned);
    const signed = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', funded.hex);
    expect(signed.complete).toBe(true);
    const txid = (await polite(() => client.transactions.postTx({ txhex: signed.hex }))) as unknown as string;
    expect(txid).toBe(await node.cli<{ txid: string }>('decoderawtransaction', signed.hex).then((d) => d.txid));
    expect(await polite(() => client.mempool.getMempoolTxids())).toContain(txid);
    expect(await polite(() => client.transactions.getTxStatus({ txid }))).toEqual({ confirmed: false });
    // The index learns of the mempool by polling the node (litecoind has no ZMQ): wait, with a deadline.
    const seenBy = Date.now() + 60_000;
    let pending: Json[] = [];
    while (pending.length === 0 && Date.now() < seenBy) {
      pending = (await polite(() => client.addresses.getAddressTxsMempool({ address: to }))) as unknown as Json[];
      if (pending.length === 0) await sleep(250);
    }
    expect(pending.map((t) => t.txid)).toEqual([txid]);
    expect((pending[0]!.status as Json).confirmed).toBe(false);
    expect((await polite(() => client.addresses.getAddress({ address: to }))).mempool_stats).toEqual({
      funded_txo_count: 1,
      funded_txo_sum: 1_000_000,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 1,
    });
    await expectMempoolFigures(txid);
    // litecoind has no submitpackage: the route answers as absent, which LDK reads as "one by one".
    // Anonymous, so on the default tier: a 429 is waited out as `raw` waits it out.
    const post = (path: string, body: string) =>
      polite(async () => {
        const res = await fetch(`${api.url}/esplora/LTC/api${path}`, { method: 'POST', body });
        if (res.status === 429)
          throw Object.assign(new Error('429'), {
            response: { status: 429, headers: { 'retry-after': res.headers.get('retry-after') ?? '1' } },
          });
        return { status: res.status, text: await res.text() };
      });
    expect(await post('/txs/package', JSON.stringify([signed.hex]))).toEqual({
      status: 404,
      text: 'endpoint does not exist "/esplora/LTC/api/txs/package"',
    });
    for (const [path, body, text] of [
      ['/txs/package', JSON.stringify(Array(26).fill(signed.hex)), 'Exceeded maximum of 25 transactions'],
      ['/txs/package?maxfeerate=x', JSON.stringify([signed.hex]), 'Invalid maxfeerate'],
      ['/txs/package', JSON.stringify([signed.hex, '00']), 'Invalid transaction size for item 1'],
      ['/txs/package', JSON.stringify([`${'zz'}${signed.hex}`]), 'Invalid transaction hex for item 0'],
    ] as const)
      expect({ path, ...(await post(path, body)) }).toEqual({ path, status: 400, text });
    const bad = await post('/tx', '00');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^sendrawtransaction RPC error: \{"code":-22,"message":".+"\}$/);
    const [hash] = await node.cli<string[]>('generatetoaddress', 1, to);
    await lw.world.waitForTip('the relayed transaction mined', 60_000);
    const mined = (await polite(() => client.transactions.getTxStatus({ txid }))) as unknown as Json;
    expect(mined).toMatchObject({ confirmed: true, block_hash: hash });
    await expectMempoolFigures(null);
  }, 120_000);
});
