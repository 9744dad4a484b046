/**
 * The wallet routes against a real `litecoind -regtest` (issue 26), with the node's own
 * `scantxoutset` as the oracle: coins are sent to addresses the node derives (`deriveaddresses`) from a
 * tpub, the real indexer indexes them, and every answer of the real API must equal what `scantxoutset`
 * finds over the same descriptors and range: the total, the number of unspents, the funded scripts.
 * The scripthash route must equal the address route for address scripts, and `scantxoutset raw(…)` for
 * a P2PK and a bare multisig output. litecoind 0.21 reads neither tr() nor multipath; vectors cover those.
 * With history kept (issue 33), the wallet's summary txCount/received/sent and its transactions paged
 * with limit=3 equal the node's blocks (test/support/history-walk.ts) merged by hand over its addresses,
 * after the wallet spent from one of its addresses to another and to an outside address. With
 * transactions in the node's mempool touching the wallet (one paying between two of its addresses, a
 * child of it), the `?mempool=true` pages (limit 2 and 3, GET and POST) equal the node's mempool
 * (test/support/mempool-oracle.ts) merged by hand over its addresses, then the confirmed history.
 */
import { createHash } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { sendSpecialOutputs } from '../../harness/regtest-special.js';
import { waitFor } from '../../harness/indexer-process.js';
import { walkHistory } from '../support/history-walk.js';
import { mempoolEffects } from '../support/mempool-oracle.js';

const bip32 = BIP32Factory(ecc);
// Two wallets' account keys (tpub: what litecoind 0.21 reads on regtest), from fixed seeds.
const ROOT = bip32.fromSeed(Buffer.alloc(32, 0x26), networks.testnet);
const TPUB = ROOT.neutered().toBase58();
const TPUB2 = bip32.fromSeed(Buffer.alloc(32, 0x62), networks.testnet).neutered().toBase58();
const UNLIMITED = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

const WPKH = `wpkh(${TPUB}/0/*)`;
const PKH_0 = `pkh(${TPUB}/0/*)`;
const PKH_1 = `pkh(${TPUB}/1/*)`;
const SH_WPKH = `sh(wpkh(${TPUB}/2/*))`;
const WSH_MULTI = `wsh(sortedmulti(1,${TPUB}/3/*,${TPUB2}/3/*))`;
const SH_MULTI = `sh(multi(1,${TPUB2}/4/*,${TPUB}/4/*))`;

/** Coins sent: descriptor, index, amount in LTC (text, as the node reads it). Index 150 sits between range 100 and 200. */
const FUNDING: Array<[string, number, string]> = [
  [WPKH, 0, '1.5'],
  [WPKH, 150, '0.25'],
  [PKH_0, 2, '0.75'],
  [PKH_1, 3, '0.125'],
  [PKH_1, 150, '0.5'],
  [SH_WPKH, 999, '2'],
  [SH_WPKH, 5, '0.0001'],
  [WSH_MULTI, 7, '0.3'],
  [SH_MULTI, 150, '0.4'],
];

interface Scan {
  sats: number;
  unspents: number;
  /** Electrum scripthash → sats, for every script holding coins. */
  scripts: Map<string, number>;
  bestblock: string;
}

interface WalletData {
  balanceSatoshi: number;
  utxoCount: number;
  fundedAddresses: number;
  range: number;
  descriptors: string[];
  blockHash: string;
  addresses?: Array<{ path: string | null; address: string | null; scripthash: string; balanceSatoshi: number; utxoCount: number }>;
}

/** Decimal coin text (as cliExact keeps it) to satoshis, without floating point. */
function sats(text: string | number): number {
  const [whole = '0', frac = ''] = String(text).split('.');
  return Number(whole) * 100_000_000 + Number(frac.padEnd(8, '0').slice(0, 8));
}

const electrum = (scriptHex: string) => createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest().reverse().toString('hex');

