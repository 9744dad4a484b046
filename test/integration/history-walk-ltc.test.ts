/**
 * The history oracle (test/support/history-walk.ts) checked against litecoind itself before any index
 * is compared with it: what the walk says each script still holds must be what the node's UTXO set
 * holds (`scantxoutset` per address and per address-less script, `gettxoutsetinfo` in total), and the
 * double-pay transaction, whose amounts the chain builder fixed, must be one entry with both outputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { PLANNED_KINDS, addressesOfKind } from '../../harness/regtest-chain.js';
import { cachedHistoryChain, type HistoryChain } from '../support/history-chain.js';
import { coinsText, satsOf, walkHistory, type HistoryWalk } from '../support/history-walk.js';

interface ScanReply {
  success: boolean;
  bestblock: string;
  unspents: { scriptPubKey: string; amount: string }[];
}

describe('history walk against a real litecoind', () => {
  let node: Litecoind;
  let chain: HistoryChain;
  let walk: HistoryWalk;

  beforeAll(async () => {
    const cached = await cachedHistoryChain({ seed: 23 });
    chain = cached.value;
    node = await startLitecoind({ from: cached.template });
    walk = await walkHistory(node.cliExact);
  }, 300_000);

  afterAll(async () => {
    await node?.stop();
  });

  it('reads amounts exactly', () => {
    expect(satsOf('12.49998370')).toBe(1_249_998_370n);
    expect(satsOf('0.00000001')).toBe(1n);
    expect(satsOf(0.1)).toBe(10_000_000n);
    expect(satsOf(20_999_999.9769)).toBe(2_099_999_997_690_000n);
    expect(() => satsOf(84_000_000)).toThrow(RangeError);
    expect(coinsText(1_249_998_370n)).toBe('12.49998370');
    expect(coinsText(-1n)).toBe('-0.00000001');
  });

  it('leaves every address and script with what scantxoutset finds', async () => {
    const all = [...walk.scripts.values()];
    const scan = await node.cliExact<ScanReply>(
      'scantxoutset',
      'start',
      all.map((s) => (s.address !== null ? `addr(${s.address})` : `raw(${s.script})`)),
    );
    expect(scan.success).toBe(true);
    expect(scan.bestblock).toBe(walk.tipHash);
    const held = new Map<string, { sats: bigint; utxos: number }>();
    for (const u of scan.unspents) {
      const f = held.get(u.scriptPubKey) ?? { sats: 0n, utxos: 0 };
      f.sats += satsOf(u.amount);
      f.utxos++;
      held.set(u.scriptPubKey, f);
    }
    const wrong: string[] = [];
    for (const s of all) {
      const f = held.get(s.script) ?? { sats: 0n, utxos: 0 };
      if (s.receivedSats - s.sentSats !== f.sats || s.fundedOutputs - s.spentOutputs !== f.utxos) {
        wrong.push(
          `${s.address ?? s.script.slice(0, 40)}: walk ${s.receivedSats - s.sentSats}/${s.fundedOutputs - s.spentOutputs}, node ${f.sats}/${f.utxos}`,
        );
      }
    }
    expect(wrong).toEqual([]);
    expect(walk.addresses.size).toBeGreaterThan(6 * 24);
  });

  it('accounts for the whole UTXO set, and nothing unspendable', async () => {
    const info = await node.cliExact<{ bestblock: string; txouts: number; total_amount: string }>('gettxoutsetinfo', 'none');
    expect(info.bestblock).toBe(walk.tipHash);
    let sats = 0n;
    let utxos = 0;
    for (const s of walk.scripts.values()) {
      sats += s.receivedSats - s.sentSats;
      utxos += s.fundedOutputs - s.spentOutputs;
    }
    expect({ sats, utxos }).toEqual({ sats: satsOf(info.total_amount), utxos: info.txouts });
    for (const s of chain.manifest.special) expect(walk.scripts.has(s.script), s.kind).toBe(s.spendable);
  });

  it('counts the double-pay transaction once, with both outputs', () => {
    const dp = chain.doublePay;
    const history = walk.historyOf(dp.address);
    expect(history.filter((e) => e.txid === dp.txid)).toEqual([
      { txid: dp.txid, height: dp.height, position: dp.position, receivedSats: dp.paidSats[0] + dp.paidSats[1], sentSats: dp.fundedSats },
    ]);
    // Newest first: the child (same block, later position) before its parent, the funding after both.
    expect(history.slice(0, 3).map((e) => [e.txid, e.height, e.position])).toEqual([
      [dp.childTxid, dp.height, dp.childPosition],
      [dp.txid, dp.height, dp.position],
      [expect.any(String), dp.height - 1, expect.any(Number)],
    ]);
    expect(history[0]).toMatchObject({ receivedSats: 0n, sentSats: dp.paidSats[0] });
    expect(walk.totalsOf(dp.address)).toMatchObject({ txCount: history.length, fundedOutputs: 3, spentOutputs: 2 });
  });

  it('keeps one entry per transaction, newest first, for every script', () => {
    const wrong: string[] = [];
    for (const s of walk.scripts.values()) {
      const h = walk.historyOfScript(s.script);
      const ordered = h.every(
        (e, i) => i === 0 || e.height < h[i - 1]!.height || (e.height === h[i - 1]!.height && e.position < h[i - 1]!.position),
      );
      const sum = (f: (e: (typeof h)[number]) => bigint) => h.reduce((a, e) => a + f(e), 0n);
      if (
        !ordered ||
        new Set(h.map((e) => e.txid)).size !== h.length ||
        h.length !== s.txCount ||
        sum((e) => e.receivedSats) !== s.receivedSats ||
        sum((e) => e.sentSats) !== s.sentSats ||
        h.some((e) => e.height < 1 || e.height > walk.tipHeight)
      ) {
        wrong.push(s.address ?? s.script.slice(0, 40));
      }
    }
    expect(wrong).toEqual([]);
  });

  it('covers coinbases and spends of every address kind', () => {
    for (const kind of PLANNED_KINDS) {
      const histories = addressesOfKind(chain.manifest, kind).map((a) => walk.historyOf(a.address));
      expect(
        histories.some((h) => h.some((e) => e.sentSats > 0n)),
        `${kind} spent`,
      ).toBe(true);
      expect(
        histories.some((h) => h.some((e) => e.position === 0 && e.receivedSats > 0n)),
        `${kind} coinbase`,
      ).toBe(true);
    }
  });

  it('treats MWEB peg-ins and the HogEx as ordinary outputs and inputs', async () => {
    const pegIns = [...walk.scripts.values()].filter((s) => s.script.startsWith('5920'));
    expect(pegIns.length).toBeGreaterThanOrEqual(2);
    const txCounts = new Map<number, number>();
    const lastPosition = async (height: number): Promise<number> => {
      if (!txCounts.has(height)) {
        const block = await node.cli<{ tx: string[] }>('getblock', await node.cli<string>('getblockhash', height), 1);
        txCounts.set(height, block.tx.length);
      }
      return (txCounts.get(height) as number) - 1;
    };
    for (const p of pegIns) {
      // Each peg-in is spent by the HogEx of its own block: funded by a user's transaction, then gone.
      const [spend, fund] = walk.historyOfScript(p.script);
      expect(p).toMatchObject({ txCount: 2, fundedOutputs: 1, spentOutputs: 1, sentSats: p.receivedSats });
      expect(spend!.height).toBe(fund!.height);
      expect(spend!.position).toBe(await lastPosition(spend!.height));
    }
    const pegOutBlock = await node.cli<{ height: number; tx: string[] }>('getblock', chain.manifest.blocks.pegOut, 1);
    const paidByHogEx = [...walk.scripts.values()].filter((s) =>
      s.entries.some((e) => e.height === pegOutBlock.height && e.position === pegOutBlock.tx.length - 1 && e.receivedSats > 0n),
    );
    // HogAddr plus one peg-out to an address of every planned kind.
    expect(paidByHogEx.filter((s) => s.address !== null).length).toBeGreaterThanOrEqual(PLANNED_KINDS.length);
  });
});
