// The status page's lookup history (index.html, loaded before status.js): a lookup's totals from its
// summaries, and its latest transactions from GET …/address/{a}/transactions, page by page with the
// answer's `next` cursor. The key goes in the x-api-key header, never in a URL. Every value is set as
// text: nothing the API says is ever parsed as HTML.
/* global $, el, coins, sentence, parseExact */
/* exported lookupHistory */
'use strict';

/** Transactions per page: a glance at the latest, not a statement. */
const HISTORY_PAGE = 10;
// A 503 or 429 without its own delay is asked again after this; a long Retry-After is capped so the
// page does not look stuck.
const HISTORY_RETRY_MS = 5000;
const HISTORY_RETRY_MAX_MS = 60_000;

/** The code, message and data of a JSend failure (4xx: in `data`; 5xx: at the top), or null. */
function refusalOf(body) {
  if (!body || typeof body !== 'object') return null;
  const r = body.status === 'fail' ? body.data : body.status === 'error' ? body : null;
  return r && typeof r.code === 'string' ? { code: r.code, message: r.message, data: r.data } : null;
}

/** Shows a summary row and its label, or hides both. */
function showRow(id, text) {
  const dd = $(id);
  dd.textContent = text === null ? '' : text;
  dd.hidden = text === null;
  dd.previousElementSibling.hidden = text === null;
}

/** The totals of a summary; hidden while its index keeps no history (no txCount). */
function renderTotals(data) {
  const kept = data.txCount !== undefined;
  showRow('result-txcount', kept ? String(data.txCount) : null);
  showRow('result-received', kept ? `${coins(data.receivedSatoshi)} ${data.chain}` : null);
  showRow('result-sent', kept ? `${coins(data.sentSatoshi)} ${data.chain}` : null);
}

/**
 * One lookup's transactions list. `onSummary` is called with every summary the lookup receives; the
 * first page is read again whenever a summary names another tip than the list was read at, since the
 * list's cursor is bound to its tip. `stop` drops whatever is in flight.
 */
function lookupHistory(chain, address, key) {
  const base = `/api/v1/${encodeURIComponent(chain)}/address/${encodeURIComponent(address)}/transactions?limit=${HISTORY_PAGE}`;
  let stopped = false;
  /** Bumped by every first-page read: an answer of an older one is dropped. */
  let generation = 0;
  let tip = null;
  let next = null;
  let disabled = false;
  let retry = null;

  const state = (text, isError) => {
    $('history-state').textContent = text;
    $('history-state').classList.toggle('state-down', Boolean(isError));
  };
  const more = $('history-more');
  const table = $('history-list');

  const reset = () => {
    const head = el(
      'tr',
      {},
      el('th', { scope: 'col' }, 'Transaction'),
      el('th', { scope: 'col' }, 'Height'),
      el('th', { scope: 'col' }, `Received (${chain})`),
      el('th', { scope: 'col' }, `Sent (${chain})`),
    );
    table.replaceChildren(el('thead', {}, head), el('tbody', {}));
    table.hidden = true;
    more.hidden = true;
  };

  const append = (items) => {
    const body = table.tBodies[0];
    for (const t of items) {
      body.append(
        el(
          'tr',
          {},
          el('td', { class: 'hash' }, String(t.txid)),
          el('td', {}, String(t.height)),
          el('td', {}, coins(t.receivedSatoshi)),
          el('td', {}, coins(t.sentSatoshi)),
        ),
      );
    }
    table.hidden = body.rows.length === 0;
  };

  /** GET one page: the parsed body, or a refusal in words (`error` false where nothing is wrong). */
  const read = async (cursor) => {
    const url = cursor === null ? base : `${base}&cursor=${encodeURIComponent(cursor)}`;
    let res;
    try {
      res = await fetch(url, { headers: key ? { 'x-api-key': key } : {}, cache: 'no-store' });
    } catch {
      return { text: 'The transactions could not be listed: the server could not be reached.', error: true };
    }
    let body = null;
    try {
      body = parseExact(await res.text());
    } catch {
      // Not JSON (a proxy's page): said by its status below, never shown raw.
    }
    if (res.ok && body && body.status === 'success') return { page: body.data };
    const refusal = refusalOf(body);
    const after = Number(res.headers.get('Retry-After'));
    const wait =
      res.status === 503 || res.status === 429 ? Math.min(after > 0 ? after * 1000 : HISTORY_RETRY_MS, HISTORY_RETRY_MAX_MS) : null;
    if (refusal && refusal.code === 'HISTORY_DISABLED')
      return { text: `This server keeps no transaction history for ${chain}.`, disabled: true };
    if (refusal && refusal.code === 'HISTORY_BUILDING') {
      // HISTORY_BUILDING's data says how far the build is (docs/api.md).
      const percent = refusal.data && typeof refusal.data.percent === 'number' ? refusal.data.percent : null;
      const text = percent === null ? `History is being built: ${sentence(refusal.message)}.` : `History is being built (${percent}%).`;
      return { text, wait };
    }
    if (refusal && refusal.code === 'CURSOR_STALE') return { stale: true };
    const why = refusal ? sentence(refusal.message) : `the server answered HTTP ${res.status}`;
    return { text: `The transactions could not be listed: ${why}.`, error: true, wait };
  };

  /** Reads the first page again; `note` is said above it when it comes. */
  const load = async (note = '') => {
    const mine = ++generation;
    clearTimeout(retry);
    state(table.hidden ? 'loading transactions…' : note);
    const r = await read(null);
    if (stopped || mine !== generation) return;
    reset();
    if (r.page) {
      disabled = false;
      tip = r.page.blockHash;
      next = r.page.next;
      append(r.page.transactions);
      state(r.page.transactions.length === 0 ? 'No confirmed transactions.' : note);
      more.hidden = next === null;
      return;
    }
    disabled = Boolean(r.disabled);
    state(r.text, r.error);
    if (r.wait !== null && r.wait !== undefined) retry = setTimeout(() => void load(), r.wait);
  };

  const loadMore = async () => {
    if (next === null) return;
    const mine = generation;
    more.disabled = true;
    const r = await read(next);
    more.disabled = false;
    if (stopped || mine !== generation) return;
    if (r.stale) return void load('A new block arrived: the list starts again from the newest.');
    if (!r.page) return state(r.text, r.error);
    next = r.page.next;
    append(r.page.transactions);
    more.hidden = next === null;
    state('');
  };

  const onMore = () => void loadMore();
  more.addEventListener('click', onMore);
  reset();
  state('');
  $('history').hidden = true;

  return {
    onSummary(data) {
      renderTotals(data);
      $('history').hidden = false;
      // A server without history says so once; a summary with totals means it keeps history now.
      if (data.blockHash === tip || (disabled && data.txCount === undefined)) return;
      tip = data.blockHash;
      void load();
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
      more.removeEventListener('click', onMore);
    },
  };
}
