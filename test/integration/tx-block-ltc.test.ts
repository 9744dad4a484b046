/**
 * The transaction and block views against a real `litecoind -regtest` kept without -txindex (issue 45):
 * on a varied chain (every address kind, coinbases, MWEB peg-ins, HogEx peg-outs, a transaction paying
 * one address twice, many inputs), indexed with history while SIGKILLed during catch-up, every
 * transaction of every block answers what the node's `getblock … 2` says of it (decoderawtransaction's
 * fields), with each prevout taken from its funding transaction in that walk and fee = inputs − outputs;
 * every block answers what `getblock … 1` and `getblockheader` say; merkle proofs fold to the header's
 * root. Mempool transactions answer unconfirmed, an RBF-replaced one 404; after a reorg a dropped
 * transaction answers unconfirmed or 404. Bad ids get their codes, and with the node stopped the views
 * answer 503 NODE_UNAVAILABLE while the process lives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { waitFor } from '../../harness/indexer-process.js';
import type { ApiProcess } from '../../harness/api-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { mine } from '../../harness/regtest-chain.js';
import { coins, feeFor, walletUtxos } from '../../harness/regtest-wallet.js';
import { fromDisplayHex, toDisplayHex } from '../../src/chain/hash.js';
import { foldBranch } from '../../src/chain/merkle.js';
import { walkChain, type NodeVout, type Walk, type Walked } from '../support/chain-walk.js';
import { cachedHistoryChain } from '../support/history-chain.js';
import { satsOf } from '../support/history-walk.js';

const HISTORY_ON = { ADDRSUM_HISTORY: 'true' };
const FAST = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

/** The node's address of an output as this API shows it: none for scripts whose address is another script's. */
function nodeAddress(v: NodeVout): string | null {
  if (v.scriptPubKey.type === 'pubkey' || v.scriptPubKey.type === 'multisig') return null;
  return v.scriptPubKey.address ?? v.scriptPubKey.addresses?.[0] ?? null;
}

const outputOf = (v: NodeVout) => ({
  valueSatoshi: Number(satsOf(v.value)),
  scriptPubKey: v.scriptPubKey.hex,
  type: v.scriptPubKey.type,
  address: nodeAddress(v),
});

/** What the view must say of `tx`, computed from the node's walk alone. */
function expectedView(w: Walked, { txs, spentBy }: Walk, tipHeight: number) {
  const { tx, block, position } = w;
  const prevouts = tx.vin.map((i) => (i.coinbase !== undefined ? null : txs.get(i.txid!)!.tx.vout[i.vout!]!));
  const coinbase = tx.vin[0]?.coinbase !== undefined;
  const fee = coinbase ? null : prevouts.reduce((s, p) => s + satsOf(p!.value), 0n) - tx.vout.reduce((s, o) => s + satsOf(o.value), 0n);
  return {
    txid: tx.txid,
    wtxid: tx.hash,
    version: tx.version,
    locktime: tx.locktime,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    coinbase,
    feeSatoshi: fee === null ? null : Number(fee),
    inputs: tx.vin.map((i, n) => ({
      txid: i.txid ?? null,
      vout: i.vout ?? null,
      scriptSig: i.coinbase ?? i.scriptSig?.hex ?? '',
      sequence: i.sequence,
      witness: i.txinwitness ?? [],
      prevout: prevouts[n] === null ? null : outputOf(prevouts[n]!),
    })),
    outputs: tx.vout.map((v) => ({ n: v.n, ...outputOf(v), spent: spentBy.get(`${tx.txid}:${v.n}`) ?? null })),
    status: {
      confirmed: true,
      height: block.height,
      blockHash: block.hash,
      blockTime: block.time,
      position,
      confirmations: tipHeight - block.height + 1,
    },
  };
}

/** The view's fields the walk can check (amounts in coins are checked against the satoshis once, below). */
function comparable(data: Record<string, unknown>) {
  const out = (o: Record<string, unknown>) => ({
    valueSatoshi: o.valueSatoshi,
    scriptPubKey: o.scriptPubKey,
    type: o.type,
    address: o.address,
  });
  const d = data as {
    inputs: Record<string, unknown>[];
    outputs: Record<string, unknown>[];
  } & Record<string, unknown>;
  return {
    txid: d.txid,
    wtxid: d.wtxid,
    version: d.version,
    locktime: d.locktime,
    size: d.size,
    vsize: d.vsize,
    weight: d.weight,
    coinbase: d.coinbase,
    feeSatoshi: d.feeSatoshi,
    inputs: d.inputs.map((i) => ({
      txid: i.txid,
      vout: i.vout,
      scriptSig: i.scriptSig,
      sequence: i.sequence,
      witness: i.witness,
      prevout: i.prevout === null ? null : out(i.prevout as Record<string, unknown>),
    })),
    outputs: d.outputs.map((o) => ({ n: o.n, ...out(o), spent: o.spent })),
    status: d.status,
  };
}

