/**
 * GET /api/v1/{chain}/xpub/{key} and POST /api/v1/{chain}/xpub through the whole app over fake indexes;
 * every response is checked against /openapi.json. Keys are BIP84's published account key (its
 * addresses are the BIP's own vectors) and keys made here from a fixed seed.
 */
import { BIP32Factory } from 'bip32';
import { networks, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { descriptorChecksum } from '../../src/wallet/checksum.js';
import { buildWorld, Caller, type Answer, type World, type WorldOptions } from '../support/api-world.js';

const bip32 = BIP32Factory(ecc);
// BIP84's account 0 key and the addresses the BIP lists for it.
const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const RECEIVE_0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const CHANGE_0 = 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el';
const TIP = 'ab'.repeat(32);

const master = bip32.fromSeed(Buffer.alloc(32, 7), networks.bitcoin);
const XPRV = master.toBase58();
const XPUB = master.neutered().toBase58();
const WIF = master.derive(0).toWIF();

let world: World;
let caller: Caller;
let key: string;

const script = (address: string) => {
  const r = addressToScript(chainParams('BTC', 'mainnet'), address);
  if (!r.ok) throw new Error(address);
  return Buffer.from(r.script).toString('hex');
};
/** The pkh() script at branch/index below XPUB, derived here with bip32 and bitcoinjs directly. */
const xpubScript = (branch: number, index: number) =>
  script(payments.p2pkh({ pubkey: Buffer.from(master.neutered().derive(branch).derive(index).publicKey) }).address!);

const get = (walletKey: string, query = '', headers: Record<string, string> = {}) =>
  caller.send('GET', `/api/v1/btc/xpub/${encodeURIComponent(walletKey)}${query}`, { 'x-api-key': key, ...headers });
const post = (body: unknown, query = '', headers: Record<string, string> = {}) =>
  caller.send(
    'POST',
    `/api/v1/btc/xpub${query}`,
    { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    typeof body === 'string' ? body : JSON.stringify(body),
  );
const data = (a: Answer) => (a.body as { data: Record<string, unknown> }).data;
const code = (a: Answer) => data(a).code;

function setUp(options: WorldOptions = {}, tier: 'default' | 'private' = 'private'): void {
  world = buildWorld(options);
  caller = new Caller(world.app);
  key = world.createKey(tier).key;
}

beforeEach(() => setUp());

afterEach(() => {
  expect(caller.problems).toEqual([]);
  world.cleanup();
});

describe('wallet summaries', () => {
  beforeEach(() => {
    world.index.BTC.set(script(RECEIVE_0), 100_000, 1);
    world.index.BTC.set(script(CHANGE_0), 20_000, 2);
  });

  it('sums a zpub over both branches (wpkh, /0/* and /1/*) and names the canonical descriptors', async () => {
    const a = await get(ZPUB, '?range=10');
    expect(a.status).toBe(200);
    const d = data(a);
    expect(d).toMatchObject({
      chain: 'BTC',
      balanceSatoshi: 120_000,
      utxoCount: 3,
      fundedAddresses: 2,
      range: 10,
      blockHeight: 100,
      blockHash: TIP,
    });
    expect(a.text).toContain('"balance":0.00120000,');
    const descriptors = d.descriptors as string[];
    expect(descriptors).toHaveLength(2);
    expect(descriptors[0]).toMatch(/^wpkh\(xpub[1-9A-Za-z]+\/0\/\*\)#[a-z0-9]{8}$/);
    expect(descriptors[1]).toMatch(/^wpkh\(xpub[1-9A-Za-z]+\/1\/\*\)#[a-z0-9]{8}$/);
    for (const desc of descriptors) expect(desc.split('#')[1]).toBe(descriptorChecksum(desc.split('#')[0]!));
    expect(d.addresses).toBeUndefined();
  });

  it('reads indices 0 … range-1: a coin at index 150 counts at range 200, not at range 100', async () => {
    world.index.BTC.set(xpubScript(0, 150), 777, 1);
    const desc = `pkh(${XPUB}/0/*)`;
    expect(data(await get(desc, '?range=100'))).toMatchObject({ balanceSatoshi: 0, fundedAddresses: 0 });
    expect(data(await get(desc, '?range=151'))).toMatchObject({ balanceSatoshi: 777, fundedAddresses: 1 });
    expect(data(await get(desc, '?range=200'))).toMatchObject({ balanceSatoshi: 777, utxoCount: 1, fundedAddresses: 1, range: 200 });
    // The default range is 1000, as the README says.
    expect(data(await get(desc))).toMatchObject({ balanceSatoshi: 777, range: 1000 });
  });

  it('?details=funded lists exactly the scripts holding coins, with path, address and scripthash', async () => {
    const d = data(await get(ZPUB, '?range=5&details=funded'));
    expect(d.addresses).toEqual([
      {
        path: '0/0',
        address: RECEIVE_0,
        scripthash: expect.stringMatching(/^[0-9a-f]{64}$/),
        balanceSatoshi: 100_000,
        balance: 0.001,
        utxoCount: 1,
      },
      {
        path: '1/0',
        address: CHANGE_0,
        scripthash: expect.stringMatching(/^[0-9a-f]{64}$/),
        balanceSatoshi: 20_000,
        balance: 0.0002,
        utxoCount: 2,
      },
    ]);
    // The listed scripthash answers the same script on the scripthash route.
    const entry = (d.addresses as { scripthash: string }[])[0]!;
    const byHash = await caller.send('GET', `/api/v1/btc/scripthash/${entry.scripthash}`, { 'x-api-key': key });
    expect(data(byHash)).toMatchObject({ balanceSatoshi: 100_000, utxoCount: 1 });
  });

  it('answers null for the address of a bare multisig script', async () => {
    const other = Buffer.from(master.neutered().derive(9).publicKey).toString('hex');
    const desc = `multi(1,${XPUB}/0/*,${other})`;
    const first = data(await get(desc, '?range=1&details=funded'));
    expect(first.addresses).toEqual([]);
    // Fund index 0's script: the route lists it with a null address.
    const pub0 = master.neutered().derive(0).derive(0).publicKey;
    const ms = payments.p2ms({ m: 1, pubkeys: [Buffer.from(pub0), Buffer.from(other, 'hex')] }).output!;
    world.index.BTC.set(Buffer.from(ms).toString('hex'), 5, 1);
    const d = data(await get(desc, '?range=1&details=funded'));
    expect(d.addresses).toMatchObject([{ path: '0/0', address: null, balanceSatoshi: 5 }]);
  });

  it('POST with the key in the body answers what GET answers, and ?mempool=true adds the sums of the deltas', async () => {
    world.index.BTC.setMempool(script(RECEIVE_0), { balanceSats: -100_000, utxoCount: -1, txCount: 1 });
    const viaGet = await get(ZPUB, '?range=10&mempool=true&details=funded');
    const viaPost = await post({ key: ZPUB, range: 10 }, '?mempool=true&details=funded');
    expect(viaPost.status).toBe(200);
    expect(viaPost.text).toBe(viaGet.text);
    expect(data(viaPost).unconfirmed).toEqual({ balanceSatoshi: -100_000, balance: -0.001, utxoCount: -1 });
    expect(viaPost.text).toContain('"unconfirmed":{"balanceSatoshi":-100000,"balance":-0.00100000,"utxoCount":-1}');
  });

  it('with history kept, unconfirmed sums what mempool transactions pay to and spend from the wallet’s scripts, and per entry', async () => {
    world.index.BTC.setMempool(script(RECEIVE_0), { balanceSats: -100_000, utxoCount: -1, txCount: 1, received: 0n, sent: 100_000n });
    world.index.BTC.setMempool(script(CHANGE_0), { balanceSats: 60_000, utxoCount: 1, txCount: 1, received: 60_000n, sent: 0n });
    const a = await get(ZPUB, '?range=10&mempool=true&details=funded');
    expect(a.status).toBe(200);
    expect(a.text).toContain(
      '"unconfirmed":{"balanceSatoshi":-40000,"balance":-0.00040000,"utxoCount":0,' +
        '"receivedSatoshi":60000,"received":0.00060000,"sentSatoshi":100000,"sent":0.00100000}',
    );
    const entries = data(a).addresses as { address: string; unconfirmed: object }[];
    expect(entries.find((e) => e.address === CHANGE_0)?.unconfirmed).toEqual({
      balanceSatoshi: 60_000,
      balance: 0.0006,
      utxoCount: 1,
      txCount: 1,
      receivedSatoshi: 60_000,
      received: 0.0006,
      sentSatoshi: 0,
      sent: 0,
    });
  });
});

describe('refusals: 400 with a code of their own, never the key', () => {
  const tpub = bip32.fromSeed(Buffer.alloc(32, 7), networks.testnet).neutered().toBase58();
  const cases: Array<[string, string, string]> = [
    ['an xprv', XPRV, 'PRIVATE_KEY_REFUSED'],
    ['a WIF in a descriptor', `wpkh(${WIF})`, 'PRIVATE_KEY_REFUSED'],
    ['a bad checksum', `pkh(${XPUB}/0/*)#aaaaaaaa`, 'BAD_CHECKSUM'],
    ['a key of another network', tpub, 'WRONG_NETWORK'],
    ['a hardened step below an xpub', `pkh(${XPUB}/0h/*)`, 'HARDENED_BELOW_XPUB'],
    ['a malformed descriptor', `pkh(${XPUB}/0/*`, 'MALFORMED_DESCRIPTOR'],
    ['garbage', 'not a key', 'MALFORMED_DESCRIPTOR'],
  ];

  it.each(cases)('%s, by GET and by POST', async (_what, input, expected) => {
    for (const a of [await get(input), await post({ key: input })]) {
      expect(a.status).toBe(400);
      expect(code(a)).toBe(expected);
      if (input.length > 40) expect(a.text).not.toContain(input.slice(5, 40));
    }
  });

  it('ranges: BAD_RANGE for 0 or text, RANGE_TOO_LARGE past api.xpubMaxRange', async () => {
    world.cleanup();
    setUp({ xpubMaxRange: 50 });
    expect(code(await get(ZPUB, '?range=0'))).toBe('BAD_RANGE');
    expect(code(await get(ZPUB, '?range=ten'))).toBe('BAD_RANGE');
    expect(code(await post({ key: ZPUB, range: 1.5 }))).toBe('BAD_RANGE');
    expect(code(await post({ key: ZPUB, range: 5 }, '?range=5'))).toBe('BAD_RANGE');
    expect(code(await get(ZPUB, '?range=51'))).toBe('RANGE_TOO_LARGE');
    expect((await get(ZPUB, '?range=50')).status).toBe(200);
  });

  it('a private key is refused before the range or the body is judged', async () => {
    expect(code(await get(XPRV, '?range=abc'))).toBe('PRIVATE_KEY_REFUSED');
    expect(code(await get(`wpkh(${WIF})`, '?range=1&range=2'))).toBe('PRIVATE_KEY_REFUSED');
    expect(code(await post({ key: XPRV, range: 'abc' }))).toBe('PRIVATE_KEY_REFUSED');
    expect(code(await post({ key: XPRV }, '?range=abc'))).toBe('PRIVATE_KEY_REFUSED');
  });

  it('a key sent as a member name is refused if private and never echoed', async () => {
    const asName = await post({ [XPRV]: 1 });
    expect(code(asName)).toBe('PRIVATE_KEY_REFUSED');
    expect(asName.text).not.toContain(XPRV.slice(0, 12));
    const publicName = await post({ [XPUB]: 1 });
    expect(code(publicName)).toBe('BAD_REQUEST');
    expect(publicName.text).not.toContain(XPUB.slice(0, 12));
    // A plain misspelt member is still named, so the caller can fix it.
    expect(data(await post({ kye: ZPUB })).message).toContain('"kye"');
  });

  it('bodies and parameters: INVALID_JSON, BAD_REQUEST', async () => {
    expect(code(await post('{'))).toBe('INVALID_JSON');
    expect(code(await post({ key: ZPUB, extra: 1 }))).toBe('BAD_REQUEST');
    expect(code(await post([ZPUB]))).toBe('BAD_REQUEST');
    expect(code(await post({ range: 5 }))).toBe('MALFORMED_DESCRIPTOR');
    expect(code(await get(ZPUB, '?details=all'))).toBe('BAD_REQUEST');
    expect(code(await get(ZPUB, '?mempool=maybe'))).toBe('BAD_REQUEST');
  });
});

describe('the derivation cache', () => {
  it('derives a wallet once: a repeated query, by GET or POST, derives nothing', async () => {
    expect(world.derivations.derivations).toBe(0);
    await get(ZPUB, '?range=20');
    expect(world.derivations.derivations).toBe(1);
    await get(ZPUB, '?range=20');
    await post({ key: ZPUB, range: 20 });
    // The same wallet spelled as its descriptor has the same fingerprint.
    const zpubDesc = (data(await get(ZPUB, '?range=20')).descriptors as string[])[0]!;
    expect(world.derivations.derivations).toBe(1);
    await get(zpubDesc, '?range=20');
    expect(world.derivations.derivations).toBe(2);
    await get(ZPUB, '?range=21');
    expect(world.derivations.derivations).toBe(3);
  });
});

describe('limits charge by work', () => {
  it('takes one token per 200 derived scripts (at least one), by GET and POST', async () => {
    world.cleanup();
    setUp({ tiers: { default: { rate: 1, burst: 30 }, private: { rate: 1, burst: 30 } } }, 'default');
    const remaining = (a: Answer) => Number(a.headers['ratelimit-remaining']);
    expect(remaining(await get(ZPUB, '?range=1'))).toBe(29);
    // 2 branches × 1000 = 2000 scripts: 10 tokens.
    expect(remaining(await get(ZPUB))).toBe(19);
    // 2 × 201 = 402 scripts: 3 tokens.
    expect(remaining(await post({ key: ZPUB, range: 201 }))).toBe(16);
    // One branch of 100: one token; a refused input: one token.
    expect(remaining(await get(`pkh(${XPUB}/0/*)`, '?range=100'))).toBe(15);
    expect(remaining(await get(XPRV))).toBe(14);
    // 2 × 7500 = 15,000 scripts = 75 tokens: more than any burst of this tier.
    const over = await get(ZPUB, '?range=7500');
    expect(over.status).toBe(429);
    expect(code(over)).toBe('RATE_LIMITED');
  });
});

describe('wallets are priced by their key derivations', () => {
  /** `n` extended keys of their own, each on both branches: every script derives one child of each. */
  const multisig = (n: number) =>
    `wsh(multi(1,${Array.from(
      { length: n },
      (_, i) =>
        `${bip32
          .fromSeed(Buffer.alloc(32, 40 + i), networks.bitcoin)
          .neutered()
          .toBase58()}/<0;1>/*`,
    ).join(',')}))`;

  it('charges keys × scripts before deriving, and a price above the burst overdraws a full bucket once', async () => {
    world.cleanup();
    setUp({ tiers: { default: { rate: 1, burst: 30 }, private: { rate: 1, burst: 30 } } });
    const remaining = (a: Answer) => Number(a.headers['ratelimit-remaining']);
    // 4 keys × 2 × 100 scripts = 800 derivations: 4 tokens (one per 200), not the 1 its 200 scripts would be.
    const four = await get(multisig(4), '?range=100');
    expect(four.status).toBe(200);
    expect(remaining(four)).toBe(26);
    // 16 keys × 2 × 300 = 9,600 derivations: 48 tokens, more than the burst. Refused while the bucket is not full…
    const early = await post({ key: multisig(16), range: 300 });
    expect(early.status).toBe(429);
    expect(world.derivations.derivations).toBe(1);
    // …and taken from a full one, which the caller then repays before anything else.
    world.cleanup();
    setUp({ tiers: { default: { rate: 1, burst: 30 }, private: { rate: 1, burst: 30 } } });
    const heavy = await post({ key: multisig(16), range: 300 });
    expect(heavy.status).toBe(200);
    expect(remaining(heavy)).toBe(0);
    const again = await post({ key: multisig(16), range: 300 });
    expect(again.status).toBe(429);
    // 18 tokens below zero and 30 to refill at 1/s.
    expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(30);
  });
});

describe('privacy: logs carry a fingerprint, never a key', () => {
  it('writes no private key sent in a GET path or a POST body, and no public key either', async () => {
    const tprv = bip32.fromSeed(Buffer.alloc(32, 8), networks.testnet).toBase58();
    const secrets = [XPRV, WIF, tprv, XPUB, ZPUB];
    const answers = [
      await get(XPRV),
      await get(`wpkh(${WIF})`),
      await get(`sh(wpkh(${tprv}/0/*))`),
      await post({ key: XPRV }),
      await post({ key: `pkh(${WIF})`, range: 3 }),
      await post({ key: `wpkh(${tprv}/<0;1>/*)` }),
      await get(`pkh(${XPUB}/0/*)`, '?range=3'),
      await post({ key: ZPUB, range: 3 }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 200, 200]);
    const log = world.logs.join('');
    const lines = world.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request' && String(l.route).includes('xpub'));
    // Every request was logged (so the check below reads something) …
    expect(lines).toHaveLength(answers.length);
    // … and no key, private or public, nor any long part of one, is in it.
    for (const secret of secrets) {
      for (let at = 0; at + 20 <= secret.length; at += 10) expect(log).not.toContain(secret.slice(at, at + 20));
    }
    // The answered requests name their wallet by fingerprint, on the route template.
    expect(lines.slice(6).map((l) => [l.route, l.wallet])).toEqual([
      ['/api/v1/:chain/xpub/*key', expect.stringMatching(/^[0-9a-f]{16}$/)],
      ['/api/v1/:chain/xpub', expect.stringMatching(/^[0-9a-f]{16}$/)],
    ]);
    expect(lines.slice(0, 6).every((l) => l.wallet === undefined)).toBe(true);
  });
});
