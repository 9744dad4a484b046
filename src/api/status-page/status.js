// The status page's script (index.html): renders /status/events, and a lookup held open over the
// WebSocket /api/v1/ws. Plain browser JavaScript, no dependencies: the page must work offline. An API
// key typed in is kept in sessionStorage (this tab only), sent in the auth message, never put in a URL.
// A lookup's history (totals, latest transactions) is lookup-history.js's.
/* global lookupHistory, isObjectQuery, lookupObject */
'use strict';

const KEY_STORAGE = 'addrsum.apiKey';
/** First reconnect delay of a lookup; doubled after each close, up to RECONNECT_MAX_MS. */
const RECONNECT_MS = 3000;
// A server that keeps refusing the upgrade (too many sockets from this network) is asked less and less often.
const RECONNECT_MAX_MS = 60_000;
// EventSource gives up on a refused stream for good; the server's Retry-After for it is a few seconds.
const STATUS_RETRY_MS = 10_000;
/** Close codes of /api/v1/ws (src/api/live/ws-protocol.ts) after which only the user can change the outcome. */
const CLOSE_AUTH_FAILED = 4401;
const CLOSE_AUTH_TIMEOUT = 4408;
const CLOSE_THROTTLED = 4429;
const AUTH_ID = 1;
const SUBSCRIBE_ID = 2;

const $ = (id) => document.getElementById(id);

/** Exactly 8 decimals from integer satoshis (a number or a BigInt), as the API writes amounts; no floating point. */
function coins(sats) {
  const n = BigInt(sats);
  const abs = n < 0n ? -n : n;
  return `${n < 0n ? '-' : ''}${abs / 100000000n}.${String(abs % 100000000n).padStart(8, '0')}`;
}

/**
 * JSON with every `…Satoshi` integer as a BigInt from its digits: lifetime sums (received, sent) may
 * pass 2^53, which JSON.parse alone rounds. A browser without the reviver's source text keeps numbers.
 */
const parseExact = (text) =>
  JSON.parse(text, (key, value, context) =>
    key.endsWith('Satoshi') && context && typeof context.source === 'string' && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );

