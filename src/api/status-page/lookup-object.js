// The status page's transaction and block views (index.html, loaded before status.js): a txid, block
// hash or height typed in the lookup box, read from GET /api/v1/{chain}/tx/{txid} or …/block/{id}, shown
// with links between addresses, transactions and blocks (each a plain link to `/?chain=…&tx=…`,
// `…&block=…` or `…&address=…`, so it can be shared and opened in another tab; a typed id is `…&q=…`). The key goes in the x-api-key
// header, never in a URL. Every value is set as text: nothing the API says is ever parsed as HTML.
/* global $, el, coins, sentence, parseExact, refusalOf */
/* exported isObjectQuery, lookupObject */
'use strict';

/** Txids shown of a block: a glance, the API pages the rest. */
const BLOCK_TXIDS = 25;

/** A txid or block hash (64 hex digits) or a block height: what the object view answers. */
const isObjectQuery = (q) => /^[0-9a-fA-F]{64}$/.test(q) || /^\d{1,10}$/.test(q);

/** A link to the transaction (`kind` tx) or block (`kind` block) `id`. */
const objectLink = (chain, kind, id, text) =>
  el('a', { href: `/?chain=${encodeURIComponent(chain)}&${kind}=${encodeURIComponent(id)}` }, text ?? id);
const addressLink = (chain, address) =>
  el('a', { href: `/?chain=${encodeURIComponent(chain)}&address=${encodeURIComponent(address)}` }, address);

/** An output's owner: its address as a link, else what its script is (MWEB programs, P2PK, OP_RETURN…). */
const owner = (chain, o) => (o.address ? addressLink(chain, o.address) : el('span', { class: 'script-type' }, o.type));

/** A definition list of [term, value] pairs; a value is text or a node. */
function facts(pairs) {
  const dl = el('dl', {});
  for (const [term, value] of pairs) dl.append(el('dt', {}, term), el('dd', {}, value));
  return dl;
}

function table(caption, head, rows) {
  const t = el('table', {}, el('caption', {}, caption));
  t.append(el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))));
  const body = el('tbody', {});
  for (const cells of rows) body.append(el('tr', {}, ...cells.map((c) => el('td', {}, c))));
  t.append(body);
  return t;
}

function renderTx(chain, d) {
  const s = d.status;
  const place = s.confirmed
    ? el('span', {}, 'in block ', objectLink(chain, 'block', s.blockHash, String(s.height)), ` (${s.confirmations} confirmations)`)
    : 'unconfirmed (in the mempool)';
  const inputs = d.inputs.map((i, n) => [
    String(n),
    i.txid === null ? 'coinbase' : objectLink(chain, 'tx', i.txid, `${i.txid}:${i.vout}`),
    i.prevout ? owner(chain, i.prevout) : '—',
    i.prevout ? `${coins(i.prevout.valueSatoshi)} ${chain}` : '—',
  ]);
  const outputs = d.outputs.map((o) => [
    String(o.n),
    owner(chain, o),
    `${coins(o.valueSatoshi)} ${chain}`,
    o.spent === null
      ? 'unspent'
      : o.spent.txid === null
        ? 'spent'
        : objectLink(chain, 'tx', o.spent.txid, `spent by ${o.spent.txid}:${o.spent.vin}`),
  ]);
  return [
    el('h3', { id: 'object-title' }, 'Transaction'),
    facts([
      ['Txid', el('span', { id: 'object-txid' }, d.txid)],
      ['Status', el('span', { id: 'object-status' }, place)],
      ['Fee', d.feeSatoshi === null ? '—' : `${coins(d.feeSatoshi)} ${chain}`],
      ['Size', `${d.size} bytes, ${d.vsize} vbytes`],
    ]),
    table('Inputs', ['#', 'spends', 'from', 'value'], inputs),
    table('Outputs', ['#', 'to', 'value', 'spent'], outputs),
  ];
}

function renderBlock(chain, d, txids) {
  const list = txids.txids.map((t, i) => [String(txids.start + i), objectLink(chain, 'tx', t)]);
  return [
    el('h3', { id: 'object-title' }, 'Block'),
    facts([
      ['Height', el('span', { id: 'object-height' }, String(d.height))],
      ['Hash', d.hash],
      ['Time', new Date(d.time * 1000).toISOString()],
      ['Transactions', String(d.txCount)],
      ['Size', `${d.size} bytes, weight ${d.weight}`],
      ['Previous', d.previousBlockHash === null ? '—' : objectLink(chain, 'block', d.previousBlockHash, String(d.height - 1))],
      ['Next', d.nextBlockHash === null ? '— (the tip)' : objectLink(chain, 'block', d.nextBlockHash, String(d.height + 1))],
    ]),
    table(txids.next === null ? 'Transactions' : `The first ${list.length} transactions`, ['#', 'txid'], list),
  ];
}

/**
 * Shows the transaction or block `q` names on `chain` in #object, or says why it cannot. `kind`: 'tx' or
 * 'block' when a link said which; else a 64-digit id is asked as a transaction first, then as a block.
 */
async function lookupObject(chain, q, key, kind) {
  const box = $('object');
  const state = $('object-state');
  box.hidden = false;
  $('object-view').replaceChildren();
  state.textContent = 'looking up…';
  const headers = key ? { 'x-api-key': key } : {};
  const get = async (path) => {
    const res = await fetch(`/api/v1/${encodeURIComponent(chain)}${path}`, { headers });
    return { status: res.status, body: parseExact(await res.text()) };
  };
  try {
    let view = null;
    let refusal = null;
    if (kind === 'tx' || (kind === undefined && /^[0-9a-fA-F]{64}$/.test(q))) {
      const tx = await get(`/tx/${q}`);
      if (tx.status === 200) view = renderTx(chain, tx.body.data);
      else if (refusalOf(tx.body)?.code !== 'TX_NOT_FOUND')
        refusal = `The lookup was refused: ${sentence(refusalOf(tx.body)?.message ?? String(tx.status))}.`;
    }
    if (view === null && refusal === null) {
      const block = await get(`/block/${q}`);
      if (block.status === 200) {
        const txids = await get(`/block/${block.body.data.hash}/txids?limit=${BLOCK_TXIDS}`);
        view = renderBlock(chain, block.body.data, txids.status === 200 ? txids.body.data : { start: 0, txids: [], next: null });
      } else refusal = `No transaction or block ${q}: ${sentence(refusalOf(block.body)?.message ?? String(block.status))}.`;
    }
    $('object-view').replaceChildren(...(view ?? []));
    state.textContent = refusal ?? '';
  } catch (err) {
    state.textContent = `The lookup failed: ${sentence(String(err && err.message ? err.message : err))}.`;
  }
}
