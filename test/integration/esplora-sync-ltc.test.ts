/**
 * BDK's and LDK's use of the Esplora dialect, replayed call by call as their sources make them (both are
 * Rust and cannot be installed here), against a real litecoind without -txindex:
 * - every address of the chain: its stats, its transactions paged as BDK pages them, and its UTXOs, each
 *   equal to what the node's walk says Esplora must answer (esplora-oracle.ts);
 * - a BDK wallet's full scan, anonymous on the default tier, retrying a 429 as rust-esplora-client does:
 *   its balance, transactions and their anchors equal to the node's, at first, with a mempool
 *   transaction, after a block, with a coin spent in the mempool, and after a reorg; and its sync of
 *   the coins it held (`/tx/:txid`, `…/outspend/:vout`), each spender as the node has it;
 * - LDK's chain calls (tip hash, header, block status, merkleblock proof, raw transaction, outspend), a
 *   404 for an unknown transaction, and an orphaned block's status after the reorg.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { walkChain, type NodeTx, type Walk } from '../support/chain-walk.js';
import { addressOf, comparable, expectedAddress, expectedOutspend, expectedTx, scriptsOf, type Json } from '../support/esplora-oracle.js';
import { cachedHistoryChain } from '../support/history-chain.js';
import { satsOf } from '../support/history-walk.js';

/** rust-esplora-client's retries: 429, 500 and 503, six times, from 256 ms, doubling. */
const RETRYABLE = new Set([429, 500, 503]);
const RETRIES = 6;
const BASE_BACKOFF_MS = 256;
/** BDK's page size, its examples' parallel requests, and the stop gap this wallet is scanned with. */
const PAGE = 25;
const PARALLEL = 5;
const STOP_GAP = 3;
/** Coins of the wallet's last scan its next sync asks about. */
const SYNCED_COINS = 6;

interface Answer {
  status: number;
  text: string;
  bytes: Buffer;
}

