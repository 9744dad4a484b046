/**
 * The Blockbook dialect's pure parts against what Blockbook's Go code does: its OP_RETURN text
 * (TryParseOPReturn), the addresses its parser gives each script kind, its paging (computePaging) and
 * its lenient number and flag parsing (validateIntParam, strconv.ParseBool).
 */
import { describe, expect, it } from 'vitest';
import { payments } from 'bitcoinjs-lib';
import { chainParams } from '../../src/chain/params.js';
import { boolParam, intParam } from '../../src/api/blockbook/blockbook-params.js';
import { BlockbookError } from '../../src/api/blockbook/blockbook-answers.js';
import { opReturnText, paging, scriptAddresses, utxoValue } from '../../src/api/blockbook/blockbook-values.js';

const hex = (h: string) => Buffer.from(h, 'hex');
const btc = chainParams('BTC', 'mainnet');
// Two points on secp256k1 (the generator G and 2G), compressed.
const G = hex('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const G2 = hex('02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5');

describe('opReturnText (TryParseOPReturn)', () => {
  it.each([
    ['6a0568656c6c6f', 'OP_RETURN (hello)'],
    ['6a04deadbeef', 'OP_RETURN deadbeef'],
    [`6a4c05${Buffer.from('abcde').toString('hex')}`, 'OP_RETURN (abcde)'],
    [`6a4d0500${Buffer.from('abcde').toString('hex')}`, 'OP_RETURN (abcde)'],
  ])('%s → %s', (script, text) => {
    expect(opReturnText(hex(script))).toBe(text);
  });

  it.each([['6a'], ['6a05aabb'], ['76a9'], ['']])('%s has no text', (script) => {
    expect(opReturnText(hex(script))).toBeNull();
  });
});

describe('scriptAddresses', () => {
  it('an address script is searchable', () => {
    const p2wpkh = payments.p2wpkh({ pubkey: G });
    expect(scriptAddresses(btc, p2wpkh.output!)).toEqual({ addresses: [p2wpkh.address], isAddress: true });
  });

  it('P2PK and bare multisig show their keys as P2PKH addresses, not searchable', () => {
    const p2pkh = (pubkey: Buffer) => payments.p2pkh({ pubkey }).address;
    expect(scriptAddresses(btc, payments.p2pk({ pubkey: G }).output!)).toEqual({ addresses: [p2pkh(G)], isAddress: false });
    expect(scriptAddresses(btc, payments.p2ms({ m: 1, pubkeys: [G, G2] }).output!)).toEqual({
      addresses: [p2pkh(G), p2pkh(G2)],
      isAddress: false,
    });
  });

  it('a witness program of version 2 or more has no address, as in Blockbook', () => {
    expect(scriptAddresses(btc, hex(`5220${'aa'.repeat(32)}`))).toEqual({ addresses: [], isAddress: false });
    expect(scriptAddresses(btc, hex(`6002${'aa'.repeat(2)}`))).toEqual({ addresses: [], isAddress: false });
  });

  it('OP_RETURN shows its text; anything else nothing', () => {
    expect(scriptAddresses(btc, hex('6a0568656c6c6f'))).toEqual({ addresses: ['OP_RETURN (hello)'], isAddress: false });
    expect(scriptAddresses(btc, hex('51'))).toEqual({ addresses: [], isAddress: false });
  });
});

describe('paging (computePaging)', () => {
  it('counts pages, at least one, and answers a page past the end with the last', () => {
    expect(paging(0, 1, 1000)).toEqual({ page: 1, totalPages: 1, itemsOnPage: 1000 });
    expect(paging(7, 2, 3)).toEqual({ page: 2, totalPages: 3, itemsOnPage: 3 });
    expect(paging(7, 9, 3)).toEqual({ page: 3, totalPages: 3, itemsOnPage: 3 });
    expect(paging(6, 3, 3)).toEqual({ page: 2, totalPages: 2, itemsOnPage: 3 });
  });
});

describe('query parsing', () => {
  it('intParam: no integer or below min is the default, above max is max', () => {
    expect(intParam(null, 1000, 0, 1000)).toBe(1000);
    expect(intParam('1.5', 1000, 0, 1000)).toBe(1000);
    expect(intParam('-3', 7, 0, 1000)).toBe(7);
    expect(intParam('+25', 7, 0, 1000)).toBe(25);
    expect(intParam('5000', 7, 0, 1000)).toBe(1000);
  });

  it('boolParam: Go spellings only', () => {
    expect(boolParam(null, 'confirmed')).toBe(false);
    expect(boolParam('True', 'confirmed')).toBe(true);
    expect(boolParam('f', 'confirmed')).toBe(false);
    expect(() => boolParam('yes', 'confirmed')).toThrow(new BlockbookError(400, "Parameter 'confirmed' cannot be converted to boolean"));
  });
});

describe('utxoValue', () => {
  const txid = Buffer.alloc(32, 1);
  it('a mempool output has no height and no confirmations', () => {
    expect(utxoValue({ txid, vout: 0, value: 5n, height: null, coinbase: null }, 10)).toEqual({
      txid: txid.toString('hex'),
      vout: 0,
      value: '5',
      confirmations: 0,
    });
  });

  it('a coinbase output says so only while immature', () => {
    expect(utxoValue({ txid, vout: 1, value: 5n, height: 10, coinbase: true }, 108)).toMatchObject({ confirmations: 99, coinbase: true });
    expect(utxoValue({ txid, vout: 1, value: 5n, height: 10, coinbase: true }, 109)).not.toHaveProperty('coinbase');
  });
});
