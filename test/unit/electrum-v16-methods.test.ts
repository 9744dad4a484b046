/**
 * The methods protocol 1.6 changed or added that need a node (fee-methods.ts, transaction-methods.ts),
 * over a node link of the test's own that records what it was asked: estimatefee's mode goes to
 * estimatesmartfee as estimate_mode, mempool.get_info reads the node's three rates, and
 * broadcast_package relays through submitpackage only when relaying is on, its answer folded into
 * 1.6's {success, errors}.
 */
import { describe, expect, it } from 'vitest';
import { feeMethods } from '../../src/electrum/methods/fee-methods.js';
import type { ElectrumSession, MethodSpec } from '../../src/electrum/methods/registry.js';
import { packageOutcome, transactionMethods } from '../../src/electrum/methods/transaction-methods.js';
import type { NodeLink } from '../../src/electrum/node/node-link.js';
import { RpcError } from '../../src/electrum/wire.js';
import { NodeError } from '../../src/node/node-client.js';

function recordingNode(answers: Record<string, (params: readonly unknown[]) => unknown>): NodeLink & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    call: async <T>(method: string, params: readonly unknown[] = []) => {
      asked.push(`${method} ${JSON.stringify(params)}`);
      const answer = answers[method];
      if (answer === undefined) throw new RpcError('DAEMON_ERROR', `daemon error: ${method}: not in this test`);
      return answer(params) as T;
    },
    close: () => undefined,
  };
}

const session = (protocol = '1.6'): ElectrumSession => ({
  network: '127.0.0.1',
  protocol,
  negotiated: () => undefined,
  notify: () => undefined,
  closeAfterAnswer: () => undefined,
  charge: async () => undefined,
  onClose: () => undefined,
});

const call = (spec: MethodSpec | undefined, params: unknown[]): Promise<unknown> => spec!.handler(params, session());

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as RpcError).code;
  }
  return 'ok';
}

describe('Electrum 1.6 fee methods', () => {
  it('passes estimatefee a mode as estimate_mode, leaves it out without one, and refuses another', async () => {
    const node = recordingNode({ estimatesmartfee: (p) => ({ feerate: p[1] === 'CONSERVATIVE' ? 0.0002 : 0.0001 }) });
    const m = feeMethods(node);
    expect(await call(m['blockchain.estimatefee'], [2])).toBe(0.0001);
    expect(await call(m['blockchain.estimatefee'], [2, 'conservative'])).toBe(0.0002);
    expect(node.asked).toEqual(['estimatesmartfee [2]', 'estimatesmartfee [2,"CONSERVATIVE"]']);
    expect(await codeOf(call(m['blockchain.estimatefee'], [2, 'FAST']))).toBe('INVALID_PARAMS');
    expect(await codeOf(call(m['blockchain.estimatefee'], [2, 7]))).toBe('INVALID_PARAMS');
  });

  it('answers mempool.get_info from getmempoolinfo, the increment from getnetworkinfo on an older node', async () => {
    const node = recordingNode({
      getmempoolinfo: () => ({ mempoolminfee: 0.00002, minrelaytxfee: 0.00001, size: 3 }),
      getnetworkinfo: () => ({ incrementalfee: 0.00001, relayfee: 0.00001 }),
    });
    const m = feeMethods(node);
    expect(await call(m['mempool.get_info'], [])).toEqual({ mempoolminfee: 0.00002, minrelaytxfee: 0.00001, incrementalrelayfee: 0.00001 });
    const newer = feeMethods(recordingNode({ getmempoolinfo: () => ({ mempoolminfee: 1, minrelaytxfee: 2, incrementalrelayfee: 3 }) }));
    expect(await call(newer['mempool.get_info'], [])).toEqual({ mempoolminfee: 1, minrelaytxfee: 2, incrementalrelayfee: 3 });
    expect(m['mempool.get_info']!.since).toBe('1.6');
    expect(m['blockchain.relayfee']!.until).toBe('1.6');
  });
});

describe('Electrum 1.6 broadcast_package', () => {
  const deps = (broadcast: boolean, node: NodeLink) =>
    transactionMethods({ index: () => ({}) as never, node, blockTxids: async () => ({}) as never, broadcast, stripMweb: false });
  const tx = '02000000000000000000';

  it('refuses without relaying on, and refuses a malformed package before asking the node', async () => {
    const node = recordingNode({ submitpackage: () => ({ package_msg: 'success', 'tx-results': {} }) });
    await expect(call(deps(false, node)['blockchain.transaction.broadcast_package'], [[tx]])).rejects.toThrow(/does not relay/);
    const on = deps(true, node)['blockchain.transaction.broadcast_package'];
    expect(await codeOf(call(on, [[]]))).toBe('INVALID_PARAMS');
    expect(await codeOf(call(on, [['zz']]))).toBe('INVALID_PARAMS');
    expect(await codeOf(call(on, [Array(26).fill(tx)]))).toBe('INVALID_PARAMS');
    expect(await codeOf(call(on, [tx]))).toBe('INVALID_PARAMS');
    expect(node.asked).toEqual([]);
    expect(on!.since).toBe('1.6');
  });

  it('relays through submitpackage: success, or the refused transactions; verbose gives the node verbatim', async () => {
    const verbatim = { package_msg: 'success', 'tx-results': { w1: { txid: 't1', vsize: 100 } } };
    const on = deps(true, recordingNode({ submitpackage: () => verbatim }))['blockchain.transaction.broadcast_package'];
    expect(await call(on, [[tx, tx]])).toEqual({ success: true });
    expect(await call(on, [[tx], true])).toEqual(verbatim);
    expect(
      packageOutcome({
        package_msg: 'transaction failed',
        'tx-results': { w1: { txid: 't1', error: 'bad-txns-inputs-missingorspent' }, w2: { txid: 't2', vsize: 3 } },
      }),
    ).toEqual({ success: false, errors: [{ txid: 't1', error: 'bad-txns-inputs-missingorspent' }] });
  });

  it('says so when the node has no submitpackage (litecoind, Core before 28)', async () => {
    const node: NodeLink = {
      call: async () => {
        throw new RpcError('DAEMON_ERROR', 'daemon error: submitpackage: Method not found', {
          cause: new NodeError('RPC', 'Method not found', false, { rpcCode: -32601, nodeMessage: 'Method not found' }),
        });
      },
      close: () => undefined,
    };
    await expect(call(deps(true, node)['blockchain.transaction.broadcast_package'], [[tx]])).rejects.toThrow(/cannot relay packages/);
  });
});
