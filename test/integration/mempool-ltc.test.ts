/**
 * The mempool view (`?mempool=true`, POST …/addresses) of the real indexer and API against a real
 * `litecoind -regtest` (no ZMQ: the getrawmempool timer is the only source). The node is the oracle:
 * for every address, confirmed + unconfirmed Δ from the API equals what `scantxoutset` reports once the
 * whole mempool is mined; then every Δ is 0. The mempool holds payments to every address kind, a chain
 * of unconfirmed spends, a replaced double spend (and its child), MWEB peg-ins, an MWEB-only
 * transaction, a peg-out, and a transaction evicted by expiry; a 2-block reorg returns transactions.
 * Each held transaction's fee and whether it spends a mempool output equal `getmempoolentry`'s.
 */
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { ApiProcess } from '../../harness/api-process.js';
import { indexedTip } from '../../harness/index-check.js';
import { waitFor, type IndexerProcess } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { sendMwebToMweb, type ChainManifest } from '../../harness/regtest-chain.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { parseTransaction } from '../../src/chain/tx-parser.js';
import { mempoolEntry } from '../support/mempool-oracle.js';
import { coins, lockOutpoints, pegOut, signAndSend, walletUtxos } from '../../harness/regtest-wallet.js';

const params = chainParams('LTC', 'regtest');
const HOUR = 3600;

interface Entry {
  status: string;
  data: {
    address: string;
    balanceSatoshi: number;
    utxoCount: number;
    unconfirmed?: { balanceSatoshi: number; balance: number; utxoCount: number; txCount: number };
    blockHeight: number;
  };
}

