/**
 * The Electrum server's node-backed methods (docs/electrum.md) against a real `litecoind -regtest` with
 * MWEB active, the indexer keeping history and the API process serving an Electrum port:
 * blockchain.transaction.get for confirmed (the block from the index: the node has no -txindex) and
 * mempool transactions, and the HogEx of the MWEB activation block and of a peg-out block served without
 * its MWEB part, parsed by bitcoinjs-lib (as Electrum) with the node's txid; get_merkle folding to the
 * header's merkle root at every position of a block with a HogEx; id_from_pos; broadcast refused by
 * default and relayed when turned on (the node's refusal answered with its words); the fee methods'
 * shapes; and a node that is down answered with an error while the session goes on.
 */
import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { freePort } from '../../harness/ports.js';
import { MWEB_ACTIVATION_HEIGHT, mine, sendMwebToMweb } from '../../harness/regtest-chain.js';
import { coins, pegOut } from '../../harness/regtest-wallet.js';
import { fromDisplayHex, toDisplayHex } from '../../src/chain/hash.js';
import { foldBranch } from '../../src/chain/merkle.js';
import { ElectrumClient, type Answer } from '../support/electrum-client.js';

interface VerboseBlock {
  hash: string;
  height: number;
  merkleroot: string;
  tx: string[];
}

