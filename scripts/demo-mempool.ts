/**
 * The demo's unconfirmed and batch lines: a payment left in the mempool and the `?mempool=true` answer
 * for its recipient (checked against what the node says the payment is), then one batch request for
 * several addresses at once. Printed as ready-to-paste curl lines with the API's answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { coins, type RegtestNode } from '../harness/regtest-wallet.js';
import type { ApiTarget, ShowItem } from './demo-showcase.js';

const PAYMENT_SATS = 50_000_000;

interface Unconfirmed {
  balanceSatoshi: number;
  txCount: number;
}

/** Returns 1 when the mempool answer disagrees with the node (or never came), else 0. */
export async function printMempoolAndBatch(
  node: RegtestNode,
  api: ApiTarget,
  items: readonly ShowItem[],
  say: (line: string) => void,
): Promise<number> {
  const to = await node.cli<string>('getnewaddress', '', 'bech32');
  const txid = await node.cli<string>('sendtoaddress', to, coins(PAYMENT_SATS));
  const single = `${api.base}/api/v1/LTC/address/${to}?mempool=true`;
  let text = '';
  let status = 0;
  let unconfirmed: Unconfirmed | undefined;
  // The indexer reconciles with the node's mempool every second (no ZMQ on Debian's litecoind).
  for (let i = 0; i < 100 && (unconfirmed?.txCount ?? 0) === 0; i++) {
    if (i > 0) await sleep(100);
    const res = await fetch(single, { headers: { 'x-api-key': api.key } });
    status = res.status;
    text = await res.text();
    unconfirmed = (JSON.parse(text) as { data?: { unconfirmed?: Unconfirmed } }).data?.unconfirmed;
  }
  const inMempool = (await node.cli<string[]>('getrawmempool')).includes(txid);
  const ok = status === 200 && inMempool && unconfirmed?.balanceSatoshi === PAYMENT_SATS && unconfirmed.txCount === 1;
  say('');
  say('# unconfirmed: a payment still in the mempool; ?mempool=true adds "unconfirmed" (deltas, negative for coins spent)');
  say(`curl -s -H 'x-api-key: ${api.key}' '${single}'`);
  say(`  ← ${status} ${text}`);
  say(`  node says: mempool transaction ${txid.slice(0, 16)}… pays it ${PAYMENT_SATS} sat ${ok ? '✓' : '✗'}  (getrawmempool)`);

  const addresses = [
    ...items
      .filter((i) => i.expect === 'figures')
      .slice(0, 2)
      .map((i) => i.address),
    to,
    'not-an-address',
  ];
  const body = JSON.stringify({ addresses });
  const res = await fetch(`${api.base}/api/v1/LTC/addresses?mempool=true`, {
    method: 'POST',
    headers: { 'x-api-key': api.key, 'content-type': 'application/json' },
    body,
  });
  say('');
  say('# many addresses in one request (up to 100, one request of your limit each): one entry per address, in order, one blockHeight');
  say(
    `curl -s -H 'x-api-key: ${api.key}' -H 'content-type: application/json' -d '${body}' '${api.base}/api/v1/LTC/addresses?mempool=true'`,
  );
  say(`  ← ${res.status} ${await res.text()}`);
  return ok && res.status === 200 ? 0 : 1;
}
