/**
 * Tests of the test world itself: the regtest chain builder (test/support/btc-chain.ts) must produce
 * blocks a node would accept script- and structure-wise, and its own UTXO model must agree with a
 * from-scratch replay of the serialized blocks; the fake node must answer like bitcoind.
 */
import { createHash } from 'node:crypto';
import { address as bjsAddress, Block, networks, script as bscript, Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_KINDS, BtcChain, type BtcBlock } from '../support/btc-chain.js';
import { checkInput, ScriptCheckError, type CheckPrevout, type SpendTemplate } from '../support/btc-script-check.js';
import { startFakeNode, type FakeNode } from '../support/fake-node.js';

/** Bitcoin Core chainparams.cpp (CRegTestParams): regtest genesis hash and merkle root. */
const CORE_REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const CORE_GENESIS_MERKLE = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

const sha256d = (b: Uint8Array): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const rev = (b: Uint8Array): string => Buffer.from(b).reverse().toString('hex');
const idOf = (input: { hash: Uint8Array; index: number }): string => `${rev(input.hash)}:${input.index}`;

/** Our own merkle root (Core's ComputeMerkleRoot: duplicate the odd last hash), not bitcoinjs's. */
function merkle(leaves: Buffer[]): Buffer {
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as Buffer;
      next.push(sha256d(Buffer.concat([a, level[i + 1] ?? a])));
    }
    level = next;
  }
  return level[0] as Buffer;
}

/** Core's IsUnspendable, written out again here so the replay does not share the builder's copy. */
const unspendable = (s: Uint8Array): boolean => (s.length > 0 && s[0] === 0x6a) || s.length > 10_000;

interface Replay {
  utxos: Map<string, { script: string; value: number }>;
  templates: Map<SpendTemplate, number>;
  sameBlockSpends: number;
  outputs: Map<string, number>; // script hex → outputs paid on the active chain
}

/** Second, independent path to the UTXO set: parse every active block and connect it. */
function replay(blocks: readonly BtcBlock[]): Replay {
  const utxos = new Map<string, { script: string; value: number; coinbaseHeight?: number }>();
  const templates = new Map<SpendTemplate, number>();
  const outputs = new Map<string, number>();
  let sameBlockSpends = 0;
  for (const rec of blocks) {
    const block = Block.fromBuffer(rec.raw);
    if (rec.height === 0) continue; // Core never connects the genesis coinbase.
    const createdHere = new Set<string>();
    let fees = 0;
    for (const tx of (block.transactions ?? []).slice(1)) {
      const prevouts: CheckPrevout[] = tx.ins.map((input) => {
        const coin = utxos.get(idOf(input));
        if (!coin) throw new Error(`height ${rec.height}: input ${idOf(input)} not in the UTXO set`);
        if (coin.coinbaseHeight !== undefined && rec.height - coin.coinbaseHeight < 100) {
          throw new Error(`height ${rec.height}: immature coinbase spend`);
        }
        return { script: Buffer.from(coin.script, 'hex'), value: BigInt(coin.value) };
      });
      tx.ins.forEach((input, i) => {
        const t = checkInput(tx, i, prevouts);
        templates.set(t, (templates.get(t) ?? 0) + 1);
        if (createdHere.has(idOf(input))) sameBlockSpends++;
        utxos.delete(idOf(input));
      });
      const out = tx.outs.reduce((s, o) => s + Number(o.value), 0);
      const fee = prevouts.reduce((s, p) => s + Number(p.value), 0) - out;
      expect(fee, `fee of ${tx.getId()}`).toBeGreaterThanOrEqual(0);
      fees += fee;
      add(tx, undefined);
    }
    const coinbase = block.transactions?.[0] as Transaction;
    const subsidy = Math.floor(5_000_000_000 / 2 ** Math.floor(rec.height / 150));
    expect(coinbase.outs.reduce((s, o) => s + Number(o.value), 0)).toBe(subsidy + fees);
    add(coinbase, rec.height);

    function add(tx: Transaction, coinbaseHeight: number | undefined): void {
      const txid = tx.getId();
      tx.outs.forEach((o, vout) => {
        const script = Buffer.from(o.script).toString('hex');
        outputs.set(script, (outputs.get(script) ?? 0) + 1);
        if (unspendable(o.script)) return;
        utxos.set(`${txid}:${vout}`, { script, value: Number(o.value), ...(coinbaseHeight === undefined ? {} : { coinbaseHeight }) });
        createdHere.add(`${txid}:${vout}`);
      });
    }
  }
  const plain = new Map([...utxos].map(([k, c]) => [k, { script: c.script, value: c.value }]));
  return { utxos: plain, templates, sameBlockSpends, outputs };
}

