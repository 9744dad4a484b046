/**
 * WebSocket subscriptions to Electrum scripthashes and to wallets (xpubs), of the real indexer and API
 * against a real `litecoind -regtest`: after a block that pays them, a subscriber's last summary equals
 * what the GET route answers at that tip, and that equals `scantxoutset` (raw() for a P2PK script, the
 * wallet's descriptors over its range). Bad items fail alone and the connection lives; no reply echoes
 * a wallet's key.
 */
import { createHash } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { sendSpecialOutputs } from '../../harness/regtest-special.js';
import { WsClient, type LiveData } from '../support/live-clients.js';

const bip32 = BIP32Factory(ecc);
const TPUB = bip32.fromSeed(Buffer.alloc(32, 0x24), networks.testnet).neutered().toBase58();
const WPKH = `wpkh(${TPUB}/0/*)`;
const PKH_1 = `pkh(${TPUB}/1/*)`;

/** The private tier's subscriptions per connection here: a wallet counts one per 200 derived scripts. */
const PER_CONNECTION = 20;

const electrum = (scriptHex: string): string =>
  createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest().reverse().toString('hex');

/** Decimal coin text to satoshis, without floating point. */
function sats(text: string | number): number {
  const [whole = '0', frac = ''] = String(text).split('.');
  return Number(whole) * 100_000_000 + Number(frac.padEnd(8, '0').slice(0, 8));
}

