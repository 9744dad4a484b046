import { describe, expect, it } from 'vitest';
import { Transaction } from 'bitcoinjs-lib';
import { ByteReader, ParseError } from '../../src/chain/byte-reader.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { withoutMweb } from '../../src/chain/ltc/mweb-strip.js';
import { readTransaction } from '../../src/chain/tx-parser.js';
import { readHexFixture, readJsonFixture } from '../support/fixtures.js';

/** Each transaction of a serialized block, as its bytes. */
function blockTxs(block: Buffer): Buffer[] {
  const r = new ByteReader(block, 80);
  const count = r.compactSize(1);
  const txs: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    readTransaction(r);
    txs.push(block.subarray(start, r.pos));
  }
  return txs;
}

/** What Electrum does with the served bytes: bitcoinjs-lib parses them, and the txid must be the node's. */
function expectElectrumParses(served: Buffer, txid: string): void {
  const tx = Transaction.fromHex(served.toString('hex'));
  expect(tx.getId()).toBe(txid);
}

const mempool = readJsonFixture<{ txs: { name: string; txid: string; hex: string }[] }>('ltc-mempool/mweb-txs.json').txs;

describe('withoutMweb: real Litecoin regtest bytes', () => {
  for (const file of ['432-mweb-activation-pegin.hex', '443-pegout.hex', '435-empty-extension.hex']) {
    it(`block ${file}: the HogEx loses flag 0x08 and its MWEB part, keeps its txid; the others are unchanged`, () => {
      const txs = blockTxs(readHexFixture(`blocks/ltc-regtest/${file}`));
      const hogEx = txs.at(-1)!;
      expect(hogEx[4]).toBe(0x00);
      expect(hogEx[5]! & 0x08).toBe(0x08);
      // bitcoinjs-lib, as Electrum, cannot read the node's form.
      expect(() => Transaction.fromHex(hogEx.toString('hex'))).toThrow();
      const served = withoutMweb(hogEx);
      expect(served.length).toBeLessThan(hogEx.length);
      const txid = toDisplayHex(readTransaction(new ByteReader(hogEx)).txid);
      expectElectrumParses(served, txid);
      if ((hogEx[5]! & 0x01) === 0) expect(served[4]).not.toBe(0x00); // no flag left: legacy form, no marker
      for (const tx of txs.slice(0, -1)) expect(withoutMweb(tx)).toBe(tx);
    });
  }

  it('a mempool peg-in (flags 0x09) keeps its witnesses, drops its MWEB body, keeps its txid', () => {
    const pegin = mempool.find((t) => t.name === 'pegin')!;
    const raw = Buffer.from(pegin.hex, 'hex');
    expect(raw[5]).toBe(0x09);
    const served = withoutMweb(raw);
    expect(served[4]).toBe(0x00);
    expect(served[5]).toBe(0x01);
    expectElectrumParses(served, pegin.txid);
    expect(Transaction.fromHex(served.toString('hex')).hasWitnesses()).toBe(true);
  });

  it('an MWEB-only transaction (txid from its kernel) has no such form: a ParseError', () => {
    for (const name of ['mweb2mweb', 'pegout']) {
      const raw = Buffer.from(mempool.find((t) => t.name === name)!.hex, 'hex');
      expect(() => withoutMweb(raw)).toThrow(ParseError);
    }
  });

  it('bytes that are not one transaction: a ParseError', () => {
    expect(() => withoutMweb(Buffer.from('0200', 'hex'))).toThrow(ParseError);
  });
});
