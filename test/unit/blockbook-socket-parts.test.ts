/**
 * The Blockbook WebSocket API's pure parts against Blockbook's Go code: its balance-history windows
 * (SortAndAggregate, the vectors of Blockbook's own api/types_test.go), a transaction's part in an
 * address's history (processBitcoinTypeBalanceHistory), its request params as json.Unmarshal reads them
 * into its structs, its account paging bounds (sanitizeAccountPagingParams), and the socket's path.
 */
import { describe, expect, it } from 'vitest';
import { addressQuery } from '../../src/api/blockbook/blockbook-address.js';
import { BlockbookError } from '../../src/api/blockbook/blockbook-answers.js';
import { aggregate, entryOf, type BalanceEntry } from '../../src/api/blockbook/blockbook-history.js';
import { Params } from '../../src/api/blockbook/blockbook-methods.js';
import { blockbookDoor, type BlockbookSocketOptions } from '../../src/api/blockbook/blockbook-socket.js';

const e = (received: number, sent: number, sentToSelf: number, time: number, txid: string): BalanceEntry => ({
  time,
  txid,
  received: BigInt(received),
  sent: BigInt(sent),
  sentToSelf: BigInt(sentToSelf),
});
const w = (received: number, sent: number, sentToSelf: number, time: number, txs: number) => ({
  time,
  txs,
  received: String(received),
  sent: String(sent),
  sentToSelf: String(sentToSelf),
});
const A = '0011223344556677889900112233445566778899001122334455667788990011';
const B = '00b2c06055e5e90e9c82bd4181fde310104391a7fa4f289b1704e5d90caa3840';
const C = '1122334455667788990011223344556677889900112233445566778899001100';

describe('aggregate (SortAndAggregate)', () => {
  it('is empty for no transactions', () => {
    expect(aggregate([], 3600)).toEqual([]);
  });

  it('puts one transaction at the start of its window', () => {
    expect(aggregate([e(1, 2, 1, 1521514812, B)], 3600)).toEqual([w(1, 2, 1, 1521514800, 1)]);
  });

  it('sums each window in time order, a txid counted once in it', () => {
    const got = aggregate(
      [
        e(1, 2, 0, 1521504812, A),
        e(3, 4, 2, 1521504812, B),
        e(5, 6, 3, 1521514812, B),
        e(7, 8, 3, 1521504812, B),
        e(9, 10, 5, 1521534812, A),
        e(11, 12, 6, 1521534812, C),
      ],
      3600,
    );
    expect(got).toEqual([w(11, 14, 5, 1521504000, 2), w(5, 6, 3, 1521514800, 1), w(20, 22, 11, 1521532800, 2)]);
  });
});

describe("entryOf (one address's part in a transaction)", () => {
  const txid = Buffer.alloc(32, 1);
  it('counts what comes back to a spending address as sent to itself', () => {
    expect(entryOf({ txid, received: 300n, sent: 1000n }, 7)).toEqual({
      time: 7,
      txid: '01'.repeat(32),
      received: 300n,
      sent: 1000n,
      sentToSelf: 300n,
    });
  });
  it('sends nothing to itself when it only receives', () => {
    expect(entryOf({ txid, received: 300n, sent: 0n }, 7).sentToSelf).toBe(0n);
  });
});

describe("Params (json.Unmarshal into Blockbook's request structs)", () => {
  it('reads present fields and zero values for absent or null ones', () => {
    const p = new Params({ txid: 'ab', height: 5, newBlockTxs: true, blocks: [1, 2], specific: { txsize: 3 }, gone: null }, 'WsX');
    expect([p.string('txid'), p.int('height'), p.bool('newBlockTxs'), p.ints('blocks'), p.object('specific')]).toEqual([
      'ab',
      5,
      true,
      [1, 2],
      { txsize: 3 },
    ]);
    expect([p.string('gone'), p.int('none'), p.bool('none'), p.ints('none'), p.strings('none'), p.object('none')]).toEqual([
      '',
      0,
      false,
      [],
      [],
      {},
    ]);
    expect(new Params(undefined, 'WsX').int('height')).toBe(0);
  });

  it("words a mismatch as Go's decoder does", () => {
    const p = new Params({ height: 'one', page: 1.5, txid: 7, blocks: ['x'] }, 'WsBlockHashReq');
    expect(() => p.int('height')).toThrow(
      new BlockbookError(400, 'json: cannot unmarshal string into Go struct field WsBlockHashReq.height of type int'),
    );
    expect(() => p.int('page')).toThrow('json: cannot unmarshal number 1.5 into Go struct field WsBlockHashReq.page of type int');
    expect(() => p.string('txid')).toThrow('json: cannot unmarshal number 7 into Go struct field WsBlockHashReq.txid of type string');
    expect(() => p.ints('blocks')).toThrow('json: cannot unmarshal string into Go struct field WsBlockHashReq.blocks of type int');
    expect(() => new Params([1], 'WsTransactionReq')).toThrow('json: cannot unmarshal array into Go value of type server.WsTransactionReq');
  });
});

describe('addressQuery (sanitizeAccountPagingParams)', () => {
  it('takes the default size for 0 or less, caps it at 1000, and keeps pages within 100,000 entries', () => {
    expect(addressQuery('txids', 1, 0, 0, 0, 'basic', 25)).toEqual({ details: 'txids', page: 1, pageSize: 25, from: 0, to: 0 });
    expect(addressQuery('nonsense', 0, -4, -1, 9, 'basic', 25)).toEqual({ details: 'basic', page: 1, pageSize: 25, from: 0, to: 9 });
    expect(addressQuery(null, 500, 5000, 0, 0)).toMatchObject({ details: 'txids', page: 100, pageSize: 1000 });
  });
});

describe('the Blockbook socket door', () => {
  const door = (blockbook: boolean) => blockbookDoor({ deps: { settings: { blockbook } } } as unknown as BlockbookSocketOptions);
  it("serves each chain's path when the dialect is on, and nothing when it is off", () => {
    expect(['/blockbook/LTC/websocket', '/blockbook/btc/websocket'].map((p) => door(true).serves(p))).toEqual([true, true]);
    expect(['/blockbook/DOGE/websocket', '/blockbook/LTC/websocket/', '/websocket', '/api/v1/ws'].map((p) => door(true).serves(p))).toEqual(
      [false, false, false, false],
    );
    expect(door(false).serves('/blockbook/LTC/websocket')).toBe(false);
    expect(door(true).anyOrigin).toBe(true);
  });
});
