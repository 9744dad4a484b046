import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nodeLink, nodeRpcCode } from '../../src/electrum/node/node-link.js';
import { transactionMethods } from '../../src/electrum/methods/transaction-methods.js';
import { RpcError } from '../../src/electrum/wire.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A node answering every JSON-RPC call with `reply(method, params)` ({ result } or { error }). */
async function fakeNode(reply: (method: string, params: unknown[]) => object): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
      const answer = reply(method, params);
      res.writeHead('error' in answer ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, result: null, error: null, ...answer }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://u:p@127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const configWith = (env: Record<string, string>) => loadConfig({ env: { ADDRSUM_LTC_NETWORK: 'regtest', ...env } });

async function rejection(p: Promise<unknown>): Promise<RpcError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RpcError);
  return err as RpcError;
}

describe('nodeLink', () => {
  it('without an rpcUrl every call is DAEMON_ERROR naming ADDRSUM_LTC_RPC_URL', async () => {
    const link = nodeLink(configWith({ ADDRSUM_SERVE_CHAINS: 'LTC' }), 'LTC');
    const err = await rejection(link.call('getnetworkinfo'));
    expect(err.number).toBe(2);
    expect(err.message).toMatch(/ADDRSUM_LTC_RPC_URL/);
  });

  it("a node's RPC error is DAEMON_ERROR with the node's words and code, never its address", async () => {
    const url = await fakeNode(() => ({ error: { code: -5, message: 'No such mempool or blockchain transaction' } }));
    const link = nodeLink(configWith({ ADDRSUM_LTC_RPC_URL: url }), 'LTC');
    const err = await rejection(link.call('getrawtransaction', ['00'.repeat(32), false]));
    expect(err.message).toBe('daemon error: getrawtransaction: No such mempool or blockchain transaction');
    expect(err.message).not.toContain('127.0.0.1');
    expect(nodeRpcCode(err)).toBe(-5);
    link.close();
  });

  it('an unreachable node is DAEMON_ERROR "cannot be reached"', async () => {
    const url = await fakeNode(() => ({ result: 1 }));
    await new Promise((r) => servers.pop()!.close(r));
    const link = nodeLink(configWith({ ADDRSUM_LTC_RPC_URL: url }), 'LTC');
    expect((await rejection(link.call('getnetworkinfo'))).message).toBe('daemon error: getnetworkinfo: the node cannot be reached');
    link.close();
  });
});

describe('transaction methods: what is refused before the node is asked', () => {
  const unused = (): never => {
    throw new Error('the node must not be asked');
  };
  const methods = (broadcast: boolean) =>
    transactionMethods({
      index: unused,
      node: { call: unused, close: () => undefined },
      blockTxids: unused,
      broadcast,
      stripMweb: true,
    });
  const session = {} as never;

  it('bad parameters are INVALID_PARAMS; verbose is refused; broadcast off names ADDRSUM_ELECTRUM_BROADCAST', async () => {
    const m = methods(false);
    expect((await rejection(m['blockchain.transaction.get']!.handler(['xyz'], session))).code).toBe('INVALID_PARAMS');
    expect((await rejection(m['blockchain.transaction.get']!.handler(['ab'.repeat(32), 1], session))).code).toBe('INVALID_PARAMS');
    expect((await rejection(m['blockchain.transaction.get']!.handler(['ab'.repeat(32), true], session))).message).toBe(
      'verbose transactions are not served',
    );
    expect((await rejection(m['blockchain.transaction.get_merkle']!.handler(['ab'.repeat(32), -1], session))).code).toBe('INVALID_PARAMS');
    expect((await rejection(m['blockchain.transaction.id_from_pos']!.handler([1.5, 0], session))).code).toBe('INVALID_PARAMS');
    const off = await rejection(m['blockchain.transaction.broadcast']!.handler(['00'], session));
    expect(off.message).toMatch(/ADDRSUM_ELECTRUM_BROADCAST/);
    const on = methods(true);
    expect((await rejection(on['blockchain.transaction.broadcast']!.handler(['zz'], session))).code).toBe('INVALID_PARAMS');
  });

  it('node-backed methods cost more than server.* (0.1)', () => {
    for (const spec of Object.values(methods(true))) expect(spec.cost).toBeGreaterThan(0.1);
  });
});