describe('wallet routes against scantxoutset on a real litecoind (issue 26)', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let apiKey: string;
  let special: { kind: string; script: string; sats: number }[];

  async function scan(descs: readonly string[], range: number): Promise<Scan> {
    const objects = descs.map((desc) => ({ desc, range: [0, range - 1] }));
    const r = await node.cliExact<{
      total_amount: string;
      bestblock: string;
      unspents: Array<{ scriptPubKey: string; amount: string }>;
    }>('scantxoutset', 'start', objects);
    const scripts = new Map<string, number>();
    for (const u of r.unspents) scripts.set(electrum(u.scriptPubKey), (scripts.get(electrum(u.scriptPubKey)) ?? 0) + sats(u.amount));
    return { sats: sats(r.total_amount), unspents: r.unspents.length, scripts, bestblock: r.bestblock };
  }

  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: { data: Record<string, unknown> } }> {
    const res = await fetch(`${api.url}${path}`, {
      ...init,
      headers: { 'x-api-key': apiKey, ...(init.headers as Record<string, string>) },
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  }

  async function wallet(key: string, query: string): Promise<WalletData> {
    const a = await call(`/api/v1/ltc/xpub/${encodeURIComponent(key)}${query}`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    return a.body.data as unknown as WalletData;
  }

  function expectEqual(answer: WalletData, oracle: Scan, what: string): void {
    expect({ sats: answer.balanceSatoshi, utxos: answer.utxoCount, funded: answer.fundedAddresses, tip: answer.blockHash }, what).toEqual({
      sats: oracle.sats,
      utxos: oracle.unspents,
      funded: oracle.scripts.size,
      tip: oracle.bestblock,
    });
  }

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    const miner = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 110, miner);
    const outputs: Record<string, string> = {};
    for (const [desc, index, amount] of FUNDING) {
      const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', desc);
      const [address] = await node.cli<string[]>('deriveaddresses', descriptor, [index, index]);
      outputs[address!] = amount;
    }
    await node.cli('sendmany', '', outputs);
    // A second coin on one script: utxoCount counts coins, fundedAddresses scripts.
    const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', WPKH);
    const [first] = await node.cli<string[]>('deriveaddresses', descriptor, [0, 0]);
    await node.cli('sendtoaddress', first, '0.01');
    special = (await sendSpecialOutputs(node, 26)).special.filter((s) => s.kind === 'p2pk' || s.kind === 'bare-multisig');
    await node.cli('generatetoaddress', 1, miner);
    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true' } });
    await lw.world.waitForTip();
    apiKey = lw.world.createKey('wallet');
    api = await lw.world.startApi(UNLIMITED);
  }, 240_000);

  afterAll(async () => {
    await lw?.close();
  });

  it('each descriptor at range 100, 200 and the default (1000) equals scantxoutset over the same range', async () => {
    for (const desc of [WPKH, PKH_0, PKH_1, SH_WPKH, WSH_MULTI, SH_MULTI]) {
      for (const range of [100, 200, 1000]) {
        const query = range === 1000 ? '' : `?range=${range}`;
        const answer = await wallet(desc, query);
        expect(answer.range).toBe(range);
        expectEqual(answer, await scan([desc], range), `${desc.slice(0, 8)} range ${range}`);
      }
    }
    // The coin at index 150 is what the two ranges disagree on.
    const [at100, at200] = [await wallet(WPKH, '?range=100'), await wallet(WPKH, '?range=200')];
    expect(at200.balanceSatoshi - at100.balanceSatoshi).toBe(25_000_000);
  });

  it('a bare tpub is pkh() over /0/* and /1/*: equal to scantxoutset over both, by GET and by POST', async () => {
    const oracle = await scan([PKH_0, PKH_1], 1000);
    expect(oracle.unspents).toBeGreaterThan(2);
    const answer = await wallet(TPUB, '');
    expectEqual(answer, oracle, 'bare tpub');
    expect(answer.descriptors).toHaveLength(2);
    const posted = await call('/api/v1/ltc/xpub', { method: 'POST', body: JSON.stringify({ key: TPUB, range: 1000 }) });
    expect(posted.body.data).toEqual(answer);
  });

  it('?details=funded lists exactly the scripts scantxoutset finds, each with its amount', async () => {
    for (const [desc, range] of [
      [WPKH, 200],
      [SH_WPKH, 1000],
      [WSH_MULTI, 100],
      [PKH_1, 100],
    ] as const) {
      const answer = await wallet(desc, `?range=${range}&details=funded`);
      const oracle = await scan([desc], range);
      const listed = new Map((answer.addresses ?? []).map((a) => [a.scripthash, a.balanceSatoshi]));
      expect(listed, `${desc.slice(0, 8)} range ${range}`).toEqual(oracle.scripts);
      for (const a of answer.addresses ?? []) expect(a.address).toMatch(/^(rltc1|[mnQ2])/);
    }
    const paths = (await wallet(WPKH, '?range=200&details=funded')).addresses?.map((a) => a.path);
    expect(paths).toEqual(['0/0', '0/150']);
  });

  it('scripthash answers equal the address route for address scripts, and scantxoutset raw() for P2PK and bare multisig', async () => {
    const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', WPKH);
    const [address] = await node.cli<string[]>('deriveaddresses', descriptor, [0, 0]);
    const info = await node.cli<{ scriptPubKey: string }>('getaddressinfo', address);
    const byAddress = await call(`/api/v1/ltc/address/${address}`);
    const byHash = await call(`/api/v1/ltc/scripthash/${electrum(info.scriptPubKey)}`);
    expect(byHash.status).toBe(200);
    const { address: _a, ...restA } = byAddress.body.data;
    const { scripthash, ...restH } = byHash.body.data;
    expect(scripthash).toBe(electrum(info.scriptPubKey));
    expect(restH).toEqual(restA);
    expect(restH.utxoCount).toBe(2);

    expect(special.map((s) => s.kind).sort()).toEqual(['bare-multisig', 'p2pk']);
    for (const s of special) {
      const oracle = await scan([`raw(${s.script})`], 1);
      const answer = (await call(`/api/v1/ltc/scripthash/${electrum(s.script)}`)).body.data;
      expect({ sats: answer.balanceSatoshi, utxos: answer.utxoCount, tip: answer.blockHash }, s.kind).toEqual({
        sats: oracle.sats,
        utxos: oracle.unspents,
        tip: oracle.bestblock,
      });
      expect(oracle.unspents).toBeGreaterThan(0);
    }
  });
  /** A page line as the wallet history routes write it: txid, height, sums, and the addresses in derivation order. */
  interface WalletTx {
    txid: string;
    height: number | null;
    receivedSatoshi: number;
    sentSatoshi: number;
    addresses: { path: string; address: string; receivedSatoshi: number; sentSatoshi: number }[];
  }
  const lineOf = (t: WalletTx): string =>
    `${t.txid} ${t.height} ${t.receivedSatoshi} ${t.sentSatoshi} [${t.addresses.map((x) => `${x.path} ${x.address} ${x.receivedSatoshi} ${x.sentSatoshi}`).join(', ')}]`;

  /** Every page of the WPKH wallet's history (GET, or POST with the key in the body), `query` after the range. */
  async function walletPages(range: number, query: string, post = false): Promise<{ lines: string[]; tips: Set<string> }> {
    const lines: string[] = [];
    const tips = new Set<string>();
    for (let cursor: string | null = null, n = 0; n < 100; n++) {
      const rest = `${query}${cursor ? `&cursor=${cursor}` : ''}`;
      const a = post
        ? await call(`/api/v1/ltc/xpub/transactions?${rest.slice(1)}`, { method: 'POST', body: JSON.stringify({ key: WPKH, range }) })
        : await call(`/api/v1/ltc/xpub/${encodeURIComponent(WPKH)}/transactions?range=${range}${rest}`);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      const page = a.body.data as { transactions: WalletTx[]; next: string | null; blockHash: string };
      lines.push(...page.transactions.map(lineOf));
      tips.add(page.blockHash);
      cursor = page.next;
      if (cursor === null) return { lines, tips };
    }
    throw new Error('no last page');
  }

  it('with history: the wallet summary and its pages (limit=3) equal the node’s blocks merged over its addresses', async () => {
    const range = 200;
    const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', WPKH);
    const addresses = await node.cli<string[]>('deriveaddresses', descriptor, [0, range - 1]);
    // Spend 0/0's 1.5 to 0/1 and outside (one transaction, two wallet addresses), and 0/150's 0.25 outside.
    const outside = await node.cli<string>('getnewaddress');
    const spend = async (index: number, outputs: Record<string, string>): Promise<string> => {
      const scan = await node.cliExact<{ unspents: { txid: string; vout: number; scriptPubKey: string; amount: string }[] }>(
        'scantxoutset',
        'start',
        [`addr(${addresses[index]!})`],
      );
      // 0/0 holds 1.5 and 0.01: spend the larger.
      const coin = scan.unspents.sort((a, b) => sats(b.amount) - sats(a.amount))[0]!;
      const raw = await node.cli<string>('createrawtransaction', [{ txid: coin.txid, vout: coin.vout }], outputs);
      const signed = await node.cli<{ hex: string; complete: boolean }>(
        'signrawtransactionwithkey',
        raw,
        [ROOT.derive(0).derive(index).toWIF()],
        [{ txid: coin.txid, vout: coin.vout, scriptPubKey: coin.scriptPubKey, amount: coin.amount }],
      );
      expect(signed.complete).toBe(true);
      return node.cli<string>('sendrawtransaction', signed.hex);
    };
    const internal = await spend(0, { [addresses[1]!]: '1.0', [outside]: '0.4999' });
    await spend(150, { [outside]: '0.2499' });
    await node.cli('generatetoaddress', 1, outside);
    await lw.world.waitForTip();

    // The oracle: each address's history from the node's blocks, merged by hand, each transaction once.
    const walk = await walkHistory(node.cliExact);
    const byTx = new Map<string, { height: number; position: number; received: bigint; sent: bigint; parts: string[] }>();
    addresses.forEach((address, i) => {
      for (const e of walk.historyOf(address)) {
        const t = byTx.get(e.txid) ?? { height: e.height, position: e.position, received: 0n, sent: 0n, parts: [] };
        t.received += e.receivedSats;
        t.sent += e.sentSats;
        t.parts.push(`0/${i} ${address} ${e.receivedSats} ${e.sentSats}`);
        byTx.set(e.txid, t);
      }
    });
    const merged = [...byTx.entries()].sort(([, a], [, b]) => b.height - a.height || b.position - a.position);
    const want = merged.map(([txid, t]) => `${txid} ${t.height} ${t.received} ${t.sent} [${t.parts.join(', ')}]`);
    expect(byTx.get(internal)?.parts).toHaveLength(2);
    expect(merged.some(([, t]) => t.parts.length === 2 && t.sent === 0n)).toBe(true);
    const total = (f: 'received' | 'sent') => merged.reduce((n, [, t]) => n + t[f], 0n);

    const summary = await wallet(WPKH, `?range=${range}`);
    const figures = summary as unknown as { txCount: number; receivedSatoshi: number; sentSatoshi: number };
    expect([figures.txCount, figures.receivedSatoshi, figures.sentSatoshi, summary.blockHash]).toEqual([
      merged.length,
      Number(total('received')),
      Number(total('sent')),
      walk.tipHash,
    ]);

    const { lines, tips } = await walletPages(range, '&limit=3');
    expect(lines).toEqual(want);
    expect([...tips]).toEqual([walk.tipHash]);
  });

  it('with history and the mempool: ?mempool=true pages (limit 2 and 3) equal the node’s mempool merged over the wallet, then its blocks', async () => {
    const range = 200;
    const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', WPKH);
    const addresses = await node.cli<string[]>('deriveaddresses', descriptor, [0, range - 1]);
    const scripts = new Map<string, number>();
    for (const [i, address] of addresses.entries())
      scripts.set((await node.cli<{ scriptPubKey: string }>('validateaddress', address)).scriptPubKey, i);
    const outside = await node.cli<string>('getnewaddress');
    const coinOf = async (index: number) => {
      const scan = await node.cliExact<{ unspents: { txid: string; vout: number; scriptPubKey: string; amount: string }[] }>(
        'scantxoutset',
        'start',
        [`addr(${addresses[index]!})`],
      );
      return scan.unspents.sort((a, b) => sats(b.amount) - sats(a.amount))[0]!;
    };
    const send = async (inputs: { txid: string; vout: number; scriptPubKey: string; amount: string; index: number }[], outputs: object) => {
      const raw = await node.cli<string>(
        'createrawtransaction',
        inputs.map(({ txid, vout }) => ({ txid, vout })),
        outputs,
      );
      const signed = await node.cli<{ hex: string; complete: boolean }>(
        'signrawtransactionwithkey',
        raw,
        inputs.map((i) => ROOT.derive(0).derive(i.index).toWIF()),
        inputs.map(({ txid, vout, scriptPubKey, amount }) => ({ txid, vout, scriptPubKey, amount })),
      );
      expect(signed.complete).toBe(true);
      return node.cli<string>('sendrawtransaction', signed.hex);
    };
    /** Waits until the wallet's mempool part lists `n` transactions: each is learned before the next is sent. */
    const held = (n: number) =>
      waitFor(
        `the index to hold ${n} of the wallet's mempool transactions`,
        async () => {
          const a = await call(`/api/v1/ltc/xpub/${encodeURIComponent(WPKH)}/transactions?range=${range}&mempool=true&limit=10`);
          return a.status === 200 && (a.body.data.transactions as WalletTx[]).filter((t) => t.height === null).length === n;
        },
        60_000,
        lw.world.indexer,
      );

    // Confirmed coins of its own for this case: 1.0 on 0/5, 0.01 on 0/6.
    await node.cli('sendtoaddress', addresses[5]!, '1.0');
    await node.cli('sendtoaddress', addresses[6]!, '0.01');
    await node.cli('generatetoaddress', 1, outside);
    await lw.world.waitForTip();

    const sent: string[] = [];
    // 0/5 pays 0/7 (between two of the wallet's addresses) and outside.
    const c5 = { ...(await coinOf(5)), index: 5 };
    sent.push(await send([c5], [{ [addresses[7]!]: '0.6' }, { [outside]: '0.3999' }]));
    await held(1);
    // The node's wallet pays 0/8 (in from outside).
    sent.push(await node.cli<string>('sendtoaddress', addresses[8]!, '0.2'));
    await held(2);
    // A child of the first (0/7's new coin) with 0/6's confirmed coin: pays 0/9 and outside.
    const c6 = { ...(await coinOf(6)), index: 6 };
    const child = { txid: sent[0]!, vout: 0, scriptPubKey: [...scripts].find(([, i]) => i === 7)![0], amount: '0.6', index: 7 };
    sent.push(await send([child, c6], [{ [addresses[9]!]: '0.3' }, { [outside]: '0.3099' }]));
    await held(3);

    // The oracle: the node's mempool, newest first, merged over the wallet's addresses by hand; then its blocks.
    const unconfirmed = (await mempoolEffects(node.cliExact, [...sent].reverse())).flatMap(({ txid, scripts: touched }) => {
      const parts = [...touched]
        .flatMap(([script, e]) => (scripts.has(script) ? [{ i: scripts.get(script)!, ...e }] : []))
        .sort((a, b) => a.i - b.i);
      if (parts.length === 0) return [];
      const [received, sent] = parts.reduce(([r, s], p) => [r + p.received, s + p.sent], [0n, 0n]);
      const named = parts.map((p) => `0/${p.i} ${addresses[p.i]} ${p.received} ${p.sent}`);
      return [`${txid} null ${received} ${sent} [${named.join(', ')}]`];
    });
    expect(unconfirmed).toHaveLength(3);
    expect(unconfirmed[0]).toMatch(/\[0\/6 \S+ 0 1000000, 0\/7 \S+ 0 60000000, 0\/9 \S+ 30000000 0\]$/);
    expect(unconfirmed[2]).toMatch(/\[0\/5 \S+ 0 100000000, 0\/7 \S+ 60000000 0\]$/);
    const walk = await walkHistory(node.cliExact);
    const confirmed = (await walletPages(range, '&limit=1000')).lines;
    const byTx = new Map<string, { height: number; position: number; received: bigint; sent: bigint; parts: string[] }>();
    addresses.forEach((address, i) => {
      for (const e of walk.historyOf(address)) {
        const t = byTx.get(e.txid) ?? { height: e.height, position: e.position, received: 0n, sent: 0n, parts: [] };
        [t.received, t.sent] = [t.received + e.receivedSats, t.sent + e.sentSats];
        t.parts.push(`0/${i} ${address} ${e.receivedSats} ${e.sentSats}`);
        byTx.set(e.txid, t);
      }
    });
    const merged = [...byTx.entries()]
      .sort(([, a], [, b]) => b.height - a.height || b.position - a.position)
      .map(([txid, t]) => `${txid} ${t.height} ${t.received} ${t.sent} [${t.parts.join(', ')}]`);
    expect(confirmed).toEqual(merged);
    for (const [limit, post] of [
      [2, false],
      [3, false],
      [2, true],
    ] as const) {
      const { lines, tips } = await walletPages(range, `&mempool=true&limit=${limit}`, post);
      expect(lines, `limit ${limit}${post ? ' POST' : ''}`).toEqual([...unconfirmed, ...merged]);
      expect([...tips]).toEqual([walk.tipHash]);
    }
  }, 180_000);
});
