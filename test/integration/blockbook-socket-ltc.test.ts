/**
 * The Blockbook dialect's WebSocket API judged by Trezor Suite's own connection library,
 * `@trezor/blockchain-link` with its Blockbook worker, against a real litecoind without -txindex, on
 * the default settings (ADDRSUM_BLOCKBOOK on, nothing else changed; the link sends no key, so it is
 * served at the anonymous default tier and waits out a refusal for pace as a polite client does).
 * Every figure is compared with the node's own account of its chain (chain-walk.ts): server info,
 * accounts at each details level, UTXOs (and scantxoutset), transactions, fees, balance history;
 * Blockbook's own answer shapes straight off the socket; its error shape for bad input and for methods
 * not served, the socket staying open; then the subscriptions, a block's notification after a block is
 * mined and an address's after a transaction paying it reaches the mempool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { walkChain, type Walk, type Walked } from '../support/chain-walk.js';
import { comparable, expectedFigures, expectedTx, newestFirst, type Json } from '../support/blockbook-oracle.js';
import { addressOf, scriptsOf, type AddressExpected } from '../support/esplora-oracle.js';
import { satsOf } from '../support/history-walk.js';
import { cachedHistoryChain } from '../support/history-chain.js';
import { limitedByText, politely } from '../support/polite.js';

const DEADLINE = { timeout: 60_000, interval: 250 };

interface Link {
  getInfo(): Promise<Json>;
  getAccountInfo(p: Json): Promise<Json>;
  getAccountUtxo(descriptor: string): Promise<Json[]>;
  getTransaction(txid: string): Promise<Json>;
  estimateFee(p: Json): Promise<Json[]>;
  getAccountBalanceHistory(p: Json): Promise<Json[]>;
  subscribe(p: Json): Promise<Json>;
  on(event: string, cb: (payload: Json) => void): void;
  disconnect(): Promise<void>;
  dispose(): void;
}

/** The CommonJS default export, however the loader hands it over. */
async function defaultOf<T>(specifier: string): Promise<T> {
  const m = (await import(specifier)) as { default: T | { default: T } };
  return (typeof m.default === 'function' ? m.default : (m.default as { default: T }).default) as T;
}

/** One Blockbook request straight off a socket of our own: the `data` of the answer with its id. */
class RawSocket {
  private next = 1;
  private constructor(private readonly ws: WebSocket) {}

