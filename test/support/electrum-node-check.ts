/**
 * The Electrum suites' checks against a real litecoind (test/support/electrum-oracle.ts is the ground
 * truth): every address of a built chain answered through an Electrum port as the node says, the headers
 * and checkpoint proofs byte for byte, the notifications a block or a reorg must send, and the mempool
 * payments that make a chain's answers worth checking. Shared by the SQLite and the PostgreSQL suites.
 */
import { expect } from 'vitest';
import { waitFor } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import type { ChainManifest } from '../../harness/regtest-chain.js';
import { ElectrumClient } from './electrum-client.js';
import { ChainWalk, checkpointRoot, expectations, foldBranch, sortUnspent, type Expected } from './electrum-oracle.js';

export interface Notification {
  method: string;
  params: unknown[];
}

export const isNote = (m: unknown, method: string): m is Notification =>
  typeof m === 'object' && m !== null && !('id' in m) && (m as Notification).method === method;

/** The result of a request; an error answer throws, naming the method and its parameters. */
export async function call<T>(client: ElectrumClient, method: string, params: unknown[]): Promise<T> {
  const answer = await client.call(method, params, 30_000);
  if (answer.error) throw new Error(`${method}(${JSON.stringify(params)}): ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

export class ElectrumNodeCheck {
  /** Every connection made by connect(), in order: closed by closeClients(). */
  readonly clients: ElectrumClient[] = [];
  private readonly walk = new ChainWalk();

  private constructor(
    readonly node: Litecoind,
    readonly manifest: ChainManifest,
    /** Output script hex of every address, in the manifest's order. */
    private readonly scripts: readonly string[],
  ) {}

  static async create(node: Litecoind, manifest: ChainManifest): Promise<ElectrumNodeCheck> {
    const scripts: string[] = [];
    for (const a of manifest.addresses) scripts.push((await node.cli<{ scriptPubKey: string }>('validateaddress', a.address)).scriptPubKey);
    return new ElectrumNodeCheck(node, manifest, scripts);
  }

  /** A new connection to `port`, version negotiated. */
  async connect(port: number): Promise<ElectrumClient> {
    const client = await ElectrumClient.connect(port);
    this.clients.push(client);
    await call(client, 'server.version', ['test', '1.4']);
    return client;
  }

  closeClients(): void {
    for (const c of this.clients) c.close();
  }

  /** What every address should be answered now, from the node alone. */
  expected(): Promise<Expected[]> {
    return expectations(this.node, this.walk, this.scripts);
  }

  /** Every address's answers equal the node's; retried until the index has caught up with the node. */
  async expectAnswersEqualNode(client: ElectrumClient, phase: string): Promise<Expected[]> {
    let wrong: unknown[] = [];
    let want: Expected[] = [];
    await waitFor(
      `${phase}: every address answered as the node says`,
      async () => {
        want = await this.expected();
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

  /** The headers, the tip and checkpoint proofs as the node's block hashes and headers make them. */
  async expectHeadersEqualNode(client: ElectrumClient): Promise<void> {
    const node = this.node;
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

  /**
   * Subscribes `client` to every scripthash of `want` and checks each status answered is the node's; the
   * headers subscription too when `headers`.
   */
  async subscribeAll(client: ElectrumClient, want: readonly Expected[], headers: boolean): Promise<void> {
    if (headers) await call(client, 'blockchain.headers.subscribe', []);
    for (const e of want) expect(await call(client, 'blockchain.scripthash.subscribe', [e.scripthash]), e.scripthash).toBe(e.status);
  }

  /** Waits until every scripthash whose status `before` → `after` changed got a notification with the new one. */
  async expectNotified(subs: ElectrumClient, before: Expected[], after: Expected[], phase: string): Promise<void> {
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

  /** Waits for the headers notification of the node's tip. */
  async expectTipNotified(subs: ElectrumClient, phase: string): Promise<void> {
    const node = this.node;
    const height = await node.cli<number>('getblockcount');
    const hex = await node.cli<string>('getblockheader', await node.cli<string>('getbestblockhash'), false);
    await subs
      .waitFor((m) => isNote(m, 'blockchain.headers.subscribe') && JSON.stringify(m.params) === JSON.stringify([{ height, hex }]), 30_000)
      .catch((err: unknown) => {
        throw new Error(`${phase}: ${(err as Error).message}`);
      });
  }

  /** Payments to a few manifest addresses from the node's wallet, and one spending an output of another mempool transaction. */
  async fillMempool(count: number): Promise<void> {
    const { node, manifest } = this;
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

  /** Asserts the mempool has a child of a mempool transaction (what fillMempool makes). */
  async expectMempoolChild(): Promise<void> {
    const pool = await this.node.cli<Record<string, { depends: string[] }>>('getrawmempool', true);
    expect(
      Object.values(pool).some((e) => e.depends.length > 0),
      'a child of a mempool transaction',
    ).toBe(true);
  }

  /** The answers are worth checking: long histories, a mempool (a child of a mempool transaction too), unconfirmed outputs. */
  static expectVaried(want: readonly Expected[]): void {
    expect(want.length).toBeGreaterThan(50);
    expect(want.some((e) => e.history.filter((h) => h.height > 0).length > 2)).toBe(true);
    expect(want.filter((e) => e.mempool.length > 0).length).toBeGreaterThanOrEqual(4);
    expect(want.some((e) => e.mempool.some((m) => m.height === -1))).toBe(true);
    expect(want.some((e) => e.unspent.some((u) => u.height === 0))).toBe(true);
  }
}