describe('BtcChain builder', () => {
  let chain: BtcChain;
  let staleFrom: number;
  let oldHashes: string[];
  let replayed: Replay | undefined;
  // Lazy, so a builder bug shows up as failing tests rather than a failed hook.
  const result = (): Replay => (replayed ??= replay(chain.blocks));

  beforeAll(() => {
    chain = new BtcChain('btc-chain-unit');
    chain.mine(250, { txsPerBlock: 3 });
    staleFrom = chain.tipHeight - 3 + 1;
    oldHashes = chain.blocks.slice(staleFrom).map((b) => b.hash);
    chain.reorg(3, { txsPerBlock: 4 });
  });

  it('starts from Bitcoin Core’s regtest genesis', () => {
    const genesis = chain.blocks[0] as BtcBlock;
    expect(genesis.hash).toBe(CORE_REGTEST_GENESIS);
    expect(rev(Block.fromBuffer(genesis.raw).merkleRoot as Uint8Array)).toBe(CORE_GENESIS_MERKLE);
  });

  it('builds well-formed blocks: hash, links, BIP34 height, merkle root, witness commitment, PoW', () => {
    let witnessBlocks = 0;
    for (const rec of [...chain.blocks, ...chain.staleBlocks]) {
      const block = Block.fromBuffer(rec.raw);
      const txs = block.transactions ?? [];
      expect(block.getId()).toBe(rec.hash);
      expect(block.toBuffer().length).toBe(rec.raw.length);
      expect(rev(block.prevHash as Uint8Array)).toBe(rec.prevHash);
      expect(txs.map((t) => t.getId())).toEqual(rec.txids);
      expect(block.checkProofOfWork()).toBe(true);
      expect(block.bits).toBe(0x207fffff);
      // Merkle root recomputed by our own code from the legacy serialisations.
      const leaves = txs.map((t) => sha256d(stripWitness(t)));
      expect(Buffer.from(block.merkleRoot as Uint8Array).equals(merkle(leaves))).toBe(true);
      expect(block.checkTxRoots()).toBe(true);
      if (rec.height === 0) continue;
      const height = bscript.number.decode(heightPush(txs[0] as Transaction));
      expect(height).toBe(rec.height);
      if (txs.some((t) => t.hasWitnesses() && !t.isCoinbase())) {
        witnessBlocks++;
        const wtxids = txs.map((t, i) => (i === 0 ? Buffer.alloc(32) : sha256d(t.toBuffer())));
        const reserved = (txs[0] as Transaction).ins[0]?.witness[0] as Uint8Array;
        const commitment = sha256d(Buffer.concat([merkle(wtxids), reserved]));
        const out = (txs[0] as Transaction).outs.find((o) => Buffer.from(o.script.subarray(0, 6)).toString('hex') === '6a24aa21a9ed');
        expect(out && Buffer.from(out.script.subarray(6)).equals(commitment)).toBe(true);
      } else {
        expect(block.getWitnessCommit()).toBeNull();
      }
    }
    expect(witnessBlocks).toBeGreaterThan(100);
  });

  it('signs every spend for real (ECDSA legacy/BIP143, Schnorr BIP341) and a tampered one fails', () => {
    for (const kind of ['p2pkh', 'p2pk', 'bare-multisig', 'p2sh-multisig', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr'] as const) {
      expect(result().templates.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(5);
    }
    // Negative control: flip one byte inside the first witness signature of a few transactions.
    let tampered = 0;
    for (const rec of chain.blocks.slice(120)) {
      for (const tx of (Block.fromBuffer(rec.raw).transactions ?? []).slice(1)) {
        const input = tx.ins[0];
        const sig = input?.witness[0];
        if (!input || !sig || sig.length < 64 || tampered >= 4) continue;
        const prevouts = prevoutsOf(tx, chain);
        if (!prevouts) continue;
        expect(() => checkInput(tx, 0, prevouts)).not.toThrow();
        sig[10] = (sig[10] as number) ^ 1;
        expect(() => checkInput(tx, 0, prevouts)).toThrow(ScriptCheckError);
        tampered++;
      }
    }
    expect(tampered).toBe(4);
  });

  it('keeps a UTXO model equal to a from-scratch replay of the blocks', () => {
    const model = chain.utxos();
    expect(model.size).toBe(result().utxos.size);
    for (const [k, c] of result().utxos) {
      expect(model.get(k), k).toMatchObject({ script: c.script, value: c.value });
    }
    const balances = new Map<string, { sats: number; utxos: number }>();
    let sats = 0;
    for (const c of result().utxos.values()) {
      const b = balances.get(c.script) ?? { sats: 0, utxos: 0 };
      balances.set(c.script, { sats: b.sats + c.value, utxos: b.utxos + 1 });
      sats += c.value;
    }
    expect(chain.balances()).toEqual(balances);
    expect(chain.totals()).toEqual({ sats, utxos: result().utxos.size });
  });

  it('covers the required output kinds and balance shapes', () => {
    const paidScripts = new Set(result().outputs.keys());
    for (const kind of ADDRESS_KINDS) {
      const used = chain.addresses().filter((a) => a.kind === kind && paidScripts.has(a.script));
      expect(used.length, kind).toBeGreaterThanOrEqual(40);
    }
    for (const a of chain.addresses()) {
      expect(Buffer.from(bjsAddress.toOutputScript(a.address, networks.regtest)).toString('hex')).toBe(a.script);
    }
    const lengths = [...paidScripts].map((s) => s.length / 2);
    expect(lengths.some((n) => n > 10_000)).toBe(true); // burnt: never in the UTXO set
    expect([...result().utxos.values()].some((c) => c.script.length / 2 === 10_000)).toBe(true);
    expect([...result().utxos.values()].every((c) => c.script.length / 2 <= 10_000 && !c.script.startsWith('6a'))).toBe(true);
    expect([...paidScripts].filter((s) => s.startsWith('6a') && !s.startsWith('6a24aa21a9ed')).length).toBeGreaterThan(5);
    const balances = chain.balances();
    const emptied = chain.addresses().filter((a) => paidScripts.has(a.script) && !balances.has(a.script));
    expect(emptied.length).toBeGreaterThan(10);
    expect([...balances.values()].filter((b) => b.utxos >= 2).length).toBeGreaterThan(10);
    expect(result().sameBlockSpends).toBeGreaterThan(20);
  });

  it('reorgs to a longer branch of different blocks and keeps the old ones as stale', () => {
    expect(chain.tipHeight).toBe(251);
    expect(chain.staleBlocks.map((b) => b.hash)).toEqual(oldHashes);
    for (const h of oldHashes) expect(chain.lookup(h)?.active).toBe(false);
    for (const b of chain.blocks.slice(staleFrom)) expect(oldHashes).not.toContain(b.hash);
    expect(chain.lookup(chain.tip.hash)?.active).toBe(true);
    expect(() => chain.reorg(0)).toThrow(RangeError);
  });

  it('is deterministic for a seed', () => {
    const again = new BtcChain('btc-chain-unit');
    again.mine(105, { txsPerBlock: 3 });
    expect(again.blocks.map((b) => b.hash)).toEqual(chain.blocks.slice(0, 106).map((b) => b.hash));
    expect(new BtcChain('other').mine(1)[0]?.hash).not.toBe(chain.blocks[1]?.hash);
  });
});

function stripWitness(tx: Transaction): Buffer {
  const c = tx.clone();
  c.stripWitnesses();
  return Buffer.from(c.toBuffer());
}

function heightPush(coinbase: Transaction): Buffer {
  const first = bscript.decompile(coinbase.ins[0]?.script ?? new Uint8Array())?.[0];
  if (typeof first === 'number') return Buffer.from([first - bscript.OPS.OP_1 + 1]); // OP_1..OP_16
  return Buffer.from(first as Uint8Array);
}

function prevoutsOf(tx: Transaction, chain: BtcChain): CheckPrevout[] | null {
  const out: CheckPrevout[] = [];
  for (const input of tx.ins) {
    const found = chain.blocks.find((b) => b.txids.includes(rev(input.hash)));
    const prevTx = found && Block.fromBuffer(found.raw).transactions?.find((t) => t.getId() === rev(input.hash));
    const o = prevTx?.outs[input.index];
    if (!o) return null;
    out.push({ script: o.script, value: o.value });
  }
  return out;
}

describe('fake bitcoind', () => {
  let chain: BtcChain;
  let node: FakeNode;
  let stale: BtcBlock;

  const rpc = async (method: string, params: unknown[] = [], auth?: string): Promise<{ status: number; body: unknown }> => {
    const u = new URL(node.url);
    const res = await fetch(node.baseUrl, {
      method: 'POST',
      headers: { Authorization: auth ?? `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}` },
      body: JSON.stringify({ jsonrpc: '1.0', id: 7, method, params }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : text };
  };

  beforeAll(async () => {
    chain = new BtcChain('fake-node');
    chain.mine(12);
    chain.reorg(2);
    stale = chain.staleBlocks[0] as BtcBlock;
    node = await startFakeNode(chain);
  });
  afterAll(() => node.close());

  it('answers chain state and follows the chain live', async () => {
    const info = await rpc('getblockchaininfo');
    expect(info).toMatchObject({
      status: 200,
      body: {
        error: null,
        id: 7,
        result: { chain: 'regtest', blocks: 13, headers: 13, bestblockhash: chain.tip.hash, initialblockdownload: false },
      },
    });
    expect((await rpc('getblockhash', [0])).body).toMatchObject({ result: CORE_REGTEST_GENESIS });
    chain.mine(1);
    expect((await rpc('getblockcount')).body).toMatchObject({ result: 14 });
    expect((await rpc('getbestblockhash')).body).toMatchObject({ result: chain.tip.hash });
    expect(node.requests).toBeGreaterThanOrEqual(4);
    expect(node.calls.get('getblockcount')).toBe(1);
  });

  it('errors like bitcoind: -8 past the tip, -5 unknown block, 404 unknown method', async () => {
    expect(await rpc('getblockhash', [chain.tipHeight + 1])).toEqual({
      status: 500,
      body: { result: null, error: { code: -8, message: 'Block height out of range' }, id: 7 },
    });
    expect(await rpc('getblockheader', ['11'.repeat(32), true])).toMatchObject({
      status: 500,
      body: { error: { code: -5, message: 'Block not found' } },
    });
    expect(await rpc('getblock', ['zz'])).toMatchObject({ status: 500, body: { error: { code: -8 } } });
    expect(await rpc('nosuchmethod')).toMatchObject({ status: 404, body: { error: { code: -32601 } } });
  });

  it('serves headers and blocks of the active chain and of stale branches', async () => {
    const h5 = chain.blocks[5] as BtcBlock;
    expect((await rpc('getblockheader', [h5.hash])).body).toMatchObject({
      result: {
        hash: h5.hash,
        height: 5,
        confirmations: chain.tipHeight - 5 + 1,
        previousblockhash: h5.prevHash,
        nextblockhash: chain.blocks[6]?.hash,
      },
    });
    expect((await rpc('getblockheader', [stale.hash, true])).body).toMatchObject({
      result: { hash: stale.hash, height: stale.height, confirmations: -1, previousblockhash: stale.prevHash },
    });
    expect((await rpc('getblock', [stale.hash, 0])).body).toMatchObject({ result: stale.raw.toString('hex') });
    expect((await rpc('getblockheader', [h5.hash, false])).body).toMatchObject({ result: h5.raw.subarray(0, 80).toString('hex') });
  });

  it('answers batches, rejects bad credentials with an empty 401, and can inject failures', async () => {
    const u = new URL(node.url);
    const auth = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;
    const res = await fetch(node.baseUrl, {
      method: 'POST',
      headers: { Authorization: auth },
      body: JSON.stringify([
        { id: 1, method: 'getblockcount', params: [] },
        { id: 2, method: 'getblockhash', params: [999] },
      ]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { result: chain.tipHeight, error: null, id: 1 },
      { result: null, error: { code: -8, message: 'Block height out of range' }, id: 2 },
    ]);
    const bad = await rpc('getblockcount', [], `Basic ${Buffer.from('user:wrong').toString('base64')}`);
    expect(bad).toEqual({ status: 401, body: '' });
    const v2 = await fetch(node.baseUrl, {
      method: 'POST',
      headers: { Authorization: auth },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'getblockhash', params: { height: 999 } }),
    });
    expect(v2.status).toBe(200); // JSON-RPC 2.0 (Core 28+): errors in the body, HTTP 200
    expect(await v2.json()).toEqual({ jsonrpc: '2.0', error: { code: -8, message: 'Block height out of range' }, id: 3 });
    node.failNext(1);
    expect(await rpc('getblockcount')).toMatchObject({ status: 500, body: { error: { code: -28 } } });
    node.failNext(1, 'disconnect');
    await expect(rpc('getblockcount')).rejects.toThrow();
    expect(await rpc('getblockcount')).toMatchObject({ status: 200 });
  });

  it('serves REST blocks as raw bytes, 404 for unknown blocks or when REST is off', async () => {
    const b = chain.blocks[7] as BtcBlock;
    const res = await fetch(`${node.baseUrl}/rest/block/${b.hash}.bin`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(b.raw)).toBe(true);
    const st = await fetch(`${node.baseUrl}/rest/block/${stale.hash}.bin`);
    expect(Buffer.from(await st.arrayBuffer()).equals(stale.raw)).toBe(true);
    expect((await fetch(`${node.baseUrl}/rest/block/${'22'.repeat(32)}.bin`)).status).toBe(404);
    const off = await startFakeNode(chain, { restEnabled: false, user: 'u', pass: 'p' });
    try {
      expect((await fetch(`${off.baseUrl}/rest/block/${b.hash}.bin`)).status).toBe(404);
      expect(off.url).toMatch(/^http:\/\/u:p@127\.0\.0\.1:\d+$/);
    } finally {
      await off.close();
    }
  });
});