describe('live scripthash and xpub subscriptions against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let key: string;
  let miner: string;
  let p2pk: string;
  const open: WsClient[] = [];

  async function scan(descs: readonly string[], range: number): Promise<{ sats: number; utxos: number; best: string }> {
    const objects = descs.map((desc) => ({ desc, range: [0, range - 1] }));
    const r = await node.cliExact<{ total_amount: string; bestblock: string; unspents: unknown[] }>('scantxoutset', 'start', objects);
    return { sats: sats(r.total_amount), utxos: r.unspents.length, best: r.bestblock };
  }

  async function get(path: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': key } });
    expect(res.status, path).toBe(200);
    return ((await res.json()) as { data: Record<string, unknown> }).data;
  }

  async function derived(desc: string, index: number): Promise<string> {
    const { descriptor } = await node.cli<{ descriptor: string }>('getdescriptorinfo', desc);
    return (await node.cli<string[]>('deriveaddresses', descriptor, [index, index]))[0]!;
  }

  async function ws(): Promise<WsClient> {
    const client = await WsClient.open(api.url, { 'x-api-key': key });
    open.push(client);
    return client;
  }

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    miner = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 110, miner);
    await node.cli('sendtoaddress', await derived(WPKH, 3), '0.5');
    p2pk = (await sendSpecialOutputs(node, 24)).special.find((s) => s.kind === 'p2pk')!.script;
    await node.cli('generatetoaddress', 1, miner);
    key = lw.world.createKey('live-wallet');
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 120_000);
    api = await lw.world.startApi(
      '[api.tiers.private]\nrate = 100000\nburst = 100000\n[api.live]\npollMs = 100\n' +
        `[api.live.subscriptionsPerConnection]\ndefault = 100\nprivate = ${PER_CONNECTION}\n`,
    );
  }, 300_000);

  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await lw?.close();
  });

  it('pushes a scripthash summary equal to the GET route and scantxoutset raw() after a block', async () => {
    const payee = await derived(WPKH, 9);
    const { scriptPubKey } = await node.cli<{ scriptPubKey: string }>('getaddressinfo', payee);
    const hashes = [electrum(scriptPubKey), electrum(p2pk).toUpperCase()];
    const client = await ws();
    const reply = await client.op({ op: 'subscribe', chain: 'LTC', scripthashes: [...hashes, 'not-a-hash'] });
    expect(reply.status).toBe('success');
    expect(reply.data.subscribed).toEqual(hashes.map((h) => h.toLowerCase()));
    expect(reply.data.failed).toEqual([expect.objectContaining({ scripthash: 'not-a-hash', code: 'INVALID_SCRIPTHASH' })]);
    // The connection lives: the next op is answered.
    expect((await client.op({ op: 'subscribe', chain: 'LTC', scripthashes: [] })).status).toBe('success');

    await node.cli('sendtoaddress', payee, '0.75');
    await node.cli('generatetoaddress', 1, miner);
    const best = await node.cli<string>('getbestblockhash');
    const oracle = { [hashes[0]!]: await scan([`addr(${payee})`], 1), [hashes[1]!.toLowerCase()]: await scan([`raw(${p2pk})`], 1) };
    expect(oracle[hashes[0]!]!.sats).toBe(75_000_000);
    await waitFor(
      'scripthash summaries at the new tip',
      async () => {
        for (const [hash, want] of Object.entries(oracle)) {
          const last = client.last.get(hash) as (LiveData & { blockHash: string }) | undefined;
          if (!last) return false;
          const answer = await get(`/api/v1/ltc/scripthash/${hash}`);
          // A summary is pushed only when it changed: the untouched P2PK script's last one names an older tip.
          if (hash === hashes[0]) {
            if (last.blockHash !== best) return false;
            expect(last).toEqual(answer);
          } else {
            expect({ ...last, blockHeight: 0, blockHash: '' }).toEqual({ ...answer, blockHeight: 0, blockHash: '' });
          }
          expect({ sats: last.balanceSatoshi, utxos: last.utxoCount }).toEqual({ sats: want.sats, utxos: want.utxos });
        }
        return true;
      },
      60_000,
    );
  }, 120_000);

  it('pushes an xpub summary equal to the xpub GET answer and scantxoutset after a block that pays it', async () => {
    const client = await ws();
    const reply = await client.op({
      op: 'subscribe',
      chain: 'LTC',
      xpubs: [TPUB, { key: WPKH, range: 100 }, { key: 'xpub-garbage' }, { key: WPKH, range: 0 }],
    });
    expect(reply.status).toBe('success');
    expect(reply.data.subscribed).toHaveLength(2);
    expect((reply.data.failed as { xpub: number }[]).map((i) => i.xpub)).toEqual([2, 3]);
    // Neither the reply nor the log names a key: wallets are named by their fingerprints.
    expect(JSON.stringify(reply)).not.toContain(TPUB);
    expect(JSON.stringify(reply)).not.toContain('xpub-garbage');

    await node.cli('sendtoaddress', await derived(PKH_1, 40), '0.125');
    await node.cli('sendtoaddress', await derived(WPKH, 60), '0.25');
    await node.cli('generatetoaddress', 1, miner);
    const best = await node.cli<string>('getbestblockhash');
    const wallets = [
      { query: `/api/v1/ltc/xpub/${encodeURIComponent(TPUB)}`, scan: await scan([`pkh(${TPUB}/0/*)`, PKH_1], 1000) },
      { query: `/api/v1/ltc/xpub/${encodeURIComponent(WPKH)}?range=100`, scan: await scan([WPKH], 100) },
    ];
    expect(wallets[0]!.scan.sats).toBe(12_500_000);
    expect(wallets[1]!.scan.sats).toBe(75_000_000 + 50_000_000 + 25_000_000);
    await waitFor(
      'wallet summaries at the new tip',
      async () => {
        for (const w of wallets) {
          const answer = await get(w.query);
          const last = client.last.get((answer.descriptors as string[]).join(' ')) as Record<string, unknown> | undefined;
          if (!last || last.blockHash !== best) return false;
          expect({ sats: last.balanceSatoshi, utxos: last.utxoCount }).toEqual({ sats: w.scan.sats, utxos: w.scan.utxos });
          expect(last).toEqual(answer);
        }
        return true;
      },
      60_000,
    );
    expect(api.output()).not.toContain(TPUB);
  }, 120_000);

  it('counts a wallet against the caps by its scripts, and unsubscribing one frees them', async () => {
    const client = await ws();
    // A bare key at the default range: 2×1000 scripts, 10 subscriptions; one branch at 1000: 5.
    const first = await client.op({ op: 'subscribe', chain: 'LTC', xpubs: [TPUB, { key: WPKH, range: 1000 }] });
    expect(first.status).toBe('success');
    // 1200 scripts count 6: 21 > 20.
    const over = await client.op({ op: 'subscribe', chain: 'LTC', xpubs: [{ key: PKH_1, range: 1200 }] });
    expect(over).toMatchObject({ status: 'fail', data: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
    expect(await client.op({ op: 'unsubscribe', chain: 'LTC', xpubs: [TPUB] })).toMatchObject({
      status: 'success',
      data: { unsubscribed: 1 },
    });
    expect((await client.op({ op: 'subscribe', chain: 'LTC', xpubs: [{ key: PKH_1, range: 1200 }] })).status).toBe('success');
  }, 60_000);

  it('with mempool, an xpub summary follows the mempool as the xpub GET ?mempool=true does', async () => {
    const client = await ws();
    const desc = `wpkh(${TPUB}/7/*)`;
    expect((await client.op({ op: 'subscribe', chain: 'LTC', mempool: true, xpubs: [{ key: desc, range: 50 }] })).status).toBe('success');
    await node.cli('sendtoaddress', await derived(desc, 20), '0.0625');
    const query = `/api/v1/ltc/xpub/${encodeURIComponent(desc)}?range=50&mempool=true`;
    await waitFor(
      'the unconfirmed payment in the wallet summary',
      async () => {
        const answer = await get(query);
        const last = client.last.get((answer.descriptors as string[]).join(' ')) as
          { unconfirmed?: { balanceSatoshi: number } } | undefined;
        if (last?.unconfirmed?.balanceSatoshi !== 6_250_000) return false;
        expect(last).toEqual(answer);
        return true;
      },
      30_000,
    );
  }, 60_000);
});
