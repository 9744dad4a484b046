/**
 * The Blockbook dialect's REST v2 judged by a real client, blockbook-client (its io-ts validation of
 * every answer on), against a real litecoind without -txindex, on the default settings: the API with
 * ADDRSUM_BLOCKBOOK on and nothing else changed. The client cannot send a key, so it runs at the
 * anonymous default tier (5/s, burst 10) and waits out a 429 as a polite client does; that pace is why
 * transactions, addresses and blocks are sampled (every non-coinbase transaction and every 40th
 * coinbase; every 8th address). Every figure is compared with the node's own account of its chain
 * (chain-walk.ts, blockbook-oracle.ts): transactions of every kind (coinbases, MWEB peg-ins, the HogEx,
 * many inputs) with prevouts, fees and spenders, address figures and txid pages, UTXOs (against
 * scantxoutset too), blocks, the tip and the status; Blockbook's error shape and texts; then a
 * transaction relayed through sendtx (api.broadcast on), seen in the mempool and, mined, confirmed.
 */
import { BlockbookBitcoin } from 'blockbook-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { parseJsonDecimalsAsText } from '../../harness/rpc-json.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { walkChain, type Walk } from '../support/chain-walk.js';
import { comparable, expectedFigures, expectedTx, newestFirst, type Json } from '../support/blockbook-oracle.js';
import { scriptsOf } from '../support/esplora-oracle.js';
import { satsOf } from '../support/history-walk.js';
import { cachedHistoryChain } from '../support/history-chain.js';
import { limitedByText, politely } from '../support/polite.js';

const DEADLINE = { timeout: 60_000, interval: 250 };