const plural = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function duration(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'unknown';
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} days`;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

// ---- chains ----

/** Per chain: where a catch-up was first seen, to estimate its rate and ETA. */
const catchUps = new Map();

function syncState(row) {
  if (row.ready) return { text: 'in sync', cls: 'state-ready' };
  if (row.bootstrap) return { text: `loading a UTXO snapshot: ${row.bootstrap.phase}`, cls: 'state-syncing' };
  if (row.lag !== null && row.lag > 0 && row.indexedHeight !== null) return { text: 'catching up', cls: 'state-syncing' };
  return { text: row.reason ? `not ready: ${row.reason}` : 'not ready', cls: 'state-down' };
}

/** A snapshot load's share of coins read, and an ETA from the rate seen since this page first saw it. */
function bootstrapProgress(row) {
  const b = row.bootstrap;
  if (!b.total) return null;
  const key = `${row.chain}/bootstrap`;
  const now = Date.now();
  let first = catchUps.get(key);
  if (!first || first.height > b.coins) catchUps.set(key, (first = { height: b.coins, at: now }));
  const rate = (b.coins - first.height) / ((now - first.at) / 1000);
  const reading = b.phase === 'reading coins in txid order';
  const eta = !reading ? 'unknown' : rate > 0 ? duration((b.total - b.coins) / rate) : 'estimating…';
  return { percent: (100 * b.coins) / b.total, eta, label: `${row.chain} snapshot load progress` };
}

function progress(row) {
  if (row.bootstrap) return bootstrapProgress(row);
  catchUps.delete(`${row.chain}/bootstrap`);
  if (row.lag === null || row.lag <= 0 || row.nodeHeight === null || row.indexedHeight === null) {
    catchUps.delete(row.chain);
    return null;
  }
  const now = Date.now();
  let first = catchUps.get(row.chain);
  if (!first || first.height > row.indexedHeight) catchUps.set(row.chain, (first = { height: row.indexedHeight, at: now }));
  const rate = (row.indexedHeight - first.height) / ((now - first.at) / 1000);
  const eta = rate > 0 ? duration(row.lag / rate) : 'estimating…';
  const percent = row.nodeHeight > 0 ? (100 * row.indexedHeight) / row.nodeHeight : 0;
  return { percent, eta, label: `${row.chain} sync progress` };
}

function renderChain(row) {
  const id = `chain-${row.chain}`;
  const card = $(id) || el('article', { id, class: 'chain' });
  const state = syncState(row);
  const p = progress(row);
  const fields = [
    ['Network', row.network],
    ['Indexed height', row.indexedHeight === null ? '—' : String(row.indexedHeight)],
    ['Indexed hash', row.indexedHash || '—', 'hash'],
    ['Node height', row.nodeHeight === null ? '—' : String(row.nodeHeight)],
    ['Lag', row.lag === null ? '—' : `${row.lag} blocks`],
    ['Tip age', duration(row.tipAgeSeconds)],
    ['Mempool', row.mempoolTxs === null || row.mempoolTxs === undefined ? '—' : plural(row.mempoolTxs, 'transaction')],
  ];
  const list = el('dl', {});
  list.append(el('dt', {}, 'State'), el('dd', { class: state.cls, 'data-field': 'state' }, state.text));
  for (const [name, value, cls] of fields) {
    const field = name.toLowerCase().replace(/ /g, '-');
    list.append(el('dt', {}, name), el('dd', { 'data-field': field, ...(cls ? { class: cls } : {}) }, value));
  }
  if (p) {
    const bar = el('progress', { max: '100', value: p.percent.toFixed(2), 'aria-label': p.label });
    list.append(el('dt', {}, 'Progress'), el('dd', { 'data-field': 'progress' }, bar, ` ${p.percent.toFixed(2)} % · ETA ${p.eta}`));
  }
  card.replaceChildren(el('h2', {}, row.chain), list);
  if (!card.isConnected) $('chains').append(card);
}

function renderStatus(status) {
  $('version').textContent = status.version;
  for (const row of status.chains) renderChain(row);
  const select = $('lookup-chain');
  for (const row of status.chains) {
    if (![...select.options].some((o) => o.value === row.chain)) select.append(el('option', { value: row.chain }, row.chain));
  }
  if (pendingChain && [...select.options].some((o) => o.value === pendingChain)) {
    select.value = pendingChain;
    pendingChain = null;
  }
}

function followStatus() {
  const events = new EventSource('/status/events');
  events.addEventListener('status', (e) => {
    $('connection').textContent = 'live';
    renderStatus(JSON.parse(e.data));
  });
  events.onerror = () => {
    // A dropped stream is reopened by EventSource itself; one answered with an error (the server's
    // cap of status streams per client network) is closed for good, and the page does not see why.
    if (events.readyState !== EventSource.CLOSED) {
      $('connection').textContent = 'reconnecting…';
      return;
    }
    $('connection').textContent = 'status updates refused (a network may keep only a few status pages open); retrying…';
    setTimeout(followStatus, STATUS_RETRY_MS);
  };
}

// ---- lookup ----

let lookup = null;
let pendingChain = null;

const NEEDS_KEY = 'This server needs an API key for lookups. Enter one above.';

function showLookupState(text) {
  $('lookup-state').textContent = text;
}

/** Keeps a typed key for this tab only (null: none), and says so where the key is typed. */
function keepKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  $('lookup-key').placeholder = key ? 'a key is kept for this tab' : '';
}

/** A server message as a clause of the page's own sentences (the server's own end without a full stop). */
const sentence = (message) => String(message || '').replace(/[.\s]+$/, '');

/**
 * What a refused auth message means for the lookup: the text to show, and whether the page may try
 * again by itself (only when the server, not the key, was at fault).
 */
function authRefusal(data) {
  switch (data.code) {
    case 'MISSING_API_KEY':
      return { text: NEEDS_KEY, retry: false };
    case 'INVALID_API_KEY':
      return { text: `The API key was refused: ${sentence(data.message)}. Enter a valid key.`, retry: false, forget: true };
    case 'RATE_LIMITED':
      // Waits for the user instead of retrying after the delay: only a missing or wrong key is throttled
      // (a valid one never is), and each retry would spend the allowance the network shares.
      return { text: `API keys from this network are throttled: ${sentence(data.message)}. Press Look up to try again.`, retry: false };
    default:
      return { text: `The server could not check the API key: ${sentence(data.message)}. Reconnecting…`, retry: true };
  }
}

/** The text for a close that came without a reply saying why (null: an ordinary disconnection). */
function closeRefusal(code) {
  if (code === CLOSE_AUTH_TIMEOUT) return NEEDS_KEY;
  if (code === CLOSE_AUTH_FAILED) return 'The API key was refused. Enter a valid key.';
  if (code === CLOSE_THROTTLED) return 'API keys from this network are throttled. Press Look up to try again later.';
  return null;
}

function renderSummary(data) {
  $('result-address').textContent = data.address;
  $('result-balance').textContent = `${coins(data.balanceSatoshi)} ${data.chain}`;
  $('result-utxos').textContent = String(data.utxoCount);
  $('result-unconfirmed').textContent = data.unconfirmed
    ? `${coins(data.unconfirmed.balanceSatoshi)} ${data.chain} in ${plural(data.unconfirmed.txCount, 'transaction')}`
    : '—';
  $('result-height').textContent = String(data.blockHeight);
  $('lookup-result').hidden = false;
}

function startLookup(chain, address) {
  if (lookup) lookup.stop();
  $('object').hidden = true;
  const key = sessionStorage.getItem(KEY_STORAGE);
  const txs = lookupHistory(chain, address, key);
  let stopped = false;
  let socket = null;
  let timer = null;
  let delay = RECONNECT_MS;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    txs.stop();
    if (socket) socket.close();
  };
  /** Ends the lookup with a message: a retry would be refused alike, so only the user starts another. */
  const end = (text) => {
    showLookupState(text);
    stop();
  };
  const connect = () => {
    /** Why the server is about to close this socket, when its reply said so and a retry may cure it. */
    let closing = null;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/ws`);
    const subscribe = () => socket.send(JSON.stringify({ op: 'subscribe', id: SUBSCRIBE_ID, chain, addresses: [address], mempool: true }));
    socket.onopen = () => {
      showLookupState('subscribing…');
      // With a key, subscribe once the auth reply says it is accepted.
      if (key) socket.send(JSON.stringify({ op: 'auth', id: AUTH_ID, key }));
      else subscribe();
    };
    socket.onmessage = (e) => {
      const m = parseExact(e.data);
      if (m.event === 'summary') {
        delay = RECONNECT_MS;
        renderSummary(m.data);
        txs.onSummary(m.data);
        showLookupState('live: updates when the balance changes');
      } else if (m.id === AUTH_ID && m.status === 'success') {
        subscribe();
      } else if (m.id === AUTH_ID && m.status === 'fail') {
        const refusal = authRefusal(m.data);
        // Not sent again on a reload: each wrong key spends the allowance its client network shares.
        if (refusal.forget) keepKey(null);
        if (refusal.retry) closing = refusal.text;
        else end(refusal.text);
      } else if (m.id === SUBSCRIBE_ID && m.status === 'fail') {
        // Nothing is subscribed (the one address was refused): the socket has nothing left to carry.
        if (m.data.code === 'MISSING_API_KEY') return end(NEEDS_KEY);
        const item = m.data.items && m.data.items[0];
        end(`The lookup was refused: ${sentence((item || m.data).message)}.`);
      }
    };
    socket.onclose = (e) => {
      if (stopped) return;
      const refused = closeRefusal(e.code);
      if (refused && !closing) return end(refused);
      showLookupState(closing || 'disconnected; reconnecting…');
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    };
  };
  connect();
  lookup = { stop };
}

