/**
 * Wallet derivation never freezes the API (hostile round three): the real API process over loopback.
 * While one private key's 16-key multisig derives on the derivation threads, another key's address
 * lookup is answered; the same heavy wallet again at once is refused (its price overdrew the bucket);
 * an anonymous WebSocket subscribe over its caps is refused before anything is derived; a subscribe's
 * wallets are charged to the caller's bucket; a partly bad subscribe succeeds and lists what failed.
 */
import { BIP32Factory } from 'bip32';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { MAX_XPUBS_PER_MESSAGE } from '../../src/api/live/ws-items.js';
import { ADDRESS, makeDataDir, metric, ROUTE, type DataDir } from '../support/limits-world.js';
import { WsClient } from '../support/live-clients.js';

const bip32 = BIP32Factory(ecc);

/** A 1-of-16 multisig of fresh tpubs, both branches: every script derives one child of each of 16 keys. */
function multisig(seed: number): string {
  const keys = Array.from({ length: 16 }, (_, i) =>
    bip32
      .fromSeed(Buffer.alloc(32, seed + i), networks.testnet)
      .neutered()
      .toBase58(),
  );
  return `wsh(multi(1,${keys.map((k) => `${k}/<0;1>/*`).join(',')}))`;
}

let data: DataDir;
let api: ApiProcess;
const sockets: WsClient[] = [];

beforeAll(async () => {
  data = makeDataDir('wallet-fairness');
  // Slow refills: a debt a wallet ran up is still owed when the next request comes, however slow the machine.
  const config = path.join(data.dir, 'slow-refill.toml');
  writeFileSync(config, '[api.tiers.default]\nrate = 1\nburst = 10\n[api.tiers.private]\nrate = 1\nburst = 100\n');
  // The shortest request deadline: a wallet's derivation is the server's own work, not a slow client.
  api = await startApi({
    ...data.env,
    ADDRSUM_CONFIG: config,
    ADDRSUM_ALLOW_ANONYMOUS: 'true',
    ADDRSUM_WALLET_THREADS: '1',
    ADDRSUM_REQUEST_TIMEOUT_MS: '1000',
  });
}, 90_000);

afterAll(async () => {
  for (const s of sockets) s.ws.terminate();
  await api?.stop();
  data?.remove();
});

async function postWallet(key: string, body: object): Promise<{ status: number; body: { status: string; data: Record<string, unknown> } }> {
  const res = await fetch(`${api.url}/api/v1/LTC/xpub`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { status: string; data: Record<string, unknown> } };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function open(headers: Record<string, string> = {}): Promise<WsClient> {
  const client = await WsClient.open(api.url, headers);
  sockets.push(client);
  return client;
}

describe('wallet derivation off the event loop', () => {
  it("answers another key's address lookup while a heavy wallet derives, and refuses that wallet twice in a row", async () => {
    // The wallet takes seconds, far past the 1 s request deadline: it is answered all the same.
    const heavy = data.createKey('private').key;
    const other = data.createKey('private').key;
    let settled = false;
    // 16 keys × 2 × 2000 scripts = 64,000 derivations: far above the private burst, taken from a full bucket.
    const first = postWallet(heavy, { key: multisig(1), range: 2000 }).finally(() => (settled = true));
    await waitFor('the derivation to start', async () => ((await metric(api.url, 'addrsum_api_wallet_pending_work')) ?? 0) > 0);
    const lookup = await fetch(`${api.url}${ROUTE}`, { headers: { 'x-api-key': other } });
    expect(lookup.status).toBe(200);
    expect(((await lookup.json()) as { data: { address: string } }).data.address).toBe(ADDRESS);
    expect(settled).toBe(false);
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(answered.body.data.range).toBe(2000);
    const again = await postWallet(heavy, { key: multisig(1), range: 2000 });
    expect(again.status).toBe(429);
    expect(again.body.data.code).toBe('RATE_LIMITED');
  }, 180_000);

  it('refuses an anonymous subscribe over its caps before deriving anything', async () => {
    const before = await metric(api.url, 'addrsum_api_wallet_work_total');
    const client = await open();
    const xpubs = [11, 31, 51, 71, 91].map((seed) => ({ key: multisig(seed), range: 2500 }));
    const reply = await client.op({ op: 'subscribe', chain: 'LTC', xpubs });
    expect(reply).toMatchObject({ status: 'fail', data: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
    expect(await metric(api.url, 'addrsum_api_wallet_work_total')).toBe(before);
    expect(await metric(api.url, 'addrsum_api_wallet_pending_work')).toBe(0);
  }, 60_000);

  it('caps the xpubs of one subscribe message', async () => {
    const client = await open();
    const xpubs = Array.from({ length: MAX_XPUBS_PER_MESSAGE + 1 }, (_, i) => ({ key: multisig(100 + i), range: 1 }));
    expect(await client.op({ op: 'subscribe', chain: 'LTC', xpubs })).toMatchObject({ status: 'fail', data: { code: 'BAD_REQUEST' } });
  }, 60_000);

  it("charges a subscribe's wallets to the caller's bucket, as the xpub route does", async () => {
    const key = data.createKey('default').key;
    const client = await open({ 'x-api-key': key });
    // 16 × 2 × 300 = 9,600 derivations: 48 tokens, more than the default burst of 10, so from a full bucket only.
    const first = await client.op({ op: 'subscribe', chain: 'LTC', xpubs: [{ key: multisig(201), range: 300 }] });
    expect(first.status).toBe('success');
    const second = await client.op({ op: 'subscribe', chain: 'LTC', xpubs: [{ key: multisig(221), range: 100 }] });
    expect(second).toMatchObject({ status: 'fail', data: { code: 'RATE_LIMITED' } });
    // The caller's HTTP requests pay from the same bucket.
    const lookup = await fetch(`${api.url}${ROUTE}`, { headers: { 'x-api-key': key } });
    expect(lookup.status).toBe(429);
  }, 60_000);

  it('answers a partly bad subscribe with success and the failed items, and fails only when nothing was subscribed', async () => {
    const client = await open({ 'x-api-key': data.createKey('private').key });
    const partly = await client.op({ op: 'subscribe', chain: 'LTC', addresses: [ADDRESS, 'not-an-address'] });
    expect(partly.status).toBe('success');
    expect(partly.data.subscribed).toEqual([ADDRESS]);
    expect(partly.data.failed).toEqual([expect.objectContaining({ address: 'not-an-address', code: 'INVALID_ADDRESS' })]);
    const none = await client.op({ op: 'subscribe', chain: 'LTC', addresses: ['not-an-address'] });
    expect(none).toMatchObject({ status: 'fail', data: { code: 'INVALID_ITEMS' } });
    expect(none.data.items).toEqual([expect.objectContaining({ address: 'not-an-address', code: 'INVALID_ADDRESS' })]);
  }, 60_000);
});
