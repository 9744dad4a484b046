/**
 * GET /api/v1/{chain}/scripthash/{hash} through the whole app over fake indexes (every response checked
 * against /openapi.json), and the store's key read against a real index: the Electrum scripthash of a
 * script finds exactly what the script itself finds.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { parseScripthash } from '../../src/serving/scripthash-param.js';
import { buildWorld, Caller, type Answer, type World } from '../support/api-world.js';
import { writeOneCoinIndex } from '../support/one-coin-index.js';

const P2PKH = '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';
const P2PKH_SCRIPT = '76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac';
// Bare P2PK (the genesis coinbase key) and a bare 1-of-2 multisig: no address names either.
const P2PK_SCRIPT =
  '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac';
const MULTISIG_SCRIPT =
  '5121' +
  '02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5' +
  '21' +
  '02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f952ae';
const TIP = 'ab'.repeat(32);

/** Electrum: SHA-256 of the scriptPubKey, byte-reversed, hex. */
const electrum = (scriptHex: string) => createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest().reverse().toString('hex');

let world: World;
let caller: Caller;
let key: string;

const byHash = (hash: string, query = '', headers: Record<string, string> = {}) =>
  caller.send('GET', `/api/v1/btc/scripthash/${hash}${query}`, { 'x-api-key': key, ...headers });
const byAddress = (address: string, query = '') => caller.send('GET', `/api/v1/btc/address/${address}${query}`, { 'x-api-key': key });
const data = (a: Answer) => (a.body as { data: Record<string, unknown> }).data;

beforeEach(() => {
  world = buildWorld();
  caller = new Caller(world.app);
  key = world.createKey('private').key;
  world.index.BTC.set(P2PKH_SCRIPT, 150_000, 2);
  world.index.BTC.set(P2PK_SCRIPT, 5_000_000_000, 1);
  world.index.BTC.set(MULTISIG_SCRIPT, 7, 3);
  world.index.BTC.setMempool(P2PKH_SCRIPT, { balanceSats: -100_000, utxoCount: -1, txCount: 2 });
});

afterEach(() => {
  expect(caller.problems).toEqual([]);
  world.cleanup();
});

describe('GET /api/v1/{chain}/scripthash/{hash}', () => {
  it('answers what the address route answers for the same script, with scripthash in place of address', async () => {
    const hash = electrum(P2PKH_SCRIPT);
    for (const q of ['', '?mempool=true']) {
      const a = await byHash(hash, q);
      const b = await byAddress(P2PKH, q);
      expect(a.status).toBe(200);
      const { scripthash, ...rest } = data(a);
      const { address, ...restB } = data(b);
      expect(scripthash).toBe(hash);
      expect(address).toBe(P2PKH);
      expect(rest).toEqual(restB);
    }
    expect(data(await byHash(hash))).toMatchObject({ balanceSatoshi: 150_000, utxoCount: 2, blockHeight: 100, blockHash: TIP });
  });

  it('answers P2PK and bare multisig outputs, which have no address', async () => {
    expect((await byHash(electrum(P2PK_SCRIPT))).text).toBe(
      `{"status":"success","data":{"chain":"BTC","scripthash":"${electrum(P2PK_SCRIPT)}","balanceSatoshi":5000000000,` +
        `"balance":50.00000000,"utxoCount":1,"blockHeight":100,"blockHash":"${TIP}"}}`,
    );
    expect(data(await byHash(electrum(MULTISIG_SCRIPT)))).toMatchObject({ balanceSatoshi: 7, utxoCount: 3 });
  });

  it('answers zeros for a script never seen, and reads upper-case hex as lower case', async () => {
    const unseen = electrum('6a');
    expect(data(await byHash(unseen))).toMatchObject({ scripthash: unseen, balanceSatoshi: 0, utxoCount: 0 });
    expect(data(await byHash(electrum(P2PKH_SCRIPT).toUpperCase()))).toMatchObject({ scripthash: electrum(P2PKH_SCRIPT), utxoCount: 2 });
  });

  it('answers 400 INVALID_SCRIPTHASH for anything but 64 hex digits, before reading the index', async () => {
    const good = electrum(P2PKH_SCRIPT);
    for (const bad of [good.slice(2), `${good}00`, `${good.slice(1)}g`, 'zz', P2PKH_SCRIPT]) {
      const lookups = world.index.BTC.lookups;
      const a = await byHash(bad);
      expect(a.status, bad).toBe(400);
      expect(data(a).code).toBe('INVALID_SCRIPTHASH');
      expect(world.index.BTC.lookups).toBe(lookups);
    }
  });

  it('answers 304 to its own ETag, 405 to other methods, and needs a key as the address route does', async () => {
    const hash = electrum(P2PKH_SCRIPT);
    const first = await byHash(hash);
    expect((await byHash(hash, '', { 'if-none-match': String(first.headers.etag) })).status).toBe(304);
    expect((await caller.send('POST', `/api/v1/btc/scripthash/${hash}`, { 'x-api-key': key })).status).toBe(405);
    expect((await caller.send('GET', `/api/v1/btc/scripthash/${hash}`)).status).toBe(401);
  });
});

describe('the store read by script key', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the coin of a script by the script key taken from its Electrum scripthash', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'addrsum-scripthash-'));
    const file = path.join(dir, 'ltc.sqlite');
    writeOneCoinIndex(file, 'regtest', Buffer.from(MULTISIG_SCRIPT, 'hex'), 4321);
    const reader = ChainReader.open(file);
    try {
      const byKey = reader.keyViews([parseScripthash(electrum(MULTISIG_SCRIPT)).key], true);
      expect(byKey?.items).toEqual(reader.views([Buffer.from(MULTISIG_SCRIPT, 'hex')], true)?.items);
      expect(byKey?.items[0]).toMatchObject({ balanceSats: 4321n, utxoCount: 1 });
      expect(reader.keyViews([parseScripthash(electrum(P2PKH_SCRIPT)).key], false)?.items[0]).toEqual({ balanceSats: 0n, utxoCount: 0 });
    } finally {
      reader.close();
    }
  });
});