function onSubmit(e) {
  e.preventDefault();
  const chain = $('lookup-chain').value;
  const address = $('lookup-address').value.trim();
  keepKey($('lookup-key').value.trim() || null);
  $('lookup-key').value = '';
  if (!chain || !address) return;
  // The address may be shared in a link; the key never is.
  const kind = isObjectQuery(address) ? 'q' : 'address';
  history.replaceState(null, '', `/?chain=${encodeURIComponent(chain)}&${kind}=${encodeURIComponent(address)}`);
  if (kind === 'q') showObject(chain, address);
  else startLookup(chain, address);
}

/** A transaction or block in place of an address lookup; `kind` as lookupObject's. */
function showObject(chain, q, kind) {
  if (lookup) lookup.stop();
  lookup = null;
  $('lookup-result').hidden = true;
  $('history').hidden = true;
  showLookupState('');
  lookupObject(chain, q, sessionStorage.getItem(KEY_STORAGE), kind);
}

function init() {
  followStatus();
  $('lookup-form').addEventListener('submit', onSubmit);
  keepKey(sessionStorage.getItem(KEY_STORAGE));
  const params = new URLSearchParams(location.search);
  const chain = (params.get('chain') || '').toUpperCase();
  const address = params.get('address');
  const kind = ['tx', 'block', 'q'].find((k) => params.has(k));
  const q = kind && params.get(kind);
  if (chain && address) {
    pendingChain = chain;
    $('lookup-address').value = address;
    startLookup(chain, address);
  } else if (chain && q && isObjectQuery(q)) {
    pendingChain = chain;
    $('lookup-address').value = q;
    showObject(chain, q, kind === 'q' ? undefined : kind);
  }
}

init();
