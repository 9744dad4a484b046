/**
 * The status page when the server refuses it, in a real browser (Debian's chromium through
 * playwright-core) against the real API process over a small LTC regtest index (no node needed), which
 * serves keyed callers only: a wrong key, no key, a throttled key check, an auth timeout and a refused
 * status stream each say so in words, never in protocol text. Refusals only the user can cure are not
 * retried: the page's clock is run past any reconnect delay and the page has still opened one socket.
 * The throttle and the auth timeout come from a scripted WebSocket (page.routeWebSocket) built from the
 * server's own protocol module: the real throttle refills too fast to be caught from a test. The
 * transactions list's failures (history being built, an index catching up, a proxy's page, a stale
 * cursor) and hostile values come from scripted answers (page.route) in the server's own envelopes.
 */
import http from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { launchBrowser, type Browser } from '../../harness/browser.js';
import { ServingError as ApiError } from '../../src/serving/errors.js';
import { jsendBody } from '../../src/api/errors.js';
import { CLOSE, failData } from '../../src/api/live/ws-protocol.js';
import { historyBuilding } from '../../src/api/routes/transactions.js';
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
const TXS = new RegExp(`/api/v1/${CHAIN}/address/${ADDRESS}/transactions\\?`);
/** Above 2^53: JSON.parse alone would round it. */
const HUGE_SATS = '9007199254740993';

interface Scripted {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

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
  const open = async (pathAndQuery: string, before?: (page: Page) => Promise<unknown>): Promise<Opened> => {
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
    await page.getByLabel('Address, txid, block hash or height', { exact: true }).fill(ADDRESS);
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

  it('the transactions list: history being built, then failures said in words, retried only when the server says when', async () => {
    const syncing = new ApiError('CHAIN_SYNCING', 'the LTC index is at height 1 of 9; answers resume when it has caught up', {
      indexedHeight: 1,
      nodeHeight: 9,
    });
    const answers: Scripted[] = [
      {
        status: 503,
        headers: { 'Retry-After': '5' },
        body: JSON.stringify(jsendBody(historyBuilding('LTC', { height: 424, tipHeight: 999 }))),
      },
      { status: 503, headers: { 'Retry-After': '5' }, body: JSON.stringify(jsendBody(syncing)) },
      { status: 502, body: '<html><body>Bad Gateway</body></html>' },
    ];
    let asked = 0;
    const opened = await open('/', (page) =>
      page.route(TXS, (route) => {
        const a = answers[Math.min(asked++, answers.length - 1)]!;
        return route.fulfill({ status: a.status, headers: a.headers ?? {}, contentType: 'application/json', body: a.body });
      }),
    );
    const { page } = opened;
    const historyState = () => page.textContent('#history-state');
    const looksLikeError = async () => ((await page.getAttribute('#history-state', 'class')) ?? '').includes('state-down');
    await lookUp(page, data.createKey('default').key);
    await expect.poll(historyState, DEADLINE).toBe('History is being built (42.5%).');
    expect(await looksLikeError()).toBe(false);

    await page.clock.runFor(5_000);
    await expect.poll(historyState, DEADLINE).toBe(`The transactions could not be listed: ${syncing.message}.`);
    expect(await looksLikeError()).toBe(true);
    await page.clock.runFor(5_000);
    await expect.poll(historyState, DEADLINE).toBe('The transactions could not be listed: the server answered HTTP 502.');
    expect(await looksLikeError()).toBe(true);
    // A failure that names no delay waits for the next summary or the user.
    await page.clock.runFor(PAST_EVERY_RETRY_MS);
    expect(asked).toBe(3);
    const text = (await page.textContent('body')) ?? '';
    for (const raw of ['CHAIN_SYNCING', 'HISTORY_BUILDING', '<html>', '{"']) expect(text).not.toContain(raw);
    expect(uncaught(opened.errors)).toEqual([]);
  }, 120_000);

  it('the transactions list: values are text, amounts exact past 2^53; a stale cursor starts the list again', async () => {
    const hostile = '<img id="injected" src="x">';
    const first = `{"status":"success","data":{"chain":"${CHAIN}","address":"${ADDRESS}","transactions":[{"txid":${JSON.stringify(hostile)},"height":7,"receivedSatoshi":${HUGE_SATS},"received":90071992.54740993,"sentSatoshi":0,"sent":0}],"next":"AAAA","blockHeight":7,"blockHash":"00"}}`;
    const stale = JSON.stringify(jsendBody(new ApiError('CURSOR_STALE', 'a block arrived since this cursor was issued; start again')));
    const urls: string[] = [];
    const opened = await open('/', (page) =>
      page.route(TXS, (route) => {
        urls.push(route.request().url());
        const isMore = route.request().url().includes('cursor=');
        return route.fulfill({ status: isMore ? 409 : 200, contentType: 'application/json', body: isMore ? stale : first });
      }),
    );
    const { page } = opened;
    await lookUp(page, data.createKey('default').key);
    const cells = () => page.locator('#history-list tbody td').allTextContents();
    await expect.poll(cells, DEADLINE).toEqual([hostile, '7', '90071992.54740993', '0.00000000']);
    expect(await page.locator('#injected').count()).toBe(0);

    await page.getByRole('button', { name: 'More transactions' }).click();
    await expect
      .poll(() => page.textContent('#history-state'), DEADLINE)
      .toBe('A new block arrived: the list starts again from the newest.');
    // The page says so before its fresh first request reaches the route: wait for that request.
    await expect.poll(() => urls.map((u) => new URL(u).searchParams.get('cursor')), DEADLINE).toEqual([null, 'AAAA', null]);
    await expect.poll(cells, DEADLINE).toEqual([hostile, '7', '90071992.54740993', '0.00000000']);
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