describe('Electrum node-backed methods against a real litecoind', () => {
  let lw: LitecoindWorld;
  let relaying: ApiProcess;
  let client: ElectrumClient;
  let relayClient: ElectrumClient;
  let relayPort: number;
  let activation: VerboseBlock;
  let pegOutBlock: VerboseBlock;
  let sends: string[];
  const opened: ElectrumClient[] = [];

  const result = (a: Answer): unknown => {
    expect(a.error, JSON.stringify(a.error)).toBeUndefined();
    return a.result;
  };

  const blockAt = async (height: number): Promise<VerboseBlock> =>
    lw.node.cli<VerboseBlock>('getblock', await lw.node.cli<string>('getblockhash', height), 1);

  const startApi = async (env: Record<string, string>): Promise<{ api: ApiProcess; client: ElectrumClient; port: number }> => {
    const port = await freePort();
    const started = await lw.world.startApi('', {
      ADDRSUM_HISTORY: 'true',
      ADDRSUM_UTXO_LIST: 'true',
      ADDRSUM_LTC_ELECTRUM_PORT: String(port),
      ...env,
    });
    const c = await ElectrumClient.connect(port);
    opened.push(c);
    result(await c.call('server.version', ['test', '1.4']));
    return { api: started, client: c, port };
  };

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    const node = lw.node;
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await mine(node, MWEB_ACTIVATION_HEIGHT - 1, miner);
    // A peg-in at 431 (the mempool refuses one earlier) makes 432 the activation block, with a HogEx.
    await node.cli('sendtoaddress', await node.cli<string>('getnewaddress', '', 'mweb'), coins(2_000_000_000));
    await mine(node, 1, miner);
    activation = await blockAt(MWEB_ACTIVATION_HEIGHT);
    // Transparent sends and a peg-out: one block of several transactions ending in a HogEx paying out.
    sends = [];
    for (let i = 0; i < 5; i++)
      sends.push(await node.cli<string>('sendtoaddress', await node.cli<string>('getnewaddress', '', 'bech32'), coins(10_000_000 + i)));
    await pegOut(node, [{ address: await node.cli<string>('getnewaddress', '', 'bech32'), sats: 30_000_000 }]);
    await mine(node, 1, miner);
    pegOutBlock = await blockAt(MWEB_ACTIVATION_HEIGHT + 1);
    expect(pegOutBlock.tx.length).toBeGreaterThanOrEqual(7);

    await lw.world.startIndexer({ env: { ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' } });
    await lw.world.waitForTip('the MWEB chain with history', 120_000);
    ({ client } = await startApi({}));
    ({ api: relaying, client: relayClient, port: relayPort } = await startApi({ ADDRSUM_ELECTRUM_BROADCAST: 'true' }));
  }, 300_000);

  afterAll(async () => {
    for (const c of opened) c.close();
    await relaying?.stop();
    await lw?.close();
  });

  it("protocol 1.6: negotiated from Electrum 4.7's range, with the changed and new methods as the spec has them", async () => {
    const v16 = await ElectrumClient.connect(relayPort);
    opened.push(v16);
    // Extra arguments to server.version are ignored from 1.6 on.
    expect(result(await v16.call('server.version', ['electrum/4.7.0', ['1.4', '1.6'], 'trailing', 9999.9]))).toEqual([
      expect.stringMatching(/^addrsum /),
      '1.6',
    ]);
    const features = result(await v16.call('server.features')) as Record<string, unknown>;
    expect(features).toMatchObject({ protocol_min: '1.4', protocol_max: '1.6', method_flavours: expect.any(Object) });
    expect((result(await client.call('server.features')) as Record<string, unknown>).method_flavours).toBeUndefined();

    // block.headers: a list of headers from 1.6, the same bytes as 1.4's one string.
    const listed = result(await v16.call('blockchain.block.headers', [1, 5])) as { count: number; headers: string[]; max: number };
    const joined = result(await client.call('blockchain.block.headers', [1, 5])) as { count: number; hex: string };
    expect(listed.count).toBe(5);
    expect(listed.headers).toHaveLength(5);
    expect(listed.headers.join('')).toBe(joined.hex);
    expect(listed.headers[0]).toBe(await lw.node.cli<string>('getblockheader', await lw.node.cli<string>('getblockhash', 1), false));
    expect('hex' in listed).toBe(false);

    // relayfee is gone in 1.6; mempool.get_info replaces it, as the node says.
    expect((await v16.call('blockchain.relayfee')).error?.code).toBe(-32601);
    expect(typeof result(await client.call('blockchain.relayfee'))).toBe('number');
    expect((await client.call('mempool.get_info')).error?.code).toBe(-32601);
    const info = await lw.node.cli<{ mempoolminfee: number; minrelaytxfee: number }>('getmempoolinfo');
    const net = await lw.node.cli<{ incrementalfee: number }>('getnetworkinfo');
    expect(result(await v16.call('mempool.get_info'))).toEqual({
      mempoolminfee: info.mempoolminfee,
      minrelaytxfee: info.minrelaytxfee,
      incrementalrelayfee: net.incrementalfee,
    });

    // estimatefee takes a mode; regtest has no estimate: -1 either way.
    expect(result(await v16.call('blockchain.estimatefee', [2, 'ECONOMICAL']))).toBe(-1);
    expect((await v16.call('blockchain.estimatefee', [2, 'SOON'])).error?.code).toBe(-32602);

    // get_merkle: the height may be left out, and the block's hash comes with the branch.
    const pos = 2;
    const merkle = result(await v16.call('blockchain.transaction.get_merkle', [pegOutBlock.tx[pos]!])) as Record<string, unknown>;
    expect(merkle).toMatchObject({ block_height: pegOutBlock.height, pos, block_hash: pegOutBlock.hash });
    expect(toDisplayHex(foldBranch(fromDisplayHex(pegOutBlock.tx[pos]!), pos, (merkle.merkle as string[]).map(fromDisplayHex)))).toBe(
      pegOutBlock.merkleroot,
    );
    const withHeight = result(await v16.call('blockchain.transaction.get_merkle', [pegOutBlock.tx[pos]!, pegOutBlock.height]));
    expect(withHeight).toEqual(merkle);
    expect((await client.call('blockchain.transaction.get_merkle', [pegOutBlock.tx[pos]!])).error?.code).toBe(-32602);

    // broadcast_package: litecoind has no submitpackage, which the answer says; 1.4 has no such method.
    const raw = await lw.node.cli<string>('getrawtransaction', sends[1]!, false, pegOutBlock.hash);
    const pkg = await v16.call('blockchain.transaction.broadcast_package', [[raw]]);
    expect(pkg.error?.message).toMatch(/cannot relay packages/);
    expect((await relayClient.call('blockchain.transaction.broadcast_package', [[raw]])).error?.code).toBe(-32601);
  });

  it('protocol 1.6 outpoints: status, and notifications for a mempool spend, its block, a reorg and a longer fork', async () => {
    const node = lw.node;
    const v16 = await ElectrumClient.connect(relayPort);
    opened.push(v16);
    result(await v16.call('server.version', ['test', ['1.4', '1.6']]));
    const miner = await node.cli<string>('getnewaddress', '', 'bech32');
    /** The output of `txid` paying `address`. */
    const voutOf = async (txid: string, address: string): Promise<number> => {
      const tx = await node.cli<{ vout: { n: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>(
        'getrawtransaction',
        txid,
        true,
      );
      const out = tx.vout.find((o) => o.scriptPubKey.address === address || o.scriptPubKey.addresses?.includes(address));
      if (out === undefined) throw new Error(`${txid} does not pay ${address}`);
      return out.n;
    };
    /** A signed transaction spending `txid:vout` (worth `sats`) to a fresh address, not sent. */
    const spendOf = async (txid: string, vout: number, sats: number): Promise<{ hex: string; to: string }> => {
      const to = await node.cli<string>('getnewaddress', '', 'bech32');
      const raw = await node.cli<string>('createrawtransaction', [{ txid, vout }], { [to]: coins(sats - 100_000) });
      const signed = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', raw);
      expect(signed.complete).toBe(true);
      return { hex: signed.hex, to };
    };
    /**
     * Waits for a notification of `outpoint` after message `from` telling `status` (a reorg may first tell
     * what the index holds between the rollback and the mempool's refill).
     */
    const notified = async (from: number, outpoint: [string, number], status: Record<string, unknown>, what: string): Promise<void> => {
      const t0 = Date.now();
      await v16.waitFor((msg) => {
        const n = msg as { method?: string; params?: unknown[] };
        return (
          v16.messages.indexOf(msg) >= from &&
          n.method === 'blockchain.outpoint.subscribe' &&
          JSON.stringify(n.params) === JSON.stringify([outpoint, status])
        );
      }, 30_000);
      console.info(`outpoint notification (${what}) ${Date.now() - t0} ms after the event`);
    };

    // A confirmed funding output, unspent.
    const payee = await node.cli<string>('getnewaddress', '', 'bech32');
    const funding = await node.cli<string>('sendtoaddress', payee, coins(40_000_000));
    const vout = await voutOf(funding, payee);
    const [fundBlock] = await mine(node, 1, miner);
    await lw.world.waitForTip('the funding block', 60_000);
    const fundHeight = (await node.cli<{ height: number }>('getblockheader', fundBlock!)).height;
    const outpoint: [string, number] = [funding, vout];
    expect(result(await v16.call('blockchain.outpoint.subscribe', outpoint))).toEqual({ height: fundHeight });
    expect(result(await v16.call('blockchain.outpoint.get_status', [...outpoint, 'ab']))).toEqual({ height: fundHeight });
    // No such transaction, and no such output: an empty status, kept as a subscription all the same.
    expect(result(await v16.call('blockchain.outpoint.get_status', ['ab'.repeat(32), 0]))).toEqual({});
    expect(result(await v16.call('blockchain.outpoint.get_status', [funding, 99]))).toEqual({});

    // Spent in the mempool: told at once, with height 0 (its input is confirmed).
    const spend = await spendOf(funding, vout, 40_000_000);
    let mark = v16.messages.length;
    const spender = await node.cli<string>('sendrawtransaction', spend.hex);
    await notified(mark, outpoint, { height: fundHeight, spender_txhash: spender, spender_height: 0 }, 'mempool spend');

    // Mined.
    mark = v16.messages.length;
    const [spendBlock] = await mine(node, 1, miner);
    await notified(
      mark,
      outpoint,
      {
        height: fundHeight,
        spender_txhash: spender,
        spender_height: fundHeight + 1,
      },
      'spending block',
    );

    // The block is reorganised away: the spender is back in the mempool; then mined on a longer fork.
    mark = v16.messages.length;
    await node.cli('invalidateblock', spendBlock!);
    expect(await node.cli<string[]>('getrawmempool')).toContain(spender);
    await notified(mark, outpoint, { height: fundHeight, spender_txhash: spender, spender_height: 0 }, 'reorg');
    mark = v16.messages.length;
    // Another coinbase: the same one could mine the invalidated block again, byte for byte.
    await mine(node, 2, await node.cli<string>('getnewaddress', '', 'bech32'));
    await notified(
      mark,
      outpoint,
      {
        height: fundHeight,
        spender_txhash: spender,
        spender_height: fundHeight + 1,
      },
      'longer fork',
    );

    // A chain in the mempool: a child of an unconfirmed parent has height -1 until the parent is mined.
    const parent = await node.cli<string>('sendtoaddress', payee, coins(30_000_000));
    const child = await spendOf(parent, await voutOf(parent, payee), 30_000_000);
    const childOutpoint: [string, number] = [await node.cli<string>('sendrawtransaction', child.hex), 0];
    await waitFor(
      'the child in the index',
      async () => JSON.stringify(result(await v16.call('blockchain.outpoint.get_status', childOutpoint))) === '{"height":-1}',
      30_000,
    );
    const parentOutpoint = [parent, await voutOf(parent, payee)];
    const parentStatus = JSON.stringify({ height: 0, spender_txhash: childOutpoint[0], spender_height: -1 });
    await waitFor(
      'the parent spent in the index',
      async () => JSON.stringify(result(await v16.call('blockchain.outpoint.get_status', parentOutpoint))) === parentStatus,
      30_000,
    );
    expect(result(await v16.call('blockchain.outpoint.subscribe', childOutpoint))).toEqual({ height: -1 });
    mark = v16.messages.length;
    const [chainBlock] = await mine(node, 1, miner);
    const chainHeight = (await node.cli<{ height: number }>('getblockheader', chainBlock!)).height;
    await notified(mark, childOutpoint, { height: chainHeight }, 'mined mempool chain');

    // An outpoint that does not exist yet, with spk_hint naming its script: told when it reaches the mempool.
    const comingTo = await node.cli<string>('getnewaddress', '', 'bech32');
    const unsigned = await node.cli<{ hex: string }>(
      'fundrawtransaction',
      await node.cli<string>('createrawtransaction', [], { [comingTo]: coins(20_000_000) }),
      { changePosition: 1 },
    );
    const coming = await node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', unsigned.hex);
    expect(coming.complete).toBe(true);
    const decoded = await node.cli<{ txid: string; vout: { n: number; scriptPubKey: { hex: string } }[] }>(
      'decoderawtransaction',
      coming.hex,
    );
    const comingOutpoint: [string, number] = [decoded.txid, 0];
    expect(result(await v16.call('blockchain.outpoint.subscribe', [...comingOutpoint, decoded.vout[0]!.scriptPubKey.hex]))).toEqual({});
    mark = v16.messages.length;
    await node.cli('sendrawtransaction', coming.hex);
    await notified(mark, comingOutpoint, { height: 0 }, 'hinted funding in the mempool');

    expect(result(await v16.call('blockchain.outpoint.unsubscribe', outpoint))).toBe(true);
    expect(result(await v16.call('blockchain.outpoint.unsubscribe', outpoint))).toBe(false);
    expect((await v16.call('blockchain.outpoint.subscribe', [funding, -1])).error?.code).toBe(-32602);
    expect((await v16.call('blockchain.outpoint.subscribe', [funding, 0, 'xyz'])).error?.code).toBe(-32602);
    // 1.4 has no outpoint methods.
    expect((await client.call('blockchain.outpoint.get_status', outpoint)).error?.code).toBe(-32601);
  }, 180_000);

  /** What Electrum does with a served transaction: parse it and take its txid. */
  const expectServedAs = (hex: unknown, txid: string): Transaction => {
    expect(typeof hex).toBe('string');
    const tx = Transaction.fromHex(hex as string);
    expect(tx.getId()).toBe(txid);
    return tx;
  };

  it('transaction.get: a confirmed transaction (its block from the index) byte for byte as the node has it', async () => {
    for (const txid of [sends[0]!, sends[4]!, pegOutBlock.tx[0]!]) {
      const served = result(await client.call('blockchain.transaction.get', [txid]));
      expect(served).toBe(await lw.node.cli<string>('getrawtransaction', txid, false, pegOutBlock.hash));
      expectServedAs(served, txid);
    }
  });

  it('transaction.get: every transaction of both MWEB blocks parses as Electrum does with its txid; only MWEB forms differ from the node', async () => {
    for (const block of [activation, pegOutBlock])
      for (const txid of block.tx) {
        const nodeHex = await lw.node.cli<string>('getrawtransaction', txid, false, block.hash);
        const served = result(await client.call('blockchain.transaction.get', [txid]));
        expectServedAs(served, txid);
        const mwebForm = nodeHex.slice(8, 10) === '00' && (Number.parseInt(nodeHex.slice(10, 12), 16) & 0x08) !== 0;
        if (!mwebForm) expect(served).toBe(nodeHex);
      }
  });

  it('transaction.get: the HogEx of the activation block and of a peg-out block, without its MWEB part, same txid', async () => {
    for (const block of [activation, pegOutBlock]) {
      const hogEx = block.tx.at(-1)!;
      const nodeHex = await lw.node.cli<string>('getrawtransaction', hogEx, false, block.hash);
      // The node's form: marker 0, flags with 0x08. Electrum (bitcoinjs-lib) cannot read it.
      expect(Number.parseInt(nodeHex.slice(10, 12), 16) & 0x08).toBe(0x08);
      expect(() => Transaction.fromHex(nodeHex)).toThrow();
      const served = result(await client.call('blockchain.transaction.get', [hogEx, false]));
      expect(served).not.toBe(nodeHex);
      const tx = expectServedAs(served, hogEx);
      expect(tx.outs.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('transaction.get: a mempool transaction; an unknown txid and verbose=true are error answers', async () => {
    const txid = await lw.node.cli<string>('sendtoaddress', await lw.node.cli<string>('getnewaddress', '', 'bech32'), coins(1_234_567));
    const served = result(await client.call('blockchain.transaction.get', [txid]));
    expect(served).toBe(await lw.node.cli<string>('getrawtransaction', txid, false));
    expectServedAs(served, txid);
    const unknown = await client.call('blockchain.transaction.get', ['ab'.repeat(32)]);
    expect(unknown.error?.code).toBe(2);
    expect(unknown.error?.message).toMatch(/no transaction .* in the indexed blocks or the node's mempool/);
    const verbose = await client.call('blockchain.transaction.get', [txid, true]);
    expect(verbose.error).toEqual({ code: 1, message: 'verbose transactions are not served' });
  });

  it('transaction.get: a mempool peg-in (MWEB body, flags 0x09) served without it, same txid; an MWEB-only one refused', async () => {
    // More than the wallet's MWEB coins: transparent (segwit) inputs must pay in, a peg-in.
    const pegIn = await lw.node.cli<string>('sendtoaddress', await lw.node.cli<string>('getnewaddress', '', 'mweb'), coins(10_000_000_000));
    const nodeHex = await lw.node.cli<string>('getrawtransaction', pegIn, false);
    expect(nodeHex.slice(8, 12)).toBe('0009');
    const served = result(await client.call('blockchain.transaction.get', [pegIn]));
    expect((served as string).length).toBeLessThan(nodeHex.length);
    const tx = expectServedAs(served, pegIn);
    expect(tx.hasWitnesses()).toBe(true);
    expect(tx.ins.length).toBeGreaterThan(0);
    const { txid: mwebOnly } = await sendMwebToMweb(lw.node);
    const refused = await client.call('blockchain.transaction.get', [mwebOnly]);
    expect(refused.error?.code).toBe(1);
    expect(refused.error?.message).toMatch(/MWEB-only/);
  });

  it('get_merkle folds to the header merkle root at every position (HogEx included); id_from_pos names each', async () => {
    for (const block of [activation, pegOutBlock]) {
      for (const [pos, txid] of block.tx.entries()) {
        const got = result(await client.call('blockchain.transaction.get_merkle', [txid, block.height])) as {
          block_height: number;
          merkle: string[];
          pos: number;
        };
        expect({ block_height: got.block_height, pos: got.pos }).toEqual({ block_height: block.height, pos });
        const root = foldBranch(fromDisplayHex(txid), pos, got.merkle.map(fromDisplayHex));
        expect(toDisplayHex(root)).toBe(block.merkleroot);
        expect(result(await client.call('blockchain.transaction.id_from_pos', [block.height, pos]))).toBe(txid);
        expect(result(await client.call('blockchain.transaction.id_from_pos', [block.height, pos, true]))).toEqual({
          tx_hash: txid,
          merkle: got.merkle,
        });
      }
    }
    const outside = await client.call('blockchain.transaction.id_from_pos', [pegOutBlock.height, pegOutBlock.tx.length]);
    expect(outside.error?.code).toBe(1);
    const notThere = await client.call('blockchain.transaction.get_merkle', [sends[0], activation.height]);
    expect(notThere.error?.message).toMatch(/is not in the block at height/);
  });

  it('broadcast: refused by default naming the setting; relayed when turned on, the node refusing in its words', async () => {
    const funded = await lw.node.cli<{ hex: string }>(
      'fundrawtransaction',
      await lw.node.cli<string>('createrawtransaction', [], {
        [await lw.node.cli<string>('getnewaddress', '', 'bech32')]: coins(5_000_000),
      }),
    );
    const signed = await lw.node.cli<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', funded.hex);
    expect(signed.complete).toBe(true);
    const refused = await client.call('blockchain.transaction.broadcast', [signed.hex]);
    expect(refused.error?.code).toBe(1);
    expect(refused.error?.message).toMatch(/ADDRSUM_ELECTRUM_BROADCAST/);
    const txid = result(await relayClient.call('blockchain.transaction.broadcast', [signed.hex]));
    expect(txid).toBe(Transaction.fromHex(signed.hex).getId());
    expect(await lw.node.cli<string[]>('getrawmempool')).toContain(txid);
    const bad = await relayClient.call('blockchain.transaction.broadcast', ['0200000000']);
    expect(bad.error?.code).toBe(1);
    expect(bad.error?.message).toMatch(/rejected by network rules: .*decode/i);
  });

  it('estimatefee, relayfee and the fee histogram have the protocol shapes', async () => {
    const fee = result(await client.call('blockchain.estimatefee', [2]));
    expect(typeof fee).toBe('number');
    expect(fee === -1 || (fee as number) > 0).toBe(true);
    const relay = result(await client.call('blockchain.relayfee', []));
    expect(relay).toBe((await lw.node.cli<{ relayfee: number }>('getnetworkinfo')).relayfee);
    const histogram = result(await client.call('mempool.get_fee_histogram', [])) as unknown[];
    expect(Array.isArray(histogram)).toBe(true);
    for (const entry of histogram) {
      expect(entry).toEqual([expect.any(Number), expect.any(Number)]);
    }
    expect((await client.call('blockchain.estimatefee', [0])).error?.code).toBe(-32602);
  });

  it('a node that hangs is an error answer after the timeout (code 2); the session goes on and is served once it answers', async () => {
    const pid = lw.node.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const t0 = Date.now();
      const hung = await client.call('blockchain.transaction.get', [sends[1]], 40_000);
      expect(hung.error?.code).toBe(2);
      expect(hung.error?.message).toMatch(/daemon error: getrawtransaction: the node did not answer within 15 s/);
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(result(await client.call('server.ping', []))).toBeNull();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor(
      'the node to answer again',
      async () => (await client.call('blockchain.transaction.get', [sends[1]])).result !== undefined,
      60_000,
    );
  }, 120_000);

  it('a node that is down is an error answer (code 2) without its address; the session goes on', async () => {
    await lw.node.stop();
    const down = await client.call('blockchain.transaction.get', [sends[2]], 30_000);
    expect(down.error?.code).toBe(2);
    expect(down.error?.message).toBe('daemon error: getrawtransaction: the node cannot be reached');
    const fees = await client.call('mempool.get_fee_histogram', [], 30_000);
    expect(fees.error?.code ?? 0).not.toBe(-32603);
    expect(result(await client.call('server.ping', []))).toBeNull();
  }, 60_000);
});
