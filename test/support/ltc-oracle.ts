/**
 * The LTC suites' ground truth: litecoind's own `scantxoutset` for every address and spendable special
 * script of a built chain, and its `gettxoutsetinfo` for the totals. The index must equal them to the
 * satoshi at the node's tip, and `npm run verify` must find nothing.
 */
import { expect } from 'vitest';
import { formatCoins, parseCoins } from '../../src/chain/amount.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { checkIndex, type Expected } from '../../harness/index-check.js';
import { runVerifyCli } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import type { ChainManifest } from '../../harness/regtest-chain.js';
import { scanAddresses, scanScripts, scanUnspents, utxoSetTotals } from '../../harness/regtest-scan.js';

const params = chainParams('LTC', 'regtest');

/** Every manifest address and every spendable special script, with the node's figures. */
export async function nodeExpectations(node: Litecoind, manifest: ChainManifest): Promise<Expected[]> {
  const scan = await scanAddresses(
    node,
    manifest.addresses.map((a) => a.address),
  );
  const out: Expected[] = [];
  for (const a of manifest.addresses) {
    const decoded = addressToScript(params, a.address);
    if (!decoded.ok) throw new Error(`node address ${a.address} does not decode: ${decoded.error.message}`);
    const f = scan.get(a.address);
    if (!f) throw new Error(`no scan result for ${a.address}`);
    out.push({ label: `${a.kind} ${a.address}`, script: decoded.script, sats: f.sats, utxos: f.utxos });
  }
  const scripts = manifest.special.filter((s) => s.spendable).map((s) => s.script);
  for (const [hex, f] of await scanScripts(node, scripts)) {
    out.push({ label: `script ${hex.slice(0, 40)}`, script: Buffer.from(hex, 'hex'), sats: f.sats, utxos: f.utxos });
  }
  return out;
}

/** The index in `dataDir` equals the node at its tip: every address, the totals, and a clean verify. */
export async function expectIndexEqualsNode(
  node: Litecoind,
  manifest: ChainManifest,
  dataDir: string,
  dbPath: string,
  phase: string,
): Promise<void> {
  const tip = await node.cli<string>('getbestblockhash');
  const report = checkIndex(dbPath, await nodeExpectations(node, manifest));
  expect(report.tipHash, phase).toBe(tip);
  expect(report.mismatches, phase).toEqual([]);
  const totals = await utxoSetTotals(node);
  expect(totals.bestBlock, phase).toBe(tip);
  // Our UTXO set is Core's: MWEB programs included (they are real outputs no address owns).
  expect(report.totals, phase).toEqual({ sats: totals.totalSats, utxos: totals.txouts });
  expect(report.aggregateDifferences, phase).toBe(0);
  expect(report.chainProblems, phase).toEqual([]);
  expect(runVerifyCli('LTC', dataDir), phase).toMatchObject({ status: 0 });
}

/**
 * Every address asked through the API at `url` (a private key: no limits in the way) against
 * `scantxoutset` at the node's tip: the ones whose answer is not 200 with the node's balance (exact
 * 8-decimal coins too), UTXO count and tip, each described.
 */
export async function apiMismatches(url: string, apiKey: string, node: Litecoind, addresses: readonly string[]): Promise<string[]> {
  const tip = await node.cli<string>('getbestblockhash');
  const scan = await scanAddresses(node, addresses);
  const wrong: string[] = [];
  for (const address of addresses) {
    const f = scan.get(address)!;
    const res = await fetch(`${url}/api/v1/LTC/address/${address}`, { headers: { 'x-api-key': apiKey } });
    const text = await res.text();
    const expected = `"balanceSatoshi":${f.sats},"balance":${formatCoins(BigInt(f.sats))},"utxoCount":${f.utxos}`;
    if (res.status !== 200 || !text.includes(expected) || !text.includes(`"blockHash":"${tip}"`))
      wrong.push(`${address}: ${res.status} ${text} (node: ${expected} at ${tip})`);
  }
  return wrong;
}

interface ListingPage {
  utxos: { txid: string; vout: number; valueSatoshi: number; value: number; height: number }[];
  next: string | null;
  blockHeight: number;
  blockHash: string;
}

/**
 * Every address's UTXO listing paged with limit=2 through `get` (a GET on the API under test, keyed)
 * against `scantxoutset`: the outputs, their exact coins, the sum against the summary, one tip on every
 * page. Returns what differs and how many outputs were listed.
 */
export async function listingMismatches(
  get: (path: string) => Promise<Response>,
  node: Litecoind,
  addresses: readonly string[],
): Promise<{ wrong: string[]; listed: number }> {
  const scan = await scanUnspents(node, addresses);
  const wrong: string[] = [];
  let listed = 0;
  for (const address of addresses) {
    const want = (scan.byScript.get(scan.scripts.get(address)!) ?? []).map((u) => `${u.txid}:${u.vout} ${u.sats} ${u.height}`).sort();
    const got: string[] = [];
    const tips = new Set<string>();
    let cursor: string | null = null;
    let sum = 0;
    for (let pages = 0; pages < 10_000; pages++) {
      const res = await get(`/api/v1/LTC/address/${address}/utxos?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      const text = await res.text();
      if (res.status !== 200) {
        wrong.push(`${address}: page ${pages} answered ${res.status} ${text}`);
        break;
      }
      const page = (JSON.parse(text) as { data: ListingPage }).data;
      if (page.utxos.length > 2) wrong.push(`${address}: a page of ${page.utxos.length}`);
      tips.add(`${page.blockHeight} ${page.blockHash}`);
      for (const u of page.utxos) {
        got.push(`${u.txid}:${u.vout} ${u.valueSatoshi} ${u.height}`);
        sum += u.valueSatoshi;
        if (parseCoins(u.value.toFixed(8)) !== BigInt(u.valueSatoshi))
          wrong.push(`${address}: value ${u.value} is not ${u.valueSatoshi} sat`);
      }
      cursor = page.next;
      if (cursor === null) break;
    }
    listed += got.length;
    if ([...tips].join() !== `${scan.height} ${scan.bestBlock}`)
      wrong.push(`${address}: pages at ${[...tips].join(' | ')}, node at ${scan.height}`);
    if (JSON.stringify([...got].sort()) !== JSON.stringify(want))
      wrong.push(`${address}: listed ${got.join(', ')}; node ${want.join(', ')}`);
    const summary = (await (await get(`/api/v1/LTC/address/${address}`)).json()) as { data: { balanceSatoshi: number } };
    if (summary.data.balanceSatoshi !== sum) wrong.push(`${address}: listed sum ${sum}, summary ${summary.data.balanceSatoshi}`);
  }
  return { wrong, listed };
}