describe("BDK's and LDK's Esplora calls, replayed against a real litecoind", () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let key: string;
  /** Synced coins the node had seen spent: the replay's outspend check met both answers. */
  let spentSynced = 0;

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ litecoind: { from: (await cachedHistoryChain({ seed: 23 })).template } });
    node = lw.node;
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    await lw.world.waitForTip('catch-up with history', 120_000);
    // Keys get a tier without limits for the sweep of every address; callers without one (BDK, LDK)
    // keep the default tier untouched.
    api = await lw.world.startApi('[api.tiers.private]\nrate = 1000000\nburst = 1000000\n', { ADDRSUM_ESPLORA: 'true' });
    key = lw.world.createKey('sweep');
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  /** One request as rust-esplora-client makes it: anonymous unless `withKey`, retried as it retries. */
  async function call(path: string, withKey = false): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${api.url}/esplora/LTC/api${path}`, withKey ? { headers: { 'x-api-key': key } } : {});
      const bytes = Buffer.from(await res.arrayBuffer());
      if (!RETRYABLE.has(res.status) || attempt === RETRIES) return { status: res.status, text: bytes.toString('utf8'), bytes };
      await sleep(BASE_BACKOFF_MS * 2 ** attempt);
    }
  }
  async function json<T = Json>(path: string, withKey = false): Promise<T> {
    const got = await call(path, withKey);
    if (got.status !== 200) throw new Error(`${path}: ${got.status} ${got.text}`);
    return JSON.parse(got.text) as T;
  }

  const scripthash = (scriptHex: string): string => createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest('hex');

  /** BDK's fetch of a script's transactions: …/txs, then …/txs/chain/:last_seen until a page holds fewer than 25. */
  async function scriptTxs(base: string, withKey = false): Promise<Json[]> {
    const all: Json[] = [];
    let page = await json<Json[]>(`${base}/txs`, withKey);
    for (;;) {
      all.push(...page);
      if (page.length < PAGE) return all;
      page = await json<Json[]>(`${base}/txs/chain/${page.at(-1)!.txid as string}`, withKey);
    }
  }

  interface Scan {
    txs: Map<string, Json>;
    /** Height → hash, as BDK's local chain holds it after the scan. */
    chain: Map<number, string>;
  }

  /** BDK's full scan of one keychain: the latest blocks, each script in batches until STOP_GAP unused, then each anchor's block. */
  async function fullScan(scripts: readonly string[]): Promise<Scan> {
    const latest = await json<Json[]>('/blocks');
    const chain = new Map(latest.map((b) => [b.height as number, b.id as string]));
    const txs = new Map<string, Json>();
    let unused = 0;
    for (let i = 0; i < scripts.length && unused < STOP_GAP; i += PARALLEL) {
      const found = await Promise.all(scripts.slice(i, i + PARALLEL).map((s) => scriptTxs(`/scripthash/${scripthash(s)}`)));
      for (const list of found) {
        unused = list.length === 0 ? unused + 1 : 0;
        for (const t of list) txs.set(t.txid as string, t);
      }
    }
    for (const t of txs.values()) {
      const status = t.status as Json;
      const height = status.block_height as number | undefined;
      if (height !== undefined && !chain.has(height)) {
        const hash = await call(`/block-height/${height}`);
        expect(hash.status).toBe(200);
        chain.set(height, hash.text);
      }
    }
    return { txs, chain };
  }

  /** The coins BDK finds in a scan: outputs to its scripts that no transaction of the scan spends, by `txid:vout`. */
  function coinsOf(scan: Scan, scripts: ReadonlySet<string>): Map<string, bigint> {
    const spent = new Set<string>();
    for (const t of scan.txs.values()) for (const i of t.vin as Json[]) spent.add(`${i.txid as string}:${i.vout as number}`);
    const coins = new Map<string, bigint>();
    for (const t of scan.txs.values())
      (t.vout as Json[]).forEach((o, n) => {
        const at = `${t.txid as string}:${n}`;
        if (scripts.has(o.scriptpubkey as string) && !spent.has(at)) coins.set(at, BigInt(o.value as number));
      });
    return coins;
  }

  /** What the node says of the wallet: its transactions with their statuses, and its balance, the mempool's included. */
  async function nodeWallet(scripts: ReadonlySet<string>): Promise<{ statuses: Map<string, Json>; balance: bigint; walk: Walk }> {
    const walk = await walkChain(node);
    const statuses = new Map<string, Json>();
    const unspent = new Map<string, bigint>();
    const scriptOfOut = new Map<string, string>();
    const ordered = [...walk.txs.values()].sort((a, b) => a.block.height - b.block.height || a.position - b.position);
    const apply = (tx: NodeTx, status: Json) => {
      let touches = false;
      for (const i of tx.vin) {
        const key = `${i.txid}:${i.vout}`;
        if (i.txid !== undefined && scripts.has(scriptOfOut.get(key) ?? '')) {
          touches = true;
          unspent.delete(key);
        }
      }
      for (const v of tx.vout) {
        scriptOfOut.set(`${tx.txid}:${v.n}`, v.scriptPubKey.hex);
        if (scripts.has(v.scriptPubKey.hex)) {
          touches = true;
          if (v.scriptPubKey.type !== 'nulldata') unspent.set(`${tx.txid}:${v.n}`, satsOf(v.value));
        }
      }
      if (touches) statuses.set(tx.txid, status);
    };
    for (const w of ordered) if (w.block.height > 0) apply(w.tx, expectedTx(w, walk).status);
    // Mempool transactions in an order where parents come first: by their ancestor counts.
    const pool = await node.cli<Record<string, { ancestorcount: number }>>('getrawmempool', true);
    const txids = Object.keys(pool).sort((a, b) => pool[a]!.ancestorcount - pool[b]!.ancestorcount);
    for (const txid of txids) apply(await node.cliExact<NodeTx>('getrawtransaction', txid, true), { confirmed: false });
    return { statuses, balance: [...unspent.values()].reduce((a, b) => a + b, 0n), walk };
  }

  /**
   * Scans the wallet as BDK does and compares it with the node: transactions, their anchors on BDK's
   * chain, balance; then syncs the coins it held before as BDK's sync does (`/tx/:txid`, then
   * `…/outspend/:vout`), each spender as the node has it. Returns the coins it holds now.
   */
  async function expectWalletEqualsNode(
    scripts: readonly string[],
    phase: string,
    held: readonly string[],
    first?: string,
  ): Promise<string[]> {
    const mine = new Set(scripts);
    const scan = await fullScan(scripts);
    const want = await nodeWallet(mine);
    const got = new Map([...scan.txs].map(([txid, t]) => [txid, t.status as Json]));
    expect(got, phase).toEqual(want.statuses);
    for (const status of got.values())
      if (status.confirmed === true) expect(scan.chain.get(status.block_height as number), phase).toBe(status.block_hash);
    const coins = coinsOf(scan, mine);
    expect(
      [...coins.values()].reduce((a, b) => a + b, 0n),
      phase,
    ).toBe(want.balance);
    for (const at of held) {
      const [txid, vout] = at.split(':') as [string, string];
      expect((await json(`/tx/${txid}`)).status, `${phase}: ${at}`).toEqual(want.statuses.get(txid));
      if (want.walk.spentBy.has(at)) spentSynced++;
      expect(await json(`/tx/${txid}/outspend/${vout}`), `${phase}: ${at}`).toEqual(expectedOutspend(want.walk, at));
    }
    // BDK holds them all; the replay syncs a few (`first`'s coins among them), so the default tier's
    // pace bounds the suite.
    const ranked = (at: string): number => (at.startsWith(`${first}:`) ? 0 : 1);
    return [...coins.keys()].sort((a, b) => ranked(a) - ranked(b) || (a < b ? -1 : 1)).slice(0, SYNCED_COINS);
  }

  /** Waits, with a deadline, until the API's tip and a script's mempool transactions are what the node has. */
  async function waitForApi(script: string, mempoolTxids: readonly string[]): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const tip = await node.cli<string>('getbestblockhash');
      const ours = await call('/blocks/tip/hash', true);
      const pending = await json<Json[]>(`/scripthash/${scripthash(script)}/txs/mempool`, true);
      const same = ours.text === tip && JSON.stringify(pending.map((t) => t.txid).sort()) === JSON.stringify([...mempoolTxids].sort());
      if (same) return;
      if (Date.now() > deadline) throw new Error(`the API did not reach the node's tip ${tip} and mempool within 60 s`);
      await sleep(250);
    }
  }

  it('answers every address of the chain as the node holds it: stats, BDK-paged transactions, UTXOs and their status', async () => {
    const walk: Walk = await walkChain(node);
    const per = scriptsOf(walk);
    expect(per.size).toBeGreaterThan(150);
    const wrong: unknown[] = [];
    const check = async (address: string): Promise<void> => {
      const e = per.get(address)!;
      const stats = await json(`/address/${address}`, true);
      const want = expectedAddress(address, e);
      if (JSON.stringify(stats) !== JSON.stringify(want)) wrong.push({ address, want, got: stats });
      const txs = await scriptTxs(`/address/${address}`, true);
      const order = [...e.txs].reverse();
      if (JSON.stringify(txs.map((t) => t.txid)) !== JSON.stringify(order.map((w) => w.tx.txid)))
        wrong.push({ address, txids: txs.map((t) => t.txid) });
      else
        txs.forEach((t, i) => {
          const expected = expectedTx(order[i]!, walk);
          if (JSON.stringify(comparable(t)) !== JSON.stringify(expected)) wrong.push({ address, want: expected, got: comparable(t) });
        });
      const utxo = await call(`/address/${address}/utxo`, true);
      // electrs's --utxos-limit: 500 confirmed outputs.
      if (e.funded > 500) {
        if (utxo.status !== 400 || utxo.text !== 'Too many history entries') wrong.push({ address, utxo });
        return;
      }
      const listed = JSON.parse(utxo.text) as Json[];
      const got = new Map(listed.map((u) => [`${u.txid as string}:${u.vout as number}`, u.value]));
      if (JSON.stringify([...got].sort()) !== JSON.stringify([...e.utxos].sort())) wrong.push({ address, utxos: [...got] });
      for (const u of listed) {
        const status = expectedTx(walk.txs.get(u.txid as string)!, walk).status;
        if (JSON.stringify(u.status) !== JSON.stringify(status)) wrong.push({ address, utxo: u, status });
      }
    };
    const addresses = [...per.keys()];
    for (let i = 0; i < addresses.length; i += 8) await Promise.all(addresses.slice(i, i + 8).map(check));
    expect(wrong.slice(0, 3), `${wrong.length} differences over ${addresses.length} addresses`).toEqual([]);
  }, 300_000);

  it("keeps a BDK wallet equal to the node's: at first, with a mempool payment, after a block and after a reorg; LDK's calls", async () => {
    const walk = await walkChain(node);
    const per = scriptsOf(walk);
    const scriptOfAddress = new Map<string, string>();
    for (const w of walk.txs.values())
      for (const v of w.tx.vout) {
        const a = addressOf(v);
        if (a !== undefined) scriptOfAddress.set(a, v.scriptPubKey.hex);
      }
    // A wallet of addresses with some history each (a few pages at most), then unused ones past its stop gap.
    const used = [...per.entries()]
      .filter(([, e]) => e.txs.length >= 2 && e.txs.length <= 40)
      .map(([a]) => a)
      .sort()
      .slice(0, 8);
    const fresh: string[] = [];
    for (let i = 0; i < STOP_GAP + 1; i++) fresh.push(await node.cli<string>('getnewaddress', '', 'bech32'));
    const payee = fresh[0]!;
    const scriptsOfAll = async (addresses: string[]) =>
      Promise.all(
        addresses.map(async (a) => scriptOfAddress.get(a) ?? (await node.cli<{ scriptPubKey: string }>('getaddressinfo', a)).scriptPubKey),
      );
    const scripts = await scriptsOfAll([...used, ...fresh]);
    expect(used.length).toBe(8);

    let held = await expectWalletEqualsNode(scripts, 'at first', []);

    // A payment to the first unused address, which BDK finds before its stop gap, while in the mempool.
    const paid = await node.cli<string>('sendtoaddress', payee, '0.25');
    await waitForApi(scripts[used.length]!, [paid]);
    held = await expectWalletEqualsNode(scripts, 'with a mempool payment', held);

    // Mined.
    const [mined] = await node.cli<string[]>('generatetoaddress', 1, await node.cli<string>('getnewaddress'));
    await lw.world.waitForTip('the payment mined', 60_000);
    await waitForApi(scripts[used.length]!, []);
    held = await expectWalletEqualsNode(scripts, 'after a block', held, paid);
    await expectLdkCalls(paid, mined!);

    // The payment's coin spent to an address outside the wallet, in the mempool: BDK's sync of the
    // coin it holds finds the spender.
    const payTx = await node.cli<{ vout: { n: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', paid, true, mined);
    const coin = payTx.vout.find((v) => v.scriptPubKey.hex === scripts[used.length])!;
    const elsewhere = await node.cli<string>('getnewaddress', '', 'bech32');
    const unsigned = await node.cli<string>('createrawtransaction', [{ txid: paid, vout: coin.n }], { [elsewhere]: '0.2499' });
    const spend = await node.cli<string>(
      'sendrawtransaction',
      (await node.cli<{ hex: string }>('signrawtransactionwithwallet', unsigned)).hex,
    );
    await waitForApi(scripts[used.length]!, [spend]);
    held = await expectWalletEqualsNode(scripts, 'with the payment spent in the mempool', held);
    expect(spentSynced).toBeGreaterThan(0);

    // A reorg: the payment's block is replaced by a branch of two, which mines the payment and its spend again.
    await node.cli('invalidateblock', mined);
    const branch = await node.cli<string[]>('generatetoaddress', 2, await node.cli<string>('getnewaddress'));
    await lw.world.waitForTip('the reorg', 60_000);
    await waitForApi(scripts[used.length]!, []);
    await expectWalletEqualsNode(scripts, 'after a reorg', held);
    const status = await json(`/tx/${paid}/status`);
    expect(status).toMatchObject({ confirmed: true, block_hash: branch[0] });
    expect(await json(`/block/${mined}/status`)).toEqual({ in_best_chain: false, height: null, next_best: null });
    await expectLdkCalls(paid, branch[0]!);
  }, 300_000);

  /**
   * LDK's chain source calls for a watched transaction, as lightning-transaction-sync makes them: the
   * tip and its header and status, the transaction's status, merkle block and raw form, an output's
   * spender, and a 404 for a transaction nobody has.
   */
  async function expectLdkCalls(txid: string, blockHash: string): Promise<void> {
    const tip = await call('/blocks/tip/hash');
    expect(tip.text).toBe(await node.cli<string>('getbestblockhash'));
    expect((await call(`/block/${tip.text}/header`)).text).toBe(await node.cli<string>('getblockheader', tip.text, false));
    const tipHeight = await node.cli<number>('getblockcount');
    expect(await json(`/block/${tip.text}/status`)).toEqual({ in_best_chain: true, height: tipHeight, next_best: null });
    const block = await node.cli<{ height: number; time: number; nextblockhash?: string }>('getblock', blockHash);
    expect(await json(`/tx/${txid}/status`)).toEqual({
      confirmed: true,
      block_height: block.height,
      block_hash: blockHash,
      block_time: block.time,
    });
    expect(await json(`/block/${blockHash}/status`)).toEqual({
      in_best_chain: true,
      height: block.height,
      next_best: block.nextblockhash ?? null,
    });
    expect((await call(`/tx/${txid}/merkleblock-proof`)).text).toBe(await node.cli<string>('gettxoutproof', [txid], blockHash));
    const rawTx = await call(`/tx/${txid}/raw`);
    expect(rawTx.status).toBe(200);
    expect(rawTx.bytes.toString('hex')).toBe(await node.cli<string>('getrawtransaction', txid, false, blockHash));
    const decoded = await node.cli<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', txid, true, blockHash);
    const spent = decoded.vin[0]!;
    const outspend = await json(`/tx/${spent.txid}/outspend/${spent.vout}`);
    expect(outspend).toMatchObject({ spent: true, txid, vin: 0, status: { confirmed: true, block_hash: blockHash } });
    const absent = 'cd'.repeat(32);
    const missing = await call(`/tx/${absent}/raw`);
    expect({ status: missing.status, text: missing.text }).toEqual({ status: 404, text: 'Transaction not found' });
    expect(await json(`/tx/${absent}/status`)).toEqual({ confirmed: false });
  }
});
