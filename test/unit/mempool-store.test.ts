/**
 * The mempool view against a model of the node: random chains of unconfirmed spends, replacements
 * (a new transaction spending a held one's input), evictions with descendants, blocks that mine part of
 * the mempool and conflict with another part, and rollbacks that return transactions to the mempool.
 * After every step, for every script: confirmed + Δ = what it holds once the whole mempool is mined, and
 * txCount = the held transactions touching it.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedTx } from '../../src/chain/block-parser.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { decodeEffect, encodeEffect, netOf, txEffect } from '../../src/store/mempool-effect.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainBuilder, Rng, coinbaseTx, opReturn, p2pkh, p2wpkh, randomHash, spendTx, type Out } from '../support/blocks.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Coin = { script: Buffer; value: bigint };
const id = (txid: Buffer, vout: number): string => `${txid.toString('hex')}:${vout}`;

/** What the node holds: confirmed coins and its mempool (insertion order is a valid topological order). */
class NodeModel {
  confirmed = new Map<string, Coin>();
  mempool = new Map<string, ParsedTx>();
  history: Array<{ confirmed: Map<string, Coin>; block: ParsedTx[] }> = [];

  spenderOf(outpoint: string): string | undefined {
    for (const [txid, tx] of this.mempool) if (tx.inputs.some((i) => id(i.prevTxid, i.vout) === outpoint)) return txid;
    return undefined;
  }

  removeWithDescendants(txid: string): void {
    const tx = this.mempool.get(txid);
    if (!tx) return;
    this.mempool.delete(txid);
    for (let v = 0; v < tx.outputs.length; v++) {
      const child = this.spenderOf(id(tx.txid, v));
      if (child) this.removeWithDescendants(child);
    }
  }

  accept(tx: ParsedTx): void {
    for (const i of tx.inputs) {
      const other = this.spenderOf(id(i.prevTxid, i.vout));
      if (other) this.removeWithDescendants(other);
    }
    this.mempool.set(tx.txid.toString('hex'), tx);
  }

  /** Coins spendable by a new mempool transaction. */
  spendable(): Array<[string, Coin]> {
    const all = new Map(this.confirmed);
    for (const tx of this.mempool.values()) {
      for (const i of tx.inputs) all.delete(id(i.prevTxid, i.vout));
      tx.outputs.forEach((o, v) => {
        if (o.script[0] !== 0x6a) all.set(id(tx.txid, v), o);
      });
    }
    return [...all];
  }

  connect(txs: ParsedTx[]): void {
    this.history.push({ confirmed: new Map(this.confirmed), block: txs });
    for (const tx of txs) {
      if (!tx.coinbase) for (const i of tx.inputs) this.confirmed.delete(id(i.prevTxid, i.vout));
      tx.outputs.forEach((o, v) => {
        if (o.script[0] !== 0x6a) this.confirmed.set(id(tx.txid, v), o);
      });
      if (tx.coinbase) continue;
      this.mempool.delete(tx.txid.toString('hex'));
      for (const i of tx.inputs) {
        const other = this.spenderOf(id(i.prevTxid, i.vout));
        if (other) this.removeWithDescendants(other);
      }
    }
  }

  /** Core puts the disconnected block's transactions back ahead of the rest of its mempool. */
  disconnect(): void {
    const last = this.history.pop()!;
    this.confirmed = last.confirmed;
    const back = new Map<string, ParsedTx>();
    for (const tx of last.block) if (!tx.coinbase) back.set(tx.txid.toString('hex'), tx);
    this.mempool = new Map([...back, ...this.mempool]);
    // The block's coinbase is gone for good: whatever spent it leaves too (Core's removeForReorg).
    const coinbase = last.block.find((tx) => tx.coinbase);
    coinbase?.outputs.forEach((_, v) => {
      const spender = this.spenderOf(id(coinbase.txid, v));
      if (spender) this.removeWithDescendants(spender);
    });
  }

