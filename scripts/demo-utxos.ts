/**
 * The demo's UTXO listing line (the demo turns ADDRSUM_UTXO_LIST on): the first page of one showcase
 * address's unspent outputs, as a ready-to-paste curl line with the API's answer.
 */
import type { ApiTarget, ShowItem } from './demo-showcase.js';

export async function printUtxos(api: ApiTarget, items: readonly ShowItem[], say: (line: string) => void): Promise<void> {
  const item = items.find((i) => i.expect === 'figures');
  if (!item) return;
  const url = `${api.base}/api/v1/LTC/address/${item.address}/utxos?limit=2`;
  const res = await fetch(url, { headers: { 'x-api-key': api.key } });
  say('');
  say(`# the unspent outputs of ${item.address}, oldest first, page by page (the next page: &cursor=<next>)`);
  say(`curl -s -H 'x-api-key: ${api.key}' '${url}'`);
  say(`  ← ${res.status} ${await res.text()}`);
}
