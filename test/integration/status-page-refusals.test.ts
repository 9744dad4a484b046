/**
 * The status page when the server refuses it, in a real browser (Debian's chromium through
 * playwright-core) against the real API process over a small LTC regtest index (no node needed), which
 * serves keyed callers only: a wrong key, no key, a throttled key check, an auth timeout and a refused
 * status stream each say so in words, never in protocol text. Refusals only the user can cure are not
 * retried: the page's clock is run past any reconnect delay and the page has still opened one socket.
 * The throttle and the auth timeout come from a scripted WebSocket (page.routeWebSocket) built from the
 * server's own protocol module: the real throttle refills too fast to be caught from a test.
 */
import http from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { launchBrowser, type Browser } from '../../harness/browser.js';
import { ApiError } from '../../src/api/errors.js';
import { CLOSE, failData } from '../../src/api/live/ws-protocol.js';
import { STATUS_STREAMS_PER_NETWORK } from '../../src/api/routes/status-page.js';
import { generateKey } from '../../src/store/keys/key-format.js';
import { ADDRESS, makeDataDir, type DataDir } from '../support/limits-world.js';
import { countSockets, type SocketCount } from '../support/page-sockets.js';

const CHAIN = 'LTC';
const DEADLINE = { timeout: 30_000, interval: 100 };
/** Longer than any reconnect delay the page may choose. */
const PAST_EVERY_RETRY_MS = 60 * 60 * 1000;
const NEEDS_KEY = 'This server needs an API key for lookups. Enter one above.';
const THROTTLED = 'too many requests with a missing or wrong API key from this network (1/s, burst 20); retry in 7 s';

interface Opened {
  readonly page: Page;
  readonly errors: string[];
  readonly sockets: () => Promise<SocketCount>;
}