  static open(url: string): Promise<RawSocket> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawSocket(ws)));
      ws.once('error', reject);
    });
  }

  request(method: string, params?: unknown): Promise<Json> {
    const id = String(this.next++);
    return new Promise((resolve, reject) => {
      const onClose = (): void => reject(new Error(`the socket closed before ${method} was answered`));
      const onMessage = (data: WebSocket.RawData): void => {
        const msg = JSON.parse(String(data)) as { id: string; data: Json };
        if (msg.id !== id) return;
        this.ws.off('message', onMessage);
        this.ws.off('close', onClose);
        // A refusal for pace is thrown, for polite() to wait out; any other answer is the caller's to judge.
        const message = (msg.data.error as { message?: string } | undefined)?.message;
        if (message?.startsWith('too many requests')) reject(new Error(message));
        else resolve(msg.data);
      };
      this.ws.on('message', onMessage);
      this.ws.once('close', onClose);
      this.ws.send(JSON.stringify({ id, method, ...(params !== undefined && { params }) }));
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.ws.close();
  }
}

/** What the address received and spent in `w`, as the node's walk says. */
function partsOf(walk: Walk, w: Walked, address: string): { received: bigint; sent: bigint } {
  let received = 0n;
  let sent = 0n;
  for (const v of w.tx.vout) if (v.scriptPubKey.type !== 'nulldata' && addressOf(v) === address) received += satsOf(v.value);
  for (const i of w.tx.vin) {
    if (i.coinbase !== undefined) continue;
    const prev = walk.txs.get(i.txid!)!.tx.vout[i.vout!]!;
    if (addressOf(prev) === address) sent += satsOf(prev.value);
  }
  return { received, sent };
}

/** Blockbook's balance history of an address from the walk: per window of `groupBy` seconds, oldest first. */
function expectedHistory(walk: Walk, address: string, e: AddressExpected, groupBy: number): Json[] {
  const windows = new Map<number, { txs: number; received: bigint; sent: bigint; sentToSelf: bigint }>();
  for (const w of e.txs) {
    const time = w.block.time - (w.block.time % groupBy);
    const at = windows.get(time) ?? { txs: 0, received: 0n, sent: 0n, sentToSelf: 0n };
    const { received, sent } = partsOf(walk, w, address);
    windows.set(time, {
      txs: at.txs + 1,
      received: at.received + received,
      sent: at.sent + sent,
      sentToSelf: at.sentToSelf + (sent > 0n ? received : 0n),
    });
  }
  return [...windows.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([time, w]) => ({ time, txs: w.txs, received: String(w.received), sent: String(w.sent), sentToSelf: String(w.sentToSelf) }));
}

describe("the Blockbook WebSocket API, judged by Trezor Suite's blockchain-link, against a real litecoind", () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let link: Link;
  let walk: Walk;
  let tip: number;
  let socketUrl: string;
  const polite = politely(limitedByText, 120_000);

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ litecoind: { from: (await cachedHistoryChain({ seed: 23 })).template } });
    node = lw.node;
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    await lw.world.waitForTip('catch-up with history', 120_000);
    api = await lw.world.startApi('', { ADDRSUM_BLOCKBOOK: 'true' });
    socketUrl = `${api.url.replace(/^http/, 'ws')}/blockbook/LTC/websocket`;
    const BlockchainLink = await defaultOf<new (settings: Json) => Link>('@trezor/blockchain-link');
    const worker = await defaultOf<() => unknown>('@trezor/blockchain-link/lib/workers/blockbook');
    // The base URL, as Suite is given a backend: the worker adds /websocket itself.
    link = new BlockchainLink({ name: 'addrsum-ltc', worker, server: [`${api.url}/blockbook/LTC`], debug: false, timeout: 60_000 });
    walk = await walkChain(node);
    tip = walk.blocks.length - 1;
  }, 300_000);

  afterAll(async () => {
    await link?.disconnect().catch(() => undefined);
    link?.dispose();
    await lw?.close();
  });

  it("states the coin and the node's tip", async () => {
    const info = await polite(() => link.getInfo());
    expect(info).toMatchObject({
      url: `${api.url}/blockbook/LTC`,
      shortcut: 'tLTC',
      testnet: true,
      decimals: 8,
      blockHeight: tip,
      blockHash: walk.blocks[tip]!.hash,
    });
    const raw = await RawSocket.open(socketUrl);
    const network = await node.cli<{ version: number; subversion: string }>('getnetworkinfo');
    expect(await polite(() => raw.request('getInfo', {}))).toMatchObject({
      bestHeight: tip,
      bestHash: walk.blocks[tip]!.hash,
      block0Hash: walk.blocks[0]!.hash,
      backend: { version: String(network.version), subversion: network.subversion },
    });
    for (const h of [0, 1, 432, tip])
      expect(await polite(() => raw.request('getBlockHash', { height: h }))).toEqual({ hash: walk.blocks[h]!.hash });
    raw.close();
  }, 120_000);

  it('gives accounts of addresses at each details level, their UTXOs and their balance history', async () => {
    const scripts = [...scriptsOf(walk)].filter((_, i) => i % 12 === 0);
    expect(scripts.length).toBeGreaterThan(10);
    for (const [address, e] of scripts) {
      const figures = expectedFigures(address, e);
      const basic = await polite(() => link.getAccountInfo({ descriptor: address, details: 'basic' }));
      expect(basic, address).toMatchObject({
        descriptor: address,
        balance: figures.balance,
        availableBalance: figures.balance,
        empty: e.txs.length === 0,
        history: { total: e.txs.length, unconfirmed: 0 },
      });
      expect(basic.page).toBeUndefined();
      const txs = await polite(() => link.getAccountInfo({ descriptor: address, details: 'txs', pageSize: 5 }));
      const history = txs.history as { transactions: Json[] };
      expect(txs.page, address).toEqual({ index: 1, size: 5, total: Math.ceil(e.txs.length / 5) });
      expect(
        history.transactions.map((t) => t.txid),
        address,
      ).toEqual(newestFirst(e).slice(0, 5));
      for (const t of history.transactions) {
        const w = walk.txs.get(String(t.txid))!;
        expect({ blockHeight: t.blockHeight, blockHash: t.blockHash }).toEqual({ blockHeight: w.block.height, blockHash: w.block.hash });
      }

      const utxos = await polite(() => link.getAccountUtxo(address));
      const want = [...e.utxos].map(([outpoint, value]) => {
        const [txid, vout] = outpoint.split(':');
        const height = walk.txs.get(txid!)!.block.height;
        return { txid, vout: Number(vout), amount: String(value), blockHeight: height, confirmations: tip - height + 1 };
      });
      const byOutpoint = (a: Json, b: Json) => `${String(a.txid)}:${String(a.vout)}`.localeCompare(`${String(b.txid)}:${String(b.vout)}`);
      expect(
        utxos
          .map(({ txid, vout, amount, blockHeight, confirmations }) => ({ txid, vout, amount, blockHeight, confirmations }))
          .sort(byOutpoint),
        address,
      ).toEqual(want.sort(byOutpoint));

      const history1h = await polite(() => link.getAccountBalanceHistory({ descriptor: address }));
      expect(history1h, address).toEqual(expectedHistory(walk, address, e, 3600));
    }
    // The node's own scan agrees for a few.
    for (const [address] of scripts.slice(0, 5)) {
      const scan = await node.cliExact<{ unspents: { txid: string; vout: number; amount: string }[] }>('scantxoutset', 'start', [
        `addr(${address})`,
      ]);
      const utxos = await polite(() => link.getAccountUtxo(address));
      expect(utxos.map((u) => `${String(u.txid)}:${String(u.vout)}:${String(u.amount)}`).sort()).toEqual(
        scan.unspents.map((u) => `${u.txid}:${u.vout}:${satsOf(u.amount)}`).sort(),
      );
    }
    // Windows of a day, and a time range that leaves out the first transactions.
    const [address, e] = [...scriptsOf(walk)].sort((a, b) => b[1].txs.length - a[1].txs.length)[0]!;
    expect(await polite(() => link.getAccountBalanceHistory({ descriptor: address, groupBy: 86_400 }))).toEqual(
      expectedHistory(walk, address, e, 86_400),
    );
    const from = e.txs[2]!.block.time;
    const later = { ...e, txs: e.txs.filter((w) => w.block.time >= from) };
    expect(await polite(() => link.getAccountBalanceHistory({ descriptor: address, from, groupBy: 1 }))).toEqual(
      expectedHistory(walk, address, later, 1),
    );
  }, 300_000);

  it("answers transactions in Blockbook's shape, as the node holds them", async () => {
    const raw = await RawSocket.open(socketUrl);
    const sample = [...walk.txs.values()]
      .filter((w) => w.block.height > 0 && w.tx.vin[0]?.coinbase === undefined)
      .filter((_, i) => i % 6 === 0);
    expect(sample.length).toBeGreaterThan(5);
    for (const w of sample) {
      const got = await polite(() => raw.request('getTransaction', { txid: w.tx.txid }));
      expect(comparable(got)).toEqual(comparable(expectedTx(walk, w, tip)));
      const viaLink = await polite(() => link.getTransaction(w.tx.txid));
      expect(viaLink).toMatchObject({ txid: w.tx.txid, blockHeight: w.block.height, blockHash: w.block.hash, fee: got.fees });
      expect(await polite(() => raw.request('getTransactionSpecific', { txid: w.tx.txid }))).toEqual(
        await node.cli<Json>('getrawtransaction', w.tx.txid, true, w.block.hash),
      );
    }
    raw.close();
  }, 300_000);

  it('estimates fees in satoshis per kB as the node does', async () => {
    const fees = await polite(() => link.estimateFee({ blocks: [1, 2, 6], specific: { txsize: 250 } }));
    const want = [];
    for (const n of [1, 2, 6]) {
      const smart = await node.cliExact<{ feerate?: string }>('estimatesmartfee', n, 'CONSERVATIVE');
      const perKb = smart.feerate === undefined ? 0n : satsOf(smart.feerate);
      want.push({ feePerTx: String((perKb * 250n + 500n) / 1000n), feePerUnit: String(perKb) });
    }
    expect(fees).toEqual(want);
  }, 120_000);

  it("refuses bad input and methods it does not serve in Blockbook's error shape, and stays open", async () => {
    const raw = await RawSocket.open(socketUrl);
    const errorOf = async (method: string, params?: unknown): Promise<string> => {
      const data = await polite(() => raw.request(method, params));
      expect(Object.keys(data), method).toEqual(['error']);
      return String((data.error as { message: string }).message);
    };
    expect(await errorOf('getAccountInfo', { descriptor: 'not-an-address' })).toMatch(/^Invalid address, /);
    expect(await errorOf('getTransaction', { txid: '0'.repeat(64) })).toBe(`Transaction '${'0'.repeat(64)}' not found`);
    expect(await errorOf('getBlockHash', { height: 'one' })).toMatch(
      /^json: cannot unmarshal string into Go struct field WsBlockHashReq.height/,
    );
    expect(await errorOf('getBlockHash', { height: tip + 1 })).toBe('Block not found');
    expect(await errorOf('getCurrentFiatRates', { currencies: ['usd'] })).toMatch(/^getCurrentFiatRates is not served/);
    expect(await errorOf('noSuchMethod')).toMatch(/^unknown method/);
    expect(await errorOf('estimateFee', { blocks: Array.from({ length: 40 }, (_, i) => i + 1) })).toBe('blocks max 32');
    expect(await errorOf('sendTransaction', { hex: '00' })).toMatch(/does not relay transactions/);
    expect(await errorOf('subscribeAddresses', { addresses: ['nope'] })).toMatch(/^Invalid address "nope", /);
    expect(raw.open).toBe(true);
    expect(await polite(() => raw.request('ping', {}))).toEqual({});
    raw.close();
  }, 120_000);

  // Last: they change the chain the suite walked.
  it('notifies a subscribed block when one is mined, and a subscribed address when a transaction pays it', async () => {
    const blocks: Json[] = [];
    const notes: Json[] = [];
    link.on('block', (b) => blocks.push(b));
    link.on('notification', (n) => notes.push(n));
    // With the client network's bucket empty, a block subscription is still made: the link records it
    // before it is answered, and would never ask again.
    const drain = await RawSocket.open(socketUrl);
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++)
      refused = await drain.request('getBlockHash', { height: 1 }).then(
        () => false,
        () => true,
      );
    drain.close();
    expect(refused).toBe(true);
    expect(await link.subscribe({ type: 'block' })).toEqual({ subscribed: true });
    const to = await node.cli<string>('getnewaddress', '', 'bech32');
    expect(await polite(() => link.subscribe({ type: 'addresses', addresses: [to] }))).toEqual({ subscribed: true });

    const [hash] = await node.cli<string[]>('generatetoaddress', 1, await node.cli<string>('getnewaddress'));
    await expect.poll(() => blocks, DEADLINE).toContainEqual({ blockHeight: tip + 1, blockHash: hash });

    const txid = await node.cli<string>('sendtoaddress', to, '0.25');
    await expect.poll(() => notes.length, DEADLINE).toBeGreaterThan(0);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ descriptor: to, tx: { txid, type: 'recv', amount: '25000000', blockHeight: -1 } });
    const account = await polite(() => link.getAccountInfo({ descriptor: to, details: 'txids' }));
    expect(account).toMatchObject({ availableBalance: '25000000', history: { total: 0, unconfirmed: 1 } });
  }, 180_000);
});