describe('mempool view against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let dbPath: string;
  let indexer: IndexerProcess | undefined;
  let api: ApiProcess | undefined;
  let apiKey: string;
  /** Every address the oracle checks: the manifest's and every one a mempool transaction touched. */
  const tracked = new Set<string>();
  let miner: string;

  beforeAll(async () => {
    // Litecoin Core keeps BIP125 replacement off unless asked (-mempoolreplacement, default 0).
    const chain = await cachedVariedChain({ seed: 23, perKind: 24 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({ litecoind: { from: chain.template, extraArgs: ['-mempoolreplacement=1'] } });
    node = lw.node;
    for (const a of manifest.addresses) tracked.add(a.address);
    miner = await node.cli<string>('getnewaddress', '', 'bech32');
    dbPath = lw.world.dbPath;
    apiKey = lw.world.createKey('mempool');
    indexer = await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 120_000);
    api = await lw.world.startApi('[api]\nbatchMaxAddresses = 1000\n[api.tiers.private]\nrate = 100000\nburst = 100000\n');
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  /** The txids the index holds as its mempool, straight from the file (read-only). */
  function indexedMempool(): Set<string> {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT txid FROM mempool_txs').pluck().all() as Buffer[];
      return new Set(rows.map((t) => Buffer.from(t).reverse().toString('hex')));
    } finally {
      db.close();
    }
  }

  /**
   * Each mempool transaction's stored fee and held parents equal the node's `getmempoolentry` (fees.base as
   * exact text, depends non-empty); one with an MWEB part has no fee, and its parents are not checked: the
   * index sees only its transparent inputs. Returns how many had an MWEB part, and how many spend unconfirmed.
   */
  async function expectMempoolFacts(phase: string): Promise<{ mweb: number; spendsUnconfirmed: number }> {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    let rows: { txid: Buffer; fee: bigint | null; unconfirmed_inputs: bigint }[];
    try {
      rows = db.prepare('SELECT txid, fee, unconfirmed_inputs FROM mempool_txs').safeIntegers(true).all() as typeof rows;
    } finally {
      db.close();
    }
    const stored = new Map(rows.map((r) => [Buffer.from(r.txid).reverse().toString('hex'), r]));
    const seen = { mweb: 0, spendsUnconfirmed: 0 };
    for (const txid of await node.cli<string[]>('getrawmempool')) {
      const row = stored.get(txid);
      expect(row, `${phase}: ${txid} held`).toBeDefined();
      const got = { txid, fee: row!.fee, spendsUnconfirmed: row!.unconfirmed_inputs > 0n };
      const entry = await mempoolEntry(node.cliExact, txid);
      if (parseTransaction(Buffer.from(await node.cli<string>('getrawtransaction', txid), 'hex')).mweb) {
        seen.mweb++;
        expect(got.fee, `${phase}: ${txid} (MWEB)`).toBeNull();
        continue;
      }
      if (entry.spendsUnconfirmed) seen.spendsUnconfirmed++;
      expect(got, phase).toEqual({ txid, ...entry });
    }
    return seen;
  }

  async function synced(): Promise<boolean> {
    if (indexedTip(dbPath)?.hash !== (await node.cli<string>('getbestblockhash'))) return false;
    const nodeTxids = await node.cli<string[]>('getrawmempool');
    const ours = indexedMempool();
    return ours.size === nodeTxids.length && nodeTxids.every((t) => ours.has(t));
  }

  const waitSynced = (what: string) => waitFor(`the index's mempool to equal the node's (${what})`, synced, 60_000, indexer);

  /** Adds every address a mempool transaction pays or spends from to the tracked set. */
  async function trackMempoolAddresses(): Promise<void> {
    const txids = await node.cli<string[]>('getrawmempool');
    const inPool = new Set(txids);
    const add = (spk: { address?: string; addresses?: string[] } | undefined): void => {
      for (const a of [spk?.address, ...(spk?.addresses ?? [])]) if (a !== undefined && addressToScript(params, a).ok) tracked.add(a);
    };
    for (const txid of txids) {
      const tx = await node.cli<{
        vin: { txid?: string; vout?: number }[];
        vout: { scriptPubKey: { address?: string; addresses?: string[] } }[];
      }>('getrawtransaction', txid, true);
      for (const o of tx.vout) add(o.scriptPubKey);
      for (const i of tx.vin) {
        if (i.txid === undefined || i.vout === undefined || inPool.has(i.txid)) continue;
        const coin = await node.cli<{ scriptPubKey: { address?: string; addresses?: string[] } } | null>('gettxout', i.txid, i.vout, false);
        add(coin?.scriptPubKey);
      }
    }
  }

  async function batch(addresses: readonly string[], mempool: boolean): Promise<{ blockHeight: number; results: Entry[] }> {
    const res = await fetch(`${api!.url}/api/v1/LTC/addresses${mempool ? '?mempool=true' : ''}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ addresses }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { blockHeight: number; results: Entry[] } };
    return body.data;
  }

  async function single(address: string): Promise<Entry> {
    const res = await fetch(`${api!.url}/api/v1/LTC/address/${address}?mempool=true`, { headers: { 'x-api-key': apiKey } });
    expect(res.status).toBe(200);
    return (await res.json()) as Entry;
  }

  /**
   * The oracle: with the index's mempool equal to the node's, read confirmed + Δ for every tracked
   * address, mine the whole mempool, and compare with scantxoutset; then every Δ must be 0.
   * `pegOutTo`: recipients of mempool peg-outs, which Δ does not show (they are paid by the HogEx).
   */
  async function expectViewEqualsMinedMempool(phase: string, pegOutTo: ReadonlyMap<string, number> = new Map()): Promise<void> {
    await trackMempoolAddresses();
    await waitSynced(phase);
    const addresses = [...tracked];
    const before = await batch(addresses, true);
    expect(new Set(before.results.map((r) => r.data.blockHeight)), phase).toEqual(new Set([before.blockHeight]));
    // The single route says the same as the batch entry.
    for (const i of [0, Math.floor(addresses.length / 2), addresses.length - 1])
      expect(await single(addresses[i]!), phase).toEqual(before.results[i]);
    const pending = await node.cli<string[]>('getrawmempool');
    expect(pending.length, `${phase}: a mempool to check`).toBeGreaterThan(0);
    const touched = before.results.filter((r) => r.data.unconfirmed!.txCount > 0).length;
    expect(touched, `${phase}: addresses with mempool activity`).toBeGreaterThan(5);
    expect(
      before.results.some((r) => r.data.unconfirmed!.balanceSatoshi < 0),
      `${phase}: some negative Δ`,
    ).toBe(true);

    await node.cli('generatetoaddress', 1, miner);
    expect(await node.cli<string[]>('getrawmempool'), `${phase}: the block mined the whole mempool`).toEqual([]);
    await waitSynced(`${phase}, mined`);
    const scan = await scanAddresses(node, addresses);
    const wrong: string[] = [];
    addresses.forEach((a, i) => {
      const d = before.results[i]!.data;
      const want = scan.get(a)!;
      const pegged = pegOutTo.get(a) ?? 0;
      if (pegged > 0 && d.unconfirmed!.balanceSatoshi !== 0)
        wrong.push(`${a}: a peg-out recipient shows Δ ${d.unconfirmed!.balanceSatoshi}`);
      const got = {
        sats: d.balanceSatoshi + d.unconfirmed!.balanceSatoshi + pegged,
        utxos: d.utxoCount + d.unconfirmed!.utxoCount + (pegged > 0 ? 1 : 0),
      };
      if (got.sats !== want.sats || got.utxos !== want.utxos)
        wrong.push(`${a}: confirmed + Δ = ${got.sats} / ${got.utxos}, mined ${want.sats} / ${want.utxos}`);
    });
    expect(wrong, phase).toEqual([]);
    const after = await batch(addresses, true);
    const nonZero = after.results.filter(
      (r) => r.data.unconfirmed!.balanceSatoshi !== 0 || r.data.unconfirmed!.utxoCount !== 0 || r.data.unconfirmed!.txCount !== 0,
    );
    expect(
      nonZero.map((r) => r.data.address),
      `${phase}: Δ after mining`,
    ).toEqual([]);
    addresses.forEach((a, i) => {
      const d = after.results[i]!.data;
      expect({ a, sats: d.balanceSatoshi, utxos: d.utxoCount }, phase).toEqual({ a, ...scan.get(a)! });
    });
  }

  /** A raw spend of chosen outpoints, optionally BIP125-replaceable, to one address. */
  async function spend(inputs: { txid: string; vout: number }[], to: string, sats: number, replaceable = false): Promise<string> {
    const unsigned = await node.cli<string>('createrawtransaction', inputs, [{ [to]: coins(sats) }], 0, replaceable);
    return signAndSend(node, unsigned);
  }

  /** A confirmed wallet UTXO of the manifest of this kind (not locked, big enough). */
  async function coinOf(kind: string, min = 2_000_000): Promise<{ txid: string; vout: number; sats: number; address: string }> {
    const kindOf = new Map(manifest.addresses.map((a) => [a.address, a.kind]));
    const utxo = (await walletUtxos(node)).find((u) => u.address !== null && kindOf.get(u.address) === kind && u.sats >= min);
    if (!utxo) throw new Error(`no confirmed ${kind} wallet coin of at least ${min} sat`);
    await lockOutpoints(node, [utxo]);
    return { txid: utxo.txid, vout: utxo.vout, sats: utxo.sats, address: utxo.address! };
  }

  it('equals the mined mempool: every kind, chains, a replacement, peg-ins, MWEB-only, a peg-out and an expiry', async () => {
    const byKind = (kind: string) => manifest.addresses.filter((a) => a.kind === kind);
    const now = Math.floor(Date.now() / 1000);

    // Evicted by expiry: the oldest transaction in the mempool, paying a taproot key the wallet does not hold.
    const victimCoin = await coinOf('p2wpkh');
    const victimTo = byKind('p2tr')[0]!.address;
    const victim = await spend([victimCoin], victimTo, victimCoin.sats - 100_000);
    await node.cli('setmocktime', now + 300 * HOUR);

    // Payments to every address kind, in one transaction and one by one.
    const kinds = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2sh-multisig', 'p2tr'];
    await node.cli('sendmany', '', Object.fromEntries(kinds.map((k, i) => [byKind(k)[1]!.address, coins(1_000_000 + i)])));
    for (const k of kinds) await node.cli('sendtoaddress', byKind(k)[2]!.address, coins(700_000));

    // A chain of unconfirmed spends across kinds: p2pkh coin → p2wsh → p2sh-multisig → p2sh-p2wpkh.
    const c0 = await coinOf('p2pkh');
    const t1 = await spend([c0], byKind('p2wsh')[3]!.address, c0.sats - 100_000);
    const t2 = await spend([{ txid: t1, vout: 0 }], byKind('p2sh-multisig')[3]!.address, c0.sats - 200_000);
    await spend([{ txid: t2, vout: 0 }], byKind('p2sh-p2wpkh')[3]!.address, c0.sats - 300_000);

    // A double spend: A (replaceable) and its child, then B spending A's input with a higher fee.
    const u = await coinOf('p2sh-p2wpkh');
    const a = await spend([u], byKind('p2wpkh')[4]!.address, u.sats - 100_000, true);
    const child = await spend([{ txid: a, vout: 0 }], byKind('p2pkh')[4]!.address, u.sats - 200_000);
    const b = await spend([u], byKind('p2wsh')[4]!.address, u.sats - 1_000_000, true);
    const pool = new Set(await node.cli<string[]>('getrawmempool'));
    expect([pool.has(a), pool.has(child), pool.has(b)]).toEqual([false, false, true]);

    // MWEB: a peg-in (transparent coins in, negative Δ), an MWEB-only transaction, and a peg-out.
    const mwebTo = await node.cli<string>('getnewaddress', '', 'mweb');
    await node.cli('sendtoaddress', mwebTo, coins(150_000_000));
    await sendMwebToMweb(node, 5_000_000);
    const pegOutTo = await node.cli<string>('getnewaddress', '', 'bech32');
    await pegOut(node, [{ address: pegOutTo, sats: 3_000_000 }]);
    tracked.add(pegOutTo);

    // Expiry: 340 h after the victim entered, the next acceptance expires it (Core's -mempoolexpiry, 336 h).
    await node.cli('setmocktime', now + 340 * HOUR);
    await node.cli('sendtoaddress', byKind('p2wpkh')[5]!.address, coins(400_000));
    expect((await node.cli<string[]>('getrawmempool')).includes(victim), 'the victim expired').toBe(false);
    // The wallet learns of the removal through the validation queue; then abandoning it keeps the
    // wallet from offering it to the mempool again.
    await node.cli('syncwithvalidationinterfacequeue');
    await node.cli('abandontransaction', victim);
    expect((await node.cli<string[]>('getrawmempool')).includes(victim), 'the victim stays out').toBe(false);
    tracked.add(victimTo);
    await waitSynced('after expiry');
    const victimView = (await batch([victimTo, victimCoin.address], true)).results;
    expect(victimView.map((r) => r.data.unconfirmed!.txCount)).toEqual([0, 0]);

    await trackMempoolAddresses();
    await waitSynced('fees');
    const facts = await expectMempoolFacts('mempool of every kind');
    // The peg-ins, the MWEB-only transaction and the peg-out; the chain's two children.
    expect(facts.mweb).toBeGreaterThanOrEqual(3);
    expect(facts.spendsUnconfirmed).toBeGreaterThanOrEqual(2);
    await expectViewEqualsMinedMempool('mempool of every kind', new Map([[pegOutTo, 3_000_000]]));
  }, 300_000);

  it('re-reads the mempool after a 2-block reorg returns transactions to it', async () => {
    const kinds = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2sh-multisig', 'p2tr'];
    const byKind = (kind: string) => manifest.addresses.filter((a) => a.kind === kind);
    await node.cli('sendmany', '', Object.fromEntries(kinds.map((k, i) => [byKind(k)[6]!.address, coins(2_000_000 + i)])));
    const c = await coinOf('p2wsh');
    const t = await spend([c], byKind('p2pkh')[7]!.address, c.sats - 100_000);
    const [first] = await node.cli<string[]>('generatetoaddress', 1, miner);
    const tChild = await spend([{ txid: t, vout: 0 }], byKind('p2wpkh')[7]!.address, c.sats - 200_000);
    await node.cli('sendmany', '', Object.fromEntries(kinds.map((k, i) => [byKind(k)[8]!.address, coins(3_000_000 + i)])));
    await node.cli('generatetoaddress', 1, miner);
    await waitSynced('two blocks mined');
    const height = indexedTip(dbPath)!.height;
    // One transaction that stays in the mempool across the reorg.
    await node.cli('sendtoaddress', byKind('p2sh-multisig')[9]!.address, coins(900_000));
    await waitSynced('one pending');

    await node.cli('invalidateblock', first);
    // Core puts the disconnected blocks' transactions back (those spending coinbases that are immature
    // again leave); `t` and its child spend an old coin.
    const back = await node.cli<string[]>('getrawmempool');
    expect(back).toContain(t);
    expect(back).toContain(tChild);
    expect(back.length).toBeGreaterThan(2);
    await waitSynced('after the reorg');
    expect(indexedTip(dbPath)!.height).toBe(height - 2);
    // `t` is back in the mempool: its child spends unconfirmed again.
    expect((await expectMempoolFacts('after a 2-block reorg')).spendsUnconfirmed).toBeGreaterThanOrEqual(1);
    await expectViewEqualsMinedMempool('after a 2-block reorg');
  }, 300_000);
});