describe('status page refusals in chromium', () => {
  let data: DataDir;
  let api: ApiProcess;
  let browser: Browser;
  const held: http.ClientRequest[] = [];
  /** Closed after each test, passed or not: an open page holds a status stream of the network's few. */
  const pages: Page[] = [];

  beforeAll(async () => {
    data = makeDataDir('status-refusals');
    api = await startApi(data.env);
    browser = await launchBrowser();
  }, 120_000);

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
  });

  afterAll(async () => {
    for (const req of held) req.destroy();
    await browser?.close();
    await api?.stop();
    data?.remove();
  });

  /** A page with a hand-run clock, its sockets counted, opened at `pathAndQuery`. */
  const open = async (pathAndQuery: string, before?: (page: Page) => Promise<void>): Promise<Opened> => {
    const { page, errors } = await browser.page();
    pages.push(page);
    // A scripted WebSocket replaces the browser's: the counter goes on top of it.
    await before?.(page);
    const sockets = await countSockets(page);
    await page.clock.install();
    expect((await page.goto(`${api.url}${pathAndQuery}`))?.status()).toBe(200);
    return { page, errors, sockets };
  };
  const lookUp = async (page: Page, key: string): Promise<void> => {
    await expect.poll(() => page.locator('#lookup-chain option').count(), DEADLINE).toBeGreaterThan(0);
    await page.getByLabel('Address', { exact: true }).fill(ADDRESS);
    await page.getByLabel(/API key/).fill(key);
    await page.getByRole('button', { name: 'Look up' }).click();
  };
  const lookupState = (page: Page) => page.textContent('#lookup-state');
  const storedKey = (page: Page) => page.evaluate('sessionStorage.getItem("addrsum.apiKey")');
  /** The page stays at one socket, closed, even with its clock run past any reconnect delay. */
  const expectNoReconnect = async ({ page, sockets }: Opened): Promise<void> => {
    await expect.poll(sockets, DEADLINE).toEqual({ created: 1, settled: 1 });
    await page.clock.runFor(PAST_EVERY_RETRY_MS);
    expect(await sockets()).toEqual({ created: 1, settled: 1 });
  };
  // Console errors are left out: the browser logs the refusals these tests provoke there.
  const uncaught = (errors: string[]) => errors.filter((e) => e.startsWith('pageerror'));

  it('a wrong key: says the key was refused, forgets it, does not reconnect; a valid key then works', async () => {
    const opened = await open('/');
    const { page } = opened;
    await lookUp(page, generateKey());
    await expect.poll(() => lookupState(page), DEADLINE).toBe('The API key was refused: unknown API key. Enter a valid key.');
    await expectNoReconnect(opened);
    expect(await storedKey(page)).toBeNull();

    await lookUp(page, data.createKey('default').key);
    await expect.poll(() => page.textContent('#result-balance'), DEADLINE).toBe(`0.00000000 ${CHAIN}`);
    expect(await lookupState(page)).toBe('live: updates when the balance changes');
    expect((await opened.sockets()).created).toBe(2);
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);

  it('no key on a keyed server: says the server needs one, no protocol text, does not reconnect', async () => {
    const opened = await open(`/?chain=${CHAIN}&address=${ADDRESS}`);
    const { page } = opened;
    await expect.poll(() => lookupState(page), DEADLINE).toBe(NEEDS_KEY);
    await expectNoReconnect(opened);
    const text = (await page.textContent('body')) ?? '';
    for (const raw of ['MISSING_API_KEY', '"op"', 'x-api-key']) expect(text).not.toContain(raw);
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);

  it('a throttled key check: says so, keeps the key, waits for the user', async () => {
    let connections = 0;
    const opened = await open('/', (page) =>
      page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => {
        connections++;
        ws.onMessage((message) => {
          const op = JSON.parse(String(message)) as { op: string; id: number };
          if (op.op !== 'auth') return;
          ws.send(JSON.stringify({ id: op.id, status: 'fail', data: failData(new ApiError('RATE_LIMITED', THROTTLED)) }));
          void ws.close({ code: CLOSE.throttled, reason: 'RATE_LIMITED' });
        });
      }),
    );
    const { page } = opened;
    const key = data.createKey('default').key;
    await lookUp(page, key);
    await expect
      .poll(() => lookupState(page), DEADLINE)
      .toBe(`API keys from this network are throttled: ${THROTTLED}. Press Look up to try again.`);
    await expectNoReconnect(opened);
    expect(connections).toBe(1);
    // The page keeps what the user typed; the user decides whether to change it.
    expect(await storedKey(page)).toBe(key);
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);

  it('an auth timeout close: says the server needs a key, does not reconnect', async () => {
    const opened = await open(`/?chain=${CHAIN}&address=${ADDRESS}`, (page) =>
      page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => ws.close({ code: CLOSE.authTimeout, reason: 'no auth message in time' })),
    );
    await expect.poll(() => lookupState(opened.page), DEADLINE).toBe(NEEDS_KEY);
    await expectNoReconnect(opened);
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);

  it('a refused status stream: says so instead of "reconnecting…", and comes back once a place is free', async () => {
    // The page's browser connects from 127.0.0.1, as these do: the same client network. Every place is
    // taken here once the server has let go of the streams of this suite's earlier pages.
    await expect
      .poll(async () => {
        while (await holdStatusStream(api.url, held));
        return held.length;
      }, DEADLINE)
      .toBe(STATUS_STREAMS_PER_NETWORK);
    const opened = await open('/');
    const { page } = opened;
    const connection = () => page.textContent('#connection');
    await expect.poll(connection, DEADLINE).toBe('status updates refused (a network may keep only a few status pages open); retrying…');

    held.shift()!.destroy();
    // Each turn runs the page's retry timer; the server frees the place when it sees the close.
    await expect
      .poll(async () => {
        await page.clock.runFor(PAST_EVERY_RETRY_MS);
        return connection();
      }, DEADLINE)
      .toBe('live');
    expect(await page.textContent(`#chain-${CHAIN} [data-field="indexed-height"]`)).toBe('1');
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);
});

/** Opens GET /status/events: true when answered 200 (kept open, in `held`), false when refused. */
function holdStatusStream(url: string, held: http.ClientRequest[]): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/status/events`, { agent: false }, (res) => {
      res.resume();
      if (res.statusCode === 200) held.push(req);
      resolve(res.statusCode === 200);
    });
    req.on('error', reject);
  });
}