describe('the Blockbook dialect, judged by blockbook-client, against a real litecoind without -txindex', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let client: BlockbookBitcoin;
  let walk: Walk;
  let tip: number;

  const polite = politely(limitedByText, 120_000);

  /** An answer's status and JSON body, straight from the API. */
  const raw = (path: string, init?: RequestInit): Promise<{ status: number; body: Json }> =>
    polite(async () => {
      const res = await fetch(`${api.url}/blockbook/LTC${path}`, init);
      const body = (await res.json()) as Json;
      if (res.status === 429) throw new Error(String(body.error));
      return { status: res.status, body };
    });

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ litecoind: { from: (await cachedHistoryChain({ seed: 23 })).template } });
    node = lw.node;
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    await lw.world.waitForTip('catch-up with history', 120_000);
    api = await lw.world.startApi('', { ADDRSUM_BLOCKBOOK: 'true', ADDRSUM_BROADCAST: 'true' });
    client = new BlockbookBitcoin({ nodes: [`${api.url}/blockbook/LTC`], requestTimeoutMs: 60_000, logger: null });
    walk = await walkChain(node);
    tip = walk.blocks.length - 1;
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  it("states the node's tip and chain, and each height's block hash", async () => {
    const status = await polite(() => client.getStatus());
    expect(status.blockbook).toMatchObject({ bestHeight: tip, decimals: 8, inSync: true });
    expect(status.backend).toMatchObject({ chain: 'regtest', blocks: tip, bestBlockHash: walk.blocks[tip]!.hash });
    expect(await polite(() => client.getBestBlock())).toEqual({ height: tip, hash: walk.blocks[tip]!.hash });
    for (const h of [0, 1, 432, tip]) expect(await polite(() => client.getBlockHash(h))).toBe(walk.blocks[h]!.hash);
    expect(await raw(`/api/v2/block-index/${tip + 1}`)).toEqual({ status: 400, body: { error: 'Block not found' } });
  }, 120_000);

  it('answers every kind of transaction as the node holds it, with prevouts, fees and spenders', async () => {
    const all = [...walk.txs.values()].filter((w) => w.block.height > 0);
    const sample = all.filter((w, i) => w.tx.vin[0]?.coinbase === undefined || i % 40 === 0);
    const seen = { coinbase: 0, pegIn: 0, hogEx: 0, manyInputs: 0, spent: 0 };
    const wrong: unknown[] = [];
    for (const w of sample) {
      const got = comparable((await polite(() => client.getTx(w.tx.txid))) as unknown as Json);
      const want = comparable(expectedTx(walk, w, tip));
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push({ want, got });
      if (w.tx.vin[0]?.coinbase !== undefined) seen.coinbase++;
      if (w.tx.vout.some((v) => v.scriptPubKey.type === 'witness_mweb_pegin')) seen.pegIn++;
      if (w.position === w.block.tx.length - 1 && w.block.height >= 432) seen.hogEx++;
      if (w.tx.vin.length >= 3) seen.manyInputs++;
      if ((want.vout as Json[]).some((o) => o.spent === true)) seen.spent++;
    }
    expect(wrong.slice(0, 2), `${wrong.length} of ${sample.length} transactions differ`).toEqual([]);
    for (const [kind, n] of Object.entries(seen)) expect(n, kind).toBeGreaterThan(0);
    // Outputs without an address: searchable never, an OP_RETURN named as one.
    const opReturn = all.flatMap((w) => w.tx.vout.filter((v) => v.scriptPubKey.type === 'nulldata').map(() => w)).at(0)!;
    const shown = (await polite(() => client.getTx(opReturn.tx.txid))) as unknown as {
      vout: { addresses: string[]; isAddress: boolean }[];
    };
    opReturn.tx.vout.forEach((v, n) => {
      if (v.scriptPubKey.type === 'nulldata') expect(shown.vout[n]!.addresses[0]).toMatch(/^OP_RETURN /);
    });
  }, 300_000);

  it("gives tx-specific as the node's own getrawtransaction", async () => {
    // The client's codec asks every input for a txid, so a coinbase fails it (as against Blockbook itself).
    const sample = [...walk.txs.values()]
      .filter((w) => w.block.height > 0 && w.tx.vin[0]?.coinbase === undefined)
      .filter((_, i) => i % 8 === 0);
    expect(sample.length).toBeGreaterThan(5);
    for (const w of sample) {
      // The client's validation passes, and what it read is the node's answer.
      expect(await polite(() => client.getTxSpecific(w.tx.txid))).toEqual(
        await node.cli<Json>('getrawtransaction', w.tx.txid, true, w.block.hash),
      );
      // Amounts as the node wrote them, eight decimals (never 1e-7).
      const text = await polite(async () => {
        const res = await fetch(`${api.url}/blockbook/LTC/api/v2/tx-specific/${w.tx.txid}`);
        const body = await res.text();
        if (res.status === 429) throw new Error('too many requests');
        return body;
      });
      expect(parseJsonDecimalsAsText(text)).toEqual(await node.cliExact<Json>('getrawtransaction', w.tx.txid, true, w.block.hash));
    }
  }, 120_000);

  it("states each address's figures, its txids newest first, and its UTXOs", async () => {
    const scripts = [...scriptsOf(walk)].filter((_, i) => i % 8 === 0);
    expect(scripts.length).toBeGreaterThan(15);
    for (const [address, e] of scripts) {
      const basic = await polite(() => client.getAddressDetails(address, { details: 'basic' }));
      expect(basic, address).toEqual(expectedFigures(address, e));
      const txids = await polite(() => client.getAddressDetails(address, { details: 'txids' }));
      expect(txids, address).toEqual({
        page: 1,
        totalPages: 1,
        itemsOnPage: 1000,
        ...expectedFigures(address, e),
        ...(e.txs.length > 0 && { txids: newestFirst(e) }),
      });
      const utxos = await polite(() => client.getUtxosForAddress(address));
      const heights = utxos.map((u) => u.height!);
      expect(heights, address).toEqual([...heights].sort((a, b) => b - a));
      const want = [...e.utxos].map(([outpoint, value]) => {
        const [txid, vout] = outpoint.split(':');
        const height = walk.txs.get(txid!)!.block.height;
        const coinbase = walk.txs.get(txid!)!.tx.vin[0]?.coinbase !== undefined && tip - height + 1 < 100;
        return { txid, vout: Number(vout), value: String(value), height, confirmations: tip - height + 1, ...(coinbase && { coinbase }) };
      });
      const byOutpoint = (a: { txid?: string; vout: number }, b: { txid?: string; vout: number }) =>
        `${a.txid}:${a.vout}`.localeCompare(`${b.txid}:${b.vout}`);
      expect([...utxos].sort(byOutpoint), address).toEqual(want.sort(byOutpoint));
    }
    // The node's own scan agrees for a few.
    for (const [address] of scripts.slice(0, 8)) {
      const scan = await node.cliExact<{ unspents: { txid: string; vout: number; amount: string }[] }>('scantxoutset', 'start', [
        `addr(${address})`,
      ]);
      const utxos = await polite(() => client.getUtxosForAddress(address));
      expect(utxos.map((u) => `${u.txid}:${u.vout}:${u.value}`).sort()).toEqual(
        scan.unspents.map((u) => `${u.txid}:${u.vout}:${satsOf(u.amount)}`).sort(),
      );
    }
  }, 300_000);

  it('pages an address by number: every page in turn, past the end, a height window, and full transactions', async () => {
    const [address, e] = [...scriptsOf(walk)].sort((a, b) => b[1].txs.length - a[1].txs.length)[0]!;
    const all = newestFirst(e);
    expect(all.length).toBeGreaterThan(6);
    const pages = Math.ceil(all.length / 3);
    const walked: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const got = await polite(() => client.getAddressDetails(address, { details: 'txids', page, pageSize: 3 }));
      expect({ page: got.page, totalPages: got.totalPages, itemsOnPage: got.itemsOnPage }).toEqual({
        page,
        totalPages: pages,
        itemsOnPage: 3,
      });
      walked.push(...(got.txids ?? []));
    }
    expect(walked).toEqual(all);
    const past = await polite(() => client.getAddressDetails(address, { details: 'txids', page: pages + 5, pageSize: 3 }));
    expect({ page: past.page, txids: past.txids }).toEqual({ page: pages, txids: all.slice((pages - 1) * 3) });

    const heights = [...e.txs].map((w) => w.block.height);
    const [from, to] = [heights[1]!, heights[heights.length - 2]!];
    const inWindow = newestFirst(e).filter((txid) => {
      const h = walk.txs.get(txid)!.block.height;
      return h >= from && h <= to;
    });
    const windowed = await polite(() => client.getAddressDetails(address, { details: 'txids', from, to, pageSize: 1000 }));
    expect(windowed.txids).toEqual(inWindow);
    expect(windowed.totalPages).toBe(1);

    const wantFirst = (light: boolean) => all.slice(0, 5).map((txid) => comparable(expectedTx(walk, walk.txs.get(txid)!, tip, light)));
    const full = (await polite(() => client.getAddressDetails(address, { details: 'txs', pageSize: 5 }))) as unknown as {
      transactions: Json[];
    };
    expect(full.transactions.map(comparable)).toEqual(wantFirst(false));
    // The client has no codec for txslight (Blockbook added it later): read straight.
    const light = await raw(`/api/v2/address/${address}?details=txslight&pageSize=5`);
    expect((light.body.transactions as Json[]).map(comparable)).toEqual(wantFirst(true));
    const bad = await raw('/api/v2/address/not-an-address');
    expect(bad.status).toBe(400);
    expect(String(bad.body.error)).toMatch(/^Invalid address, /);
    const bitcoin = await raw('/api/v2/address/1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2');
    expect(bitcoin.status).toBe(400);
    expect(String(bitcoin.body.error)).toMatch(/^Invalid address, /);
  }, 300_000);

  it('shows blocks by height and by hash, their transactions in block order', async () => {
    for (const h of [1, 2, 431, 432, 433, tip]) {
      const b = walk.blocks[h]!;
      for (const id of [h, b.hash]) {
        const got = (await polite(() => client.getBlock(id))) as unknown as Json;
        const { txs, difficulty, ...fields } = got;
        expect(fields).toEqual({
          page: 1,
          totalPages: 1,
          itemsOnPage: 1000,
          hash: b.hash,
          ...(b.previousblockhash !== undefined && { previousBlockHash: b.previousblockhash }),
          ...(b.nextblockhash !== undefined && { nextBlockHash: b.nextblockhash }),
          height: h,
          confirmations: tip - h + 1,
          size: b.size,
          time: b.time,
          version: b.version,
          merkleRoot: b.merkleroot,
          nonce: String(b.nonce),
          bits: b.bits,
          txCount: b.nTx,
        });
        expect(Number(difficulty)).toBe(Number(b.difficulty));
        expect((txs as Json[]).map(comparable)).toEqual(b.tx.map((tx) => comparable(expectedTx(walk, walk.txs.get(tx.txid)!, tip, true))));
      }
    }
    expect(await raw(`/api/v2/block/${tip + 1}`)).toEqual({ status: 400, body: { error: 'Block not found' } });
    expect(await raw(`/api/v2/block/${'f'.repeat(64)}`)).toEqual({ status: 400, body: { error: 'Block not found' } });
  }, 300_000);

  it("estimates fees as the node does, and refuses bad input in Blockbook's shape", async () => {
    for (const n of [1, 2, 6]) {
      const smart = await node.cliExact<{ feerate?: string }>('estimatesmartfee', n, 'CONSERVATIVE');
      const want = smart.feerate === undefined ? '0' : smart.feerate.replace(/0+$/, '').replace(/\.$/, '');
      expect(await polite(() => client.estimateFee(n))).toBe(want);
    }
    expect(await raw('/api/v2/estimatefee/abc')).toEqual({ status: 400, body: { error: "Parameter 'number of blocks' is not a number" } });
    const zeros = '0'.repeat(64);
    expect(await raw(`/api/v2/tx/${zeros}`)).toEqual({ status: 400, body: { error: `Transaction '${zeros}' not found` } });
    const notTxid = await raw('/api/v2/tx/xyz');
    expect(notTxid.status).toBe(400);
    expect(String(notTxid.body.error)).toMatch(/^Transaction 'xyz' not found/);
    expect((await raw('/api/v2/utxo/x?confirmed=maybe')).status).toBe(400);
    const unknown = await raw('/api/v2/nosuchroute');
    expect(unknown.status).toBe(404);
    expect(typeof unknown.body.error).toBe('string');
  }, 120_000);

  // Last: it changes the chain the suite walked.
  it('relays a transaction through sendtx, seen in the mempool, then confirmed once mined', async () => {
    const to = await node.cli<string>('getnewaddress', '', 'bech32');
    const unsigned = await node.cli<string>('createrawtransaction', [], { [to]: '0.01' });
    const funded = await node.cli<{ hex: string }>('fundrawtransaction', unsigned);
    const signed = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', funded.hex);
    const decoded = await node.cli<{ txid: string; vin: { txid: string; vout: number }[] }>('decoderawtransaction', signed.hex);
    const txid = await polite(() => client.sendTx(signed.hex));
    expect(txid).toBe(decoded.txid);

    const pending = await polite(() => client.getTx(txid));
    expect(pending).toMatchObject({ txid, blockHeight: -1, confirmations: 0 });
    expect(pending).not.toHaveProperty('blockHash');
    // The index learns of the mempool by polling the node (litecoind has no ZMQ): wait, with a deadline.
    await expect
      .poll(async () => {
        const got = await polite(() => client.getAddressDetails(to, { details: 'txids' }));
        return { unconfirmedTxs: got.unconfirmedTxs, unconfirmedBalance: got.unconfirmedBalance, txids: got.txids, txs: got.txs };
      }, DEADLINE)
      .toEqual({ unconfirmedTxs: 1, unconfirmedBalance: '1000000', txids: [txid], txs: 0 });
    expect(await polite(() => client.getUtxosForAddress(to))).toEqual([
      { txid, vout: expect.any(Number), value: '1000000', confirmations: 0 },
    ]);
    expect(await polite(() => client.getUtxosForAddress(to, { confirmed: true } as never))).toEqual([]);

    const bad = await raw('/api/v2/sendtx/', { method: 'POST', body: '00' });
    expect(bad.status).toBe(400);
    expect(String(bad.body.error)).toMatch(/^-22: /);

    const [hash] = await node.cli<string[]>('generatetoaddress', 1, to);
    await lw.world.waitForTip('the relayed transaction mined', 60_000);
    const mined = await polite(() => client.getTx(txid));
    expect(mined).toMatchObject({ txid, blockHash: hash, blockHeight: tip + 1, confirmations: 1 });
    // Its first input's funding output now names it as its spender, at its height.
    const input = decoded.vin[0]!;
    const funding = await polite(() => client.getTx(input.txid));
    expect(funding.vout[input.vout]).toMatchObject({ spent: true, spentTxId: txid, spentHeight: tip + 1 });
  }, 180_000);
});