  /** Per script: what held txs pay to it and spend of it (and per tx), in the mempool's order. */
  gross(): {
    sums: Map<string, { received: bigint; sent: bigint }>;
    perTx: { txid: string; script: string; received: bigint; sent: bigint }[];
  } {
    const coins = new Map(this.confirmed);
    const sums = new Map<string, { received: bigint; sent: bigint }>();
    const perTx: { txid: string; script: string; received: bigint; sent: bigint }[] = [];
    for (const [txid, tx] of this.mempool) {
      const mine = new Map<string, { received: bigint; sent: bigint }>();
      const at = (script: Buffer) => {
        const hex = script.toString('hex');
        if (!mine.has(hex)) mine.set(hex, { received: 0n, sent: 0n });
        return mine.get(hex)!;
      };
      for (const i of tx.inputs) {
        const coin = coins.get(id(i.prevTxid, i.vout))!;
        at(coin.script).sent += coin.value;
      }
      tx.outputs.forEach((o, v) => {
        if (o.script[0] === 0x6a) return;
        coins.set(id(tx.txid, v), o);
        at(o.script).received += o.value;
      });
      for (const [script, e] of mine) {
        perTx.push({ txid, script, ...e });
        const sum = sums.get(script) ?? { received: 0n, sent: 0n };
        sums.set(script, { received: sum.received + e.received, sent: sum.sent + e.sent });
      }
    }
    return { sums, perTx };
  }

