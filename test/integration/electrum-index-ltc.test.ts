/**
 * The index-backed Electrum methods of the real API process over a real `litecoind -regtest` and the real
 * indexer (history and the UTXO listing on), against what the node alone says (test/support/
 * electrum-oracle.ts): for every address of a varied chain with a mempool (payments, a child of a mempool
 * transaction), get_balance, get_history, get_mempool, listunspent and subscribe's status; the headers
 * and block.headers byte for byte, checkpoint proofs against the node's block hashes. Then after a paying block and after a reorg onto a longer fork, every
 * scripthash notification carries the status recomputed from the node, and the headers notification the
 * node's new tip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { freePort } from '../../harness/ports.js';
import { buildVariedChain, type ChainManifest } from '../../harness/regtest-chain.js';
import { ElectrumClient } from '../support/electrum-client.js';
import { ChainWalk, checkpointRoot, expectations, foldBranch, sortUnspent, type Expected } from '../support/electrum-oracle.js';

interface Notification {
  method: string;
  params: unknown[];
}

const isNote = (m: unknown, method: string): m is Notification =>
  typeof m === 'object' && m !== null && !('id' in m) && (m as Notification).method === method;

describe('Electrum index-backed methods against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let api: ApiProcess;
  let port: number;
  const clients: ElectrumClient[] = [];
  const walk = new ChainWalk();
  /** Output script hex of every address, in the manifest's order. */
  let scripts: string[];

  async function call<T>(client: ElectrumClient, method: string, params: unknown[]): Promise<T> {
    const answer = await client.call(method, params, 30_000);
    if (answer.error) throw new Error(`${method}(${JSON.stringify(params)}): ${answer.error.code} ${answer.error.message}`);
    return answer.result as T;
  }

  async function expected(): Promise<Expected[]> {
    return expectations(node, walk, scripts);
  }

  /** Every address's answers equal the node's; retried until the index has caught up with the node. */
  async function expectAnswersEqualNode(client: ElectrumClient, phase: string): Promise<Expected[]> {
    let wrong: unknown[] = [];
    let want: Expected[] = [];
    await waitFor(
      `${phase}: every address answered as the node says`,
      async () => {
        want = await expected();
        wrong = [];
        for (const e of want) {
          const got = {
            balance: await call(client, 'blockchain.scripthash.get_balance', [e.scripthash]),
            history: await call(client, 'blockchain.scripthash.get_history', [e.scripthash]),
            mempool: await call(client, 'blockchain.scripthash.get_mempool', [e.scripthash]),
            unspent: sortUnspent(await call<Expected['unspent']>(client, 'blockchain.scripthash.listunspent', [e.scripthash])),
          };
          const exp = { balance: e.balance, history: e.history, mempool: e.mempool, unspent: e.unspent };
          if (JSON.stringify(got) !== JSON.stringify(exp)) wrong.push({ scripthash: e.scripthash, got, exp });
        }
        return wrong.length === 0;
      },
      60_000,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${JSON.stringify(wrong.slice(0, 2), null, 1)}`);
    });
    return want;
  }

  async function expectHeadersEqualNode(client: ElectrumClient): Promise<void> {
    const height = await node.cli<number>('getblockcount');
    const hexes: string[] = [];
    for (let h = 0; h <= height; h++)
      hexes.push(await node.cli<string>('getblockheader', await node.cli<string>('getblockhash', h), false));
    const run = await call<{ count: number; hex: string; max: number }>(client, 'blockchain.block.headers', [0, height + 1]);
    expect(run).toEqual({ count: height + 1, hex: hexes.join(''), max: 2016 });
    for (const h of [0, 1, Math.floor(height / 2), height]) expect(await call(client, 'blockchain.block.header', [h])).toBe(hexes[h]);
    const tip = await call(client, 'blockchain.headers.subscribe', []);
    expect(tip).toEqual({ height, hex: hexes[height] });
    const above = await client.call('blockchain.block.header', [height + 1]);
    expect(above.error?.message).toMatch(/above the tip/);
    // Checkpoint proofs: the root over the node's block hashes, and each branch folds up to it.
    const hashes: string[] = [];
    for (let h = 0; h <= height; h++) hashes.push(await node.cli<string>('getblockhash', h));
    for (const cp of [height, Math.floor(height / 2) + 1]) {
      const root = checkpointRoot(hashes.slice(0, cp + 1));
      for (const h of [0, 1, cp - 1, cp]) {
        const proof = await call<{ branch: string[]; header: string; root: string }>(client, 'blockchain.block.header', [h, cp]);
        expect(proof.header).toBe(hexes[h]);
        expect(proof.root).toBe(root);
        expect(foldBranch(hashes[h]!, h, proof.branch)).toBe(root);
      }
      const chunk = await call<{ count: number; branch: string[]; root: string }>(client, 'blockchain.block.headers', [cp - 4, 5, cp]);
      expect(chunk.count).toBe(5);
      expect(chunk.root).toBe(root);
      expect(foldBranch(hashes[cp]!, cp, chunk.branch)).toBe(root);
    }
    const past = await client.call('blockchain.block.header', [5, 4]);
    expect(past.error?.message).toMatch(/above cp_height/);
  }

  /** Waits until every scripthash whose status `before` → `after` changed got a notification with the new one. */
  async function expectNotified(subs: ElectrumClient, before: Expected[], after: Expected[], phase: string): Promise<void> {
    const changed = after.filter((e, i) => e.status !== before[i]!.status);
    expect(changed.length, phase).toBeGreaterThan(0);
    const last = (): Map<string, unknown> => {
      const m = new Map<string, unknown>();
      for (const msg of subs.messages) if (isNote(msg, 'blockchain.scripthash.subscribe')) m.set(msg.params[0] as string, msg.params[1]);
      return m;
    };
    await waitFor(`${phase}: notifications of ${changed.length} changed statuses`, () => {
      const m = last();
      return changed.every((e) => m.get(e.scripthash) === e.status);
    });
    // Whatever was notified, for any scripthash, ends at the node's status.
    const m = last();
    for (const e of after) if (m.has(e.scripthash)) expect(m.get(e.scripthash), `${phase} ${e.scripthash}`).toBe(e.status);
  }

  async function expectTipNotified(subs: ElectrumClient, phase: string): Promise<void> {
    const height = await node.cli<number>('getblockcount');
    const hex = await node.cli<string>('getblockheader', await node.cli<string>('getbestblockhash'), false);
    await subs
      .waitFor((m) => isNote(m, 'blockchain.headers.subscribe') && JSON.stringify(m.params) === JSON.stringify([{ height, hex }]), 30_000)
      .catch((err: unknown) => {
        throw new Error(`${phase}: ${(err as Error).message}`);
      });
  }

  /** Payments to a few manifest addresses from the node's wallet, and one spending an output of another mempool transaction. */
  async function fillMempool(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const to = manifest.addresses[(i * 7) % manifest.addresses.length]!.address;
      await node.cli('sendtoaddress', to, Number((0.1 + i / 100).toFixed(2)));
    }
    const own = await node.cli<string>('getnewaddress', '', 'bech32');
    const parent = await node.cli<string>('sendtoaddress', own, 1);
    const tx = await node.cli<{ vout: Array<{ n: number; scriptPubKey: { address?: string; addresses?: string[] } }> }>(
      'getrawtransaction',
      parent,
      true,
    );
    const vout = tx.vout.find((o) => o.scriptPubKey.address === own || o.scriptPubKey.addresses?.includes(own))!.n;
    const payee = manifest.addresses[(count * 5) % manifest.addresses.length]!.address;
    const raw = await node.cli<string>('createrawtransaction', [{ txid: parent, vout }], { [payee]: 0.9999 });
    const signed = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', raw);
    await node.cli('sendrawtransaction', signed.hex);
  }

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    node = lw.node;
    manifest = await buildVariedChain(node, { seed: 31, perKind: 24 });
    scripts = [];
    for (const a of manifest.addresses) scripts.push((await node.cli<{ scriptPubKey: string }>('validateaddress', a.address)).scriptPubKey);
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 180_000);
    port = await freePort();
    api = await lw.world.startApi('[api.tiers.default]\nrate = 1000000\nburst = 1000000\n[api.live]\npollMs = 100\n', {
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
    });
    await fillMempool(6);
    const pool = await node.cli<Record<string, { depends: string[] }>>('getrawmempool', true);
    expect(
      Object.values(pool).some((e) => e.depends.length > 0),
      'a child of a mempool transaction',
    ).toBe(true);
  }, 400_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await lw?.close();
  });

  async function connect(): Promise<ElectrumClient> {
    const client = await ElectrumClient.connect(port);
    clients.push(client);
    await call(client, 'server.version', ['test', '1.4']);
    return client;
  }

  it('answers every address and header as the node says, then notifies a paying block and a reorg', async () => {
    expect(api.url).toBeTruthy();
    const client = await connect();
    await expectHeadersEqualNode(client);
    let before = await expectAnswersEqualNode(client, 'with a mempool');
    // The chain is varied enough to mean something: long histories, a mempool, unconfirmed outputs.
    expect(before.length).toBeGreaterThan(50);
    expect(before.some((e) => e.history.filter((h) => h.height > 0).length > 2)).toBe(true);
    expect(before.filter((e) => e.mempool.length > 0).length).toBeGreaterThanOrEqual(4);
    expect(before.some((e) => e.unspent.some((u) => u.height === 0))).toBe(true);
    // Subscriptions spread over two connections; each status is the node's.
    const subs = [await connect(), await connect()];
    await call(subs[0]!, 'blockchain.headers.subscribe', []);
    for (const [i, e] of before.entries())
      expect(await call(subs[i % 2]!, 'blockchain.scripthash.subscribe', [e.scripthash])).toBe(e.status);

    // Mempool only: new payments (and a child of one) notify the scripts they touch.
    await fillMempool(2);
    let after = await expectAnswersEqualNode(client, 'with more mempool');
    for (const [i, s] of subs.entries())
      await expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `mempool (connection ${i})`,
      );
    before = after;

    const payee = manifest.addresses[3]!.address;
    await node.cli('generatetoaddress', 1, payee);
    await lw.world.waitForTip('the paying block', 60_000);
    after = await expectAnswersEqualNode(client, 'after a paying block');
    await expectTipNotified(subs[0]!, 'paying block');
    for (const [i, s] of subs.entries())
      await expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `block (connection ${i})`,
      );

    // A reorg: the paying block is replaced by a longer fork, with a fresh mempool in between.
    before = after;
    await node.cli('invalidateblock', await node.cli<string>('getbestblockhash'));
    await fillMempool(3);
    await node.cli('generatetoaddress', 2, manifest.addresses[5]!.address);
    await lw.world.waitForTip('the longer fork', 60_000);
    after = await expectAnswersEqualNode(client, 'after a reorg');
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectHeadersEqualNode(client);
    await expectTipNotified(subs[0]!, 'reorg');
    for (const [i, s] of subs.entries())
      await expectNotified(
        s,
        before.filter((_, j) => j % 2 === i),
        after.filter((_, j) => j % 2 === i),
        `reorg (connection ${i})`,
      );

    // Every notification sent is counted, by method (a last one may still be on its way to the client).
    const counted = async (method: string): Promise<number> => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('addrsum_api_electrum_notifications_total{') && l.includes(`method="${method}"`));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const received = (method: string): number => clients.flatMap((c) => c.messages).filter((m) => isNote(m, method)).length;
    for (const method of ['blockchain.scripthash.subscribe', 'blockchain.headers.subscribe']) {
      await waitFor(`${method} notifications counted as received`, async () => (await counted(method)) === received(method), 10_000);
    }
    expect(received('blockchain.headers.subscribe')).toBeGreaterThanOrEqual(4);
  }, 400_000);
});
