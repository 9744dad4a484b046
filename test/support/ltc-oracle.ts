/**
 * The LTC suites' ground truth: litecoind's own `scantxoutset` for every address and spendable special
 * script of a built chain, and its `gettxoutsetinfo` for the totals. The index must equal them to the
 * satoshi at the node's tip, and `npm run verify` must find nothing.
 */
import { expect } from 'vitest';
import { formatCoins } from '../../src/chain/amount.js';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { checkIndex, type Expected } from '../../harness/index-check.js';
import { runVerifyCli } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import type { ChainManifest } from '../../harness/regtest-chain.js';
import { scanAddresses, scanScripts, utxoSetTotals } from '../../harness/regtest-scan.js';

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