  /** Per script: balance and count once the whole mempool is mined, and held txs touching it. */
  final(): Map<string, { balance: bigint; count: number; txs: number }> {
    const coins = new Map(this.confirmed);
    const touches = new Map<string, number>();
    for (const tx of this.mempool.values()) {
      const touched = new Set<string>();
      for (const i of tx.inputs) {
        const k = id(i.prevTxid, i.vout);
        touched.add(coins.get(k)!.script.toString('hex'));
        coins.delete(k);
      }
      tx.outputs.forEach((o, v) => {
        if (o.script[0] === 0x6a) return;
        coins.set(id(tx.txid, v), o);
        touched.add(o.script.toString('hex'));
      });
      for (const s of touched) touches.set(s, (touches.get(s) ?? 0) + 1);
    }
    const out = new Map<string, { balance: bigint; count: number; txs: number }>();
    for (const c of coins.values()) {
      const e = out.get(c.script.toString('hex')) ?? { balance: 0n, count: 0, txs: 0 };
      e.balance += c.value;
      e.count += 1;
      out.set(c.script.toString('hex'), e);
    }
    for (const [s, n] of touches) {
      const e = out.get(s) ?? { balance: 0n, count: 0, txs: 0 };
      e.txs = n;
      out.set(s, e);
    }
    return out;
  }
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

function runScenario(seed: number, steps: number, history: boolean): void {
  const rng = new Rng(seed);
  const scripts = [p2pkh(rng), p2wpkh(rng), p2pkh(rng), p2wpkh(rng), p2wpkh(rng)];
  const dir = mkdtempSync(join(tmpdir(), 'addrsum-mempool-'));
  const file = join(dir, 'm.sqlite');
  const store = ChainStore.open(file, { chain: 'BTC', network: 'regtest' });
  if (history) store.setHistory(true);
  const reader = ChainReader.open(file);
  const node = new NodeModel();
  const chain = new ChainBuilder(rng);
  const connect = (txs: ParsedTx[]): void => {
    const block = chain.block(txs);
    store.applyBlocks([block]);
    node.connect(txs);
  };
  const pick = <T>(items: readonly T[]): T => items[rng.int(items.length)]!;
  const outputsFor = (total: number): Out[] => {
    const n = 1 + rng.int(3);
    const outs: Out[] = [];
    let left = total - 1000; // fee
    for (let k = 0; k < n && left > 0; k++) {
      const v = k === n - 1 ? left : 1 + rng.int(left);
      outs.push({ script: pick(scripts), value: v });
      left -= v;
    }
    if (rng.chance(15)) outs.push({ script: opReturn(), value: 0 });
    return outs;
  };
  const newTx = (coins: Array<[string, Coin]>): ParsedTx => {
    const total = coins.reduce((s, [, c]) => s + Number(c.value), 0);
    const refs = coins.map(([k]) => ({ txid: Buffer.from(k.split(':')[0]!, 'hex'), vout: Number(k.split(':')[1]) }));
    return spendTx(refs, outputsFor(total), { txid: randomHash(rng) });
  };
  try {
    connect([]); // genesis connects nothing
    for (let h = 0; h < 6; h++)
      connect([
        coinbaseTx(
          scripts.map((s) => ({ script: s, value: 5_000_000 + rng.int(1000) })),
          randomHash(rng),
        ),
      ]);
    for (let step = 0; step < steps; step++) {
      const op = rng.int(100);
      if (op < 45) {
        // A burst of new transactions, reported in a shuffled order (parents after children at times).
        const burst: ParsedTx[] = [];
        for (let k = 1 + rng.int(4); k > 0; k--) {
          const free = node.spendable().filter(([, c]) => c.value > 2000n);
          if (free.length === 0) break;
          const tx = newTx(shuffle(rng, free).slice(0, 1 + rng.int(2)));
          node.accept(tx);
          burst.push(tx);
        }
        const r = store.mempool.add(shuffle(rng, burst));
        expect(r.unresolved).toEqual([]);
      } else if (op < 55 && node.mempool.size > 0) {
        // Replacement: a new transaction spends one input of a held one (RBF, or a double spend).
        const victim = pick([...node.mempool.values()]);
        const input = pick(victim.inputs);
        const k = id(input.prevTxid, input.vout);
        const coin =
          node.confirmed.get(k) ??
          [...node.mempool.values()].flatMap((t) => t.outputs.map((o, v) => [id(t.txid, v), o] as const)).find(([x]) => x === k)![1];
        const tx = newTx([[k, coin]]);
        node.accept(tx);
        store.mempool.add([tx]);
      } else if (op < 65 && node.mempool.size > 0) {
        // Eviction or expiry: the node drops a transaction and its descendants and reports each one.
        const victim = pick([...node.mempool.keys()]);
        const before = new Set(node.mempool.keys());
        node.removeWithDescendants(victim);
        const gone = [...before].filter((t) => !node.mempool.has(t));
        store.mempool.remove(shuffle(rng, gone).map((t) => Buffer.from(t, 'hex')));
      } else if (op < 85) {
        // A block mining a prefix of the mempool (ancestors first) and, sometimes, a conflicting spend.
        const held = [...node.mempool.values()];
        const mined = held.slice(0, rng.int(held.length + 1));
        const txs: ParsedTx[] = [coinbaseTx([{ script: pick(scripts), value: 5_000_000 }], randomHash(rng)), ...mined];
        const minedIds = new Set(mined.map((t) => t.txid.toString('hex')));
        const rest = held.filter((t) => !minedIds.has(t.txid.toString('hex')));
        const confirmedInput = rest.flatMap((t) => t.inputs).find((i) => node.confirmed.has(id(i.prevTxid, i.vout)));
        if (confirmedInput && rng.chance(60)) {
          const k = id(confirmedInput.prevTxid, confirmedInput.vout);
          txs.push(newTx([[k, node.confirmed.get(k)!]]));
        }
        connect(txs);
      } else if (op < 92 && chain.height > 7) {
        // Rollback: the view empties with the block; the follower re-reads the node's mempool.
        store.rollbackTip();
        chain.blocks.pop();
        node.disconnect();
        expect(store.mempool.size).toBe(0);
        store.mempool.add(shuffle(rng, [...node.mempool.values()]));
      }
      check(node, reader, scripts, store, history);
    }
    if (history) {
      store.setHistory(false);
      check(node, reader, scripts, store, false);
    }
  } finally {
    reader.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function check(node: NodeModel, reader: ChainReader, scripts: Buffer[], store: ChainStore, history: boolean): void {
  const final = node.final();
  const gross = node.gross();
  const views = reader.views(scripts, true)!;
  scripts.forEach((s, i) => {
    const v = views.items[i]!;
    const want = final.get(s.toString('hex')) ?? { balance: 0n, count: 0, txs: 0 };
    expect({
      balance: v.balanceSats + v.unconfirmed!.balanceSats,
      count: v.utxoCount + v.unconfirmed!.utxoCount,
      txs: v.unconfirmed!.txCount,
    }).toEqual(want);
    // Received and sent beside confirmed history only; their difference is the Δ balance either way.
    const sums = gross.sums.get(s.toString('hex')) ?? { received: 0n, sent: 0n };
    const { received, sent } = v.unconfirmed!;
    expect({ received, sent }).toEqual(history ? sums : { received: undefined, sent: undefined });
    expect(v.unconfirmed!.balanceSats).toBe(sums.received - sums.sent);
  });
  // With history, one mempool_history row per held transaction and script it touches, with its figures.
  const entries = store.db.prepare('SELECT hex(txid) AS txid, script_key, received, sent FROM mempool_history').all() as {
    txid: string;
    script_key: Buffer;
    received: number;
    sent: number;
  }[];
  const keyed = new Map(scripts.map((s) => [scriptKey(s).toString('hex'), s.toString('hex')]));
  const got = entries
    .map((r) => `${Buffer.from(r.txid, 'hex').toString('hex')} ${keyed.get(r.script_key.toString('hex'))} ${r.received} ${r.sent}`)
    .sort();
  const want = history ? gross.perTx.map((e) => `${e.txid} ${e.script} ${e.received} ${e.sent}`).sort() : [];
  expect(got).toEqual(want);
  expect(store.mempool.size).toBe(node.mempool.size);
  const held = [...store.mempool.txids()].map((t) => t.toString('hex')).sort();
  expect(held).toEqual([...node.mempool.keys()].sort());
  // No leftover rows: scripts without a held transaction have no row.
  const rows = store.db.prepare('SELECT COUNT(*) FROM mempool_scripts').pluck().get() as number;
  expect(rows).toBe([...final.values()].filter((e) => e.txs > 0).length);
  const spends = store.db.prepare('SELECT COUNT(*) FROM mempool_spends').pluck().get() as number;
  expect(spends).toBe([...node.mempool.values()].reduce((n, t) => n + t.inputs.length, 0));
}

describe('mempool view', () => {
  it('equals what the node mempool implies through chains, replacements, evictions, blocks and rollbacks', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) runScenario(seed, 150, false);
  });

  it('keeps received, sent and each script’s transactions while history is kept, and forgets them when it stops', () => {
    for (const seed of [11, 12, 13, 14]) runScenario(seed, 150, true);
  });

  it('transactions whose inputs are unknown wait (unresolved), MWEB-only transactions change nothing', () => {
    const store = ChainStore.open(':memory:', { chain: 'LTC', network: 'regtest' });
    const orphan = spendTx([{ txid: randomHash(), vout: 0 }], [{ script: p2pkh(), value: 10 }]);
    const r = store.mempool.add([orphan]);
    expect(r).toMatchObject({ added: 0, unresolved: [orphan] });
    const mwebOnly: ParsedTx = { txid: randomHash(), inputs: [], outputs: [], coinbase: false, hogEx: false, mweb: true };
    expect(store.mempool.add([mwebOnly]).added).toBe(1);
    expect(store.db.prepare('SELECT COUNT(*) FROM mempool_scripts').pluck().get()).toBe(0);
    expect(store.mempool.add([mwebOnly]).known).toBe(1);
    expect(store.mempool.remove([mwebOnly.txid])).toBe(1);
    store.close();
  });

  it('effect records round-trip, negative counts and wide amounts included', () => {
    const effect = {
      inputs: [Buffer.alloc(33, 1), Buffer.alloc(36, 2)],
      scripts: [
        { key: scriptKey(p2pkh()), received: 0n, sent: 8_400_000_000_000_000n, count: -3 },
        { key: scriptKey(p2wpkh()), received: 2_100_000_000_000_000n, sent: 7n, count: 1 },
      ],
    };
    expect(decodeEffect(encodeEffect(effect))).toEqual(effect);
  });

  it('a transaction’s effect keeps what it pays and spends per script: change back to a spent script is both', () => {
    const [a, b] = [scriptKey(p2pkh()), scriptKey(p2wpkh())];
    const op = (n: number) => Buffer.alloc(33, n);
    const effect = txEffect(
      [
        { outpoint: op(1), key: a, value: 70n },
        { outpoint: op(2), key: a, value: 30n },
      ],
      [
        { key: b, value: 55n },
        { key: a, value: 40n },
        { key: b, value: 1n },
      ],
    );
    expect(effect).toEqual({
      inputs: [op(1), op(2)],
      scripts: [
        { key: a, received: 40n, sent: 100n, count: -1 },
        { key: b, received: 56n, sent: 0n, count: 2 },
      ],
    });
    expect(effect.scripts.map(netOf)).toEqual([-60n, 56n]);
    expect(txEffect([], [])).toEqual({ inputs: [], scripts: [] });
  });
});
