/**
 * Checking an API's history against an independent walk of the node's blocks (history-walk.ts): every
 * script the walk saw, by address where it has one and by scripthash always, must state the walk's
 * totals, and page its transactions (limit=3, newest first) exactly as the walk lists them, all at the
 * walk's tip. Amounts are compared as the API wrote them, never as JSON.parse rounds them.
 */
import { createHash } from 'node:crypto';
import { coinsText, walkHistory, type HistoryTotals } from './history-walk.js';

/** One GET against the API under test, with whatever key the test uses. */
export type Get = (path: string) => Promise<{ status: number; text: string }>;

/** The Electrum scripthash of a script: SHA-256, byte-reversed. */
export const scripthash = (scriptHex: string): string =>
  createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest().reverse().toString('hex');

/** A field of an answer's raw text as written (8 decimals for coins), not as JSON.parse rounds it. */
export function written(text: string, field: string): string | undefined {
  return new RegExp(`"${field}":(-?[0-9.]+)`).exec(text)?.[1];
}

/** Every transaction of a history, paged with `limit`: its txid, height (null: mempool) and amounts, and the tips the pages were at. */
export async function pageHistory(get: Get, base: string, limit = 3, query = ''): Promise<{ lines: string[]; tips: string[] }> {
  const lines: string[] = [];
  const tips = new Set<string>();
  for (let cursor: string | null = null, n = 0; n < 10_000; n++) {
    const r = await get(`${base}?limit=${limit}${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
    const m = /"transactions":(\[.*?\]),"next":(null|"[^"]+"),"blockHeight":\d+,"blockHash":"([0-9a-f]+)"/.exec(r.text);
    if (r.status !== 200 || !m) return { lines: [`${r.status} ${r.text}`], tips: [] };
    for (const t of m[1]!.matchAll(
      /"txid":"([0-9a-f]+)","height":(\d+|null),"receivedSatoshi":(\d+),"received":[0-9.]+,"sentSatoshi":(\d+)/g,
    ))
      lines.push(`${t[1]} ${t[2]} ${t[3]} ${t[4]}`);
    tips.add(m[3]!);
    if (m[2] === 'null') return { lines, tips: [...tips] };
    cursor = JSON.parse(m[2]!) as string;
  }
  throw new Error(`${base}: no last page`);
}

/** Where the API's history differs from the walk of `rpc`'s blocks (empty: nowhere), and how many scripts the walk saw. */
export async function historyMismatches(get: Get, rpc: Parameters<typeof walkHistory>[0]): Promise<{ wrong: string[]; scripts: number }> {
  const walk = await walkHistory(rpc);
  const wrong: string[] = [];
  const check = (what: string, text: string, want: HistoryTotals): void => {
    const got = {
      txCount: written(text, 'txCount'),
      receivedSatoshi: written(text, 'receivedSatoshi'),
      received: written(text, 'received'),
      sentSatoshi: written(text, 'sentSatoshi'),
      sent: written(text, 'sent'),
      balanceSatoshi: written(text, 'balanceSatoshi'),
      blockHash: /"blockHash":"([0-9a-f]+)"/.exec(text)?.[1],
    };
    const expected = {
      txCount: String(want.txCount),
      receivedSatoshi: String(want.receivedSats),
      received: coinsText(want.receivedSats),
      sentSatoshi: String(want.sentSats),
      sent: coinsText(want.sentSats),
      balanceSatoshi: String(want.receivedSats - want.sentSats),
      blockHash: walk.tipHash,
    };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      wrong.push(`${what}: got ${JSON.stringify(got)}, walk ${JSON.stringify(expected)}`);
  };
  for (const s of walk.scripts.values()) {
    const name = s.address ?? s.script.slice(0, 20);
    const pages = await pageHistory(get, `/api/v1/LTC/scripthash/${scripthash(s.script)}/transactions`);
    const want = walk.historyOfScript(s.script).map((e) => `${e.txid} ${e.height} ${e.receivedSats} ${e.sentSats}`);
    if (JSON.stringify(pages.lines) !== JSON.stringify(want) || pages.tips.join() !== walk.tipHash)
      wrong.push(`pages of ${name}: ${JSON.stringify(pages)}, walk ${JSON.stringify(want)} at ${walk.tipHash}`);
    check(`scripthash of ${name}`, (await get(`/api/v1/LTC/scripthash/${scripthash(s.script)}`)).text, s);
    if (s.address !== null) check(s.address, (await get(`/api/v1/LTC/address/${s.address}`)).text, s);
  }
  return { wrong, scripts: walk.scripts.size };
}
