// The status page's script (index.html): renders /status/events, and a lookup held open over the
// WebSocket /api/v1/ws. Plain browser JavaScript, no dependencies: the page must work offline. An API
// key typed in is kept in sessionStorage (this tab only), sent in the auth message, never put in a URL.
'use strict';

const KEY_STORAGE = 'addrsum.apiKey';
const RECONNECT_MS = 3000;

const $ = (id) => document.getElementById(id);

/** Exactly 8 decimals from integer satoshis, as the API writes amounts; no floating point. */
function coins(sats) {
  const negative = sats < 0;
  const abs = Math.abs(sats);
  const whole = Math.floor(abs / 1e8);
  const frac = String(abs % 1e8).padStart(8, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

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
  // EventSource reconnects on its own.
  events.onerror = () => ($('connection').textContent = 'reconnecting…');
}

// ---- lookup ----

let lookup = null;
let pendingChain = null;

function showLookupState(text) {
  $('lookup-state').textContent = text;
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
  const key = sessionStorage.getItem(KEY_STORAGE);
  let stopped = false;
  let socket = null;
  let timer = null;
  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/ws`);
    const subscribe = () => socket.send(JSON.stringify({ op: 'subscribe', id: 2, chain, addresses: [address], mempool: true }));
    socket.onopen = () => {
      showLookupState('subscribing…');
      // With a key, subscribe once the auth reply says it is accepted.
      if (key) socket.send(JSON.stringify({ op: 'auth', id: 1, key }));
      else subscribe();
    };
    socket.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.id === 1 && m.status === 'success') {
        subscribe();
      } else if (m.event === 'summary') {
        renderSummary(m.data);
        showLookupState('live: updates when the balance changes');
      } else if (m.status === 'fail') {
        const item = m.data.items && m.data.items[0];
        showLookupState(`${(item || m.data).code}: ${(item || m.data).message}`);
      }
    };
    socket.onclose = () => {
      if (stopped) return;
      showLookupState('disconnected; reconnecting…');
      timer = setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();
  lookup = {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (socket) socket.close();
    },
  };
}

function onSubmit(e) {
  e.preventDefault();
  const chain = $('lookup-chain').value;
  const address = $('lookup-address').value.trim();
  const key = $('lookup-key').value.trim();
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  $('lookup-key').value = '';
  if (!chain || !address) return;
  // The address may be shared in a link; the key never is.
  history.replaceState(null, '', `/?chain=${encodeURIComponent(chain)}&address=${encodeURIComponent(address)}`);
  startLookup(chain, address);
}

function init() {
  followStatus();
  $('lookup-form').addEventListener('submit', onSubmit);
  if (sessionStorage.getItem(KEY_STORAGE)) $('lookup-key').placeholder = 'a key is kept for this tab';
  const params = new URLSearchParams(location.search);
  const chain = (params.get('chain') || '').toUpperCase();
  const address = params.get('address');
  if (chain && address) {
    pendingChain = chain;
    $('lookup-address').value = address;
    startLookup(chain, address);
  }
}

init();