describe('transaction and block views against a real litecoind without -txindex', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let api: ApiProcess;
  let apiKey: string;

  beforeAll(async () => {
    lw = await LitecoindWorld.start({ litecoind: { from: (await cachedHistoryChain({ seed: 23 })).template } });
    node = lw.node;
    apiKey = lw.world.createKey('views');
  }, 300_000);

  afterAll(async () => {
    await lw?.close();
  });

  /** An answer, with its error code wherever JSend puts it (`data.code` for fail, `code` for error). */
  const get = async (path: string): Promise<{ status: number; code: unknown; body: { status: string; data: Record<string, unknown> } }> => {
    const res = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': apiKey } });
    const body = JSON.parse(await res.text()) as { status: string; code?: string; data?: Record<string, unknown> };
    return { status: res.status, code: body.data?.code ?? body.code, body: { status: body.status, data: body.data ?? {} } };
  };

  /** Every transaction's view equals the walk's; returns how many of each kind were seen. */
  async function expectEveryTxEqualsWalk(phase: string): Promise<Record<string, number>> {
    const walk = await walkChain(node);
    const { blocks, txs } = walk;
    const tipHeight = blocks.length - 1;
    const wrong: unknown[] = [];
    const seen = { txs: 0, coinbase: 0, hogEx: 0, pegIn: 0, manyInputs: 0, outspends: 0 };
    for (const w of txs.values()) {
      // Core never serves the genesis coinbase (it is in no UTXO set and no history).
      if (w.block.height === 0) {
        expect((await get(`/api/v1/LTC/tx/${w.tx.txid}`)).code).toBe('TX_NOT_FOUND');
        continue;
      }
      const { status, body } = await get(`/api/v1/LTC/tx/${w.tx.txid}`);
      const want = expectedView(w, walk, tipHeight);
      const got = status === 200 ? comparable(body.data) : { status, body };
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push({ want, got });
      seen.txs++;
      if (want.coinbase) seen.coinbase++;
      if ((body.data.mweb as { hogEx?: boolean } | undefined)?.hogEx) seen.hogEx++;
      if (w.tx.vout.some((v) => v.scriptPubKey.type === 'witness_mweb_pegin')) seen.pegIn++;
      if (w.tx.vin.length >= 3) seen.manyInputs++;
    }
    if (process.env.DEBUG_VIEWS)
      console.log(
        api
          .output()
          .split('\n')
          .filter((l) => /"level":50|error/i.test(l))
          .slice(0, 5)
          .join('\n'),
      );
    expect(wrong.slice(0, 3), `${phase}: ${wrong.length} of ${seen.txs} transactions differ`).toEqual([]);
    // …/outspends says what `spent` says, for a sample of every kind of transaction.
    for (const w of [...txs.values()].filter((_, i) => i % 7 === 1)) {
      const { body } = await get(`/api/v1/LTC/tx/${w.tx.txid}/outspends`);
      expect(body.data.outspends, w.tx.txid).toEqual(expectedView(w, walk, tipHeight).outputs.map((o) => o.spent));
      seen.outspends++;
    }
    return seen;
  }

  it('catches up with history while SIGKILLed; every transaction equals the node, prevouts and fee from its funding transactions', async () => {
    expect(await lw.world.killDuringCatchUp(2, () => undefined, HISTORY_ON)).toBeGreaterThanOrEqual(2);
    await lw.world.startIndexer({ env: HISTORY_ON });
    await lw.world.waitForTip('catch-up with history', 120_000);
    api = await lw.world.startApi(FAST);
    const seen = await expectEveryTxEqualsWalk('catch-up');
    expect(seen.coinbase).toBeGreaterThan(400);
    expect(seen.hogEx).toBeGreaterThan(0);
    expect(seen.pegIn).toBeGreaterThan(0);
    expect(seen.manyInputs).toBeGreaterThan(0);
  }, 400_000);

  it('writes amounts in coins with 8 decimals, the fee rate as Core computes it, and the raw form as the node holds it', async () => {
    const { txs } = await walkChain(node);
    const w = [...txs.values()].find((t) => t.tx.vin.length >= 2 && t.tx.vin[0]!.coinbase === undefined)!;
    const res = await fetch(`${api.url}/api/v1/LTC/tx/${w.tx.txid}`, { headers: { 'x-api-key': apiKey } });
    const text = await res.text();
    const v = w.tx.vout[0]!;
    expect(text).toContain(`"valueSatoshi":${satsOf(v.value)},"value":${v.value}`);
    const data = JSON.parse(text).data as { feeSatoshi: number; vsize: number; feePerKvbSatoshi: number };
    expect(data.feePerKvbSatoshi).toBe(Math.floor((data.feeSatoshi * 1000) / data.vsize));
    const hex = await get(`/api/v1/LTC/tx/${w.tx.txid}/hex`);
    expect(hex.body.data.hex).toBe(w.tx.hex);
  }, 120_000);

  it('every block equals getblock and getblockheader; txids page in order; the tip is the tip', async () => {
    const { blocks } = await walkChain(node);
    const wrong: unknown[] = [];
    for (const b of blocks) {
      const header = await node.cliExact<{ mediantime: number; difficulty: string }>('getblockheader', b.hash);
      const want = {
        hash: b.hash,
        height: b.height,
        version: b.version,
        time: b.time,
        medianTime: header.mediantime,
        bits: b.bits,
        nonce: b.nonce,
        difficulty: Number(header.difficulty),
        merkleRoot: b.merkleroot,
        previousBlockHash: b.previousblockhash ?? null,
        nextBlockHash: b.nextblockhash ?? null,
        confirmations: b.confirmations,
        txCount: b.nTx,
        size: b.size,
        strippedSize: b.strippedsize,
        weight: b.weight,
      };
      for (const id of [String(b.height), b.hash]) {
        const { status, body } = await get(`/api/v1/LTC/block/${id}`);
        const { chain, ...got } = body.data;
        if (status !== 200 || chain !== 'LTC' || JSON.stringify(got) !== JSON.stringify(want)) wrong.push({ id, want, got: body });
      }
    }
    expect(wrong.slice(0, 2), `${wrong.length} block answers differ`).toEqual([]);
    const tip = await get('/api/v1/LTC/blocks/tip');
    expect(tip.body.data.hash).toBe(blocks.at(-1)!.hash);
    const busiest = blocks.reduce((a, b) => (b.nTx > a.nTx ? b : a));
    expect(busiest.nTx).toBeGreaterThan(3);
    const listed: string[] = [];
    for (let start: number | null = 0; start !== null;) {
      const page = await get(`/api/v1/LTC/block/${busiest.hash}/txids?limit=2&start=${start}`);
      listed.push(...(page.body.data.txids as string[]));
      start = page.body.data.next as number | null;
    }
    expect(listed).toEqual(busiest.tx.map((t) => t.txid));
  }, 300_000);

  it("merkle proofs fold to the header's merkle root", async () => {
    const { blocks } = await walkChain(node);
    const busiest = blocks.reduce((a, b) => (b.nTx > a.nTx ? b : a));
    for (const [position, tx] of busiest.tx.entries()) {
      const { status, body } = await get(`/api/v1/LTC/tx/${tx.txid}/merkle-proof`);
      expect(status).toBe(200);
      expect(body.data).toMatchObject({ blockHeight: busiest.height, blockHash: busiest.hash, position });
      const root = foldBranch(fromDisplayHex(tx.txid), position, (body.data.merkle as string[]).map(fromDisplayHex));
      expect(toDisplayHex(root)).toBe(busiest.merkleroot);
    }
  }, 120_000);

  it('bad and unknown ids get their codes', async () => {
    const cases: [string, number, string][] = [
      ['/api/v1/LTC/tx/nothex', 400, 'INVALID_TXID'],
      [`/api/v1/LTC/tx/${'0'.repeat(64)}`, 404, 'TX_NOT_FOUND'],
      ['/api/v1/LTC/block/-1', 400, 'INVALID_BLOCK_ID'],
      ['/api/v1/LTC/block/12ab', 400, 'INVALID_BLOCK_ID'],
      ['/api/v1/LTC/block/99999999', 404, 'BLOCK_NOT_FOUND'],
      [`/api/v1/LTC/block/${'0'.repeat(64)}`, 404, 'BLOCK_NOT_FOUND'],
      [`/api/v1/LTC/block/${'0'.repeat(64)}/txids`, 404, 'BLOCK_NOT_FOUND'],
      ['/api/v1/LTC/block/0/txids?start=x', 400, 'BAD_REQUEST'],
      [`/api/v1/BTC/tx/${'0'.repeat(64)}`, 503, 'CHAIN_UNAVAILABLE'],
    ];
    for (const [path, status, code] of cases) {
      const got = await get(path);
      expect({ path, status: got.status, code: got.code }).toEqual({ path, status, code });
      expect(got.body.status).toBe(status < 500 ? 'fail' : 'error');
    }
  }, 60_000);

  it('mempool transactions answer unconfirmed; one replaced by a double spend 404; a reorg-dropped one unconfirmed or 404', async () => {
    // Two spends of one coin: the first relayed, then forgotten by a node restarted without its mempool
    // (and without the wallet's rebroadcast), the second relayed and mined in its place. Litecoin Core
    // relays no BIP125 replacements, so this is how a replaced transaction happens to it.
    const [coin] = (await walletUtxos(node)).filter((u) => u.sats > 10_000_000);
    if (coin === undefined) throw new Error('the wallet has no coin to spend');
    const spend = async (fee: number): Promise<string> => {
      const to = await node.cli<string>('getnewaddress', '', 'bech32');
      const unsigned = await node.cli<string>(
        'createrawtransaction',
        [{ txid: coin.txid, vout: coin.vout }],
        [{ [to]: coins(coin.sats - fee) }],
      );
      const signed = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', unsigned);
      if (!signed.complete) throw new Error('the wallet could not sign');
      return signed.hex;
    };
    const replacement = await spend(2 * feeFor(1, 1));
    const first = await node.cli<string>('sendrawtransaction', await spend(feeFor(1, 1)), 0);
    let pending: Awaited<ReturnType<typeof get>> | undefined;
    await waitFor('the mempool transaction', async () => (pending = await get(`/api/v1/LTC/tx/${first}`)).status === 200, 30_000);
    if (pending === undefined) throw new Error('unreachable');
    expect(pending.body.data.status).toEqual({ confirmed: false });
    expect(pending.body.data.feeSatoshi).toBe(feeFor(1, 1));

    await node.restart({ extraArgs: ['-persistmempool=0', '-walletbroadcast=0'] });
    const replacementTxid = await node.cli<string>('sendrawtransaction', replacement, 0);
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    const [minedIn] = await mine(node, 1, miner);
    await lw.world.waitForTip('the block with the replacement', 60_000);
    await waitFor('the replaced transaction gone', async () => (await get(`/api/v1/LTC/tx/${first}`)).status === 404, 30_000);
    expect((await get(`/api/v1/LTC/tx/${replacementTxid}`)).body.data.status).toMatchObject({ confirmed: true, blockHash: minedIn });
    await node.cli('invalidateblock', minedIn);
    // Another address: the same coinbase in the same second would remake the invalidated block.
    await mine(node, 2, await node.cli<string>('getnewaddress', '', 'legacy'));
    await lw.world.waitForTip('the reorg', 60_000);
    const after = await get(`/api/v1/LTC/tx/${replacementTxid}`);
    if (after.status === 200) expect((after.body.data.status as { confirmed: boolean; blockHash?: string }).blockHash).not.toBe(minedIn);
    else expect(after.code).toBe('TX_NOT_FOUND');
    await expectEveryTxEqualsWalk('after the reorg');
  }, 300_000);

  it('with the node stopped the views answer 503 NODE_UNAVAILABLE and the process lives', async () => {
    const { txs } = await walkChain(node);
    const some = [...txs.keys()].at(-1)!;
    const hash = await node.cli<string>('getbestblockhash');
    await node.stop();
    const got = await get(`/api/v1/LTC/tx/${some}`);
    // The cache may hold it (nothing asked of the node); a miss must be the node's 503.
    if (got.status !== 200) expect({ status: got.status, code: got.code }).toEqual({ status: 503, code: 'NODE_UNAVAILABLE' });
    const block = await get(`/api/v1/LTC/block/${hash}`);
    expect({ status: block.status, code: block.code }).toEqual({ status: 503, code: 'NODE_UNAVAILABLE' });
    const health = await fetch(`${api.url}/health`);
    expect(health.status).toBe(200);
  }, 120_000);
});
