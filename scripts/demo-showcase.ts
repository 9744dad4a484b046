/**
 * What the demo shows: a handful of addresses that tell the service's story (every address kind, an
 * MWEB peg-out recipient, both spellings of a P2SH script, an emptied address, an MWEB stealth address
 * the service must refuse), each as a ready-to-paste curl line, the answer the API actually gave, and
 * what the node itself says about the same address (`scantxoutset`) with ✓ when they agree.
 *
 * Output format (test/integration/demo.test.ts parses it; keep it stable):
 *   # <label>
 *   curl -s -H 'x-api-key: <key>' http://127.0.0.1:<port>/api/v1/LTC/address/<address>
 *     ← <status> <body>
 *     node says: <sats> sat, <utxos> utxos ✓          (or ✗, or a sentence for MWEB)
 */
import { address as b58 } from 'bitcoinjs-lib';
import { formatCoins } from '../src/chain/amount.js';
import type { ChainManifest, ManifestAddress } from '../harness/regtest-chain.js';
import { scanAddresses } from '../harness/regtest-scan.js';
import type { RegtestNode } from '../harness/regtest-wallet.js';

/** Litecoin's SCRIPT_ADDRESS (`Q…`, 58) and SCRIPT_ADDRESS2 (`2…`, 196) on test networks (chainparams.cpp). */
const P2SH_VERSION = 58;
const P2SH_ALIAS_VERSION = 196;

export interface ShowItem {
  label: string;
  address: string;
  /** 'figures': the API must answer the node's balance and UTXO count; 'mweb': it must refuse. */
  expect: 'figures' | 'mweb';
}

export interface ApiTarget {
  /** http://127.0.0.1:port */
  base: string;
  key: string;
}

export interface AddressAnswer {
  status: number;
  text: string;
  data: { code?: string; balanceSatoshi?: number; utxoCount?: number; blockHash?: string; blockHeight?: number } | null;
}

interface HogExBlock {
  height: number;
  tx: { vout: { scriptPubKey: { address?: string; addresses?: string[] } }[] }[];
}

/** Picks the addresses to show from the manifest, by what the node's UTXO set holds now. */
export async function chooseShowcase(node: RegtestNode, manifest: ChainManifest): Promise<ShowItem[]> {
  const scan = await scanAddresses(
    node,
    manifest.addresses.map((a) => a.address),
  );
  const figures = (a: ManifestAddress) => scan.get(a.address) ?? { sats: 0, utxos: 0 };
  const chosen = new Set<string>();
  const items: ShowItem[] = [];
  const add = (label: string, a: ManifestAddress | string | undefined, expect: ShowItem['expect'] = 'figures'): void => {
    if (a === undefined) return;
    const address = typeof a === 'string' ? a : a.address;
    if (chosen.has(address)) return;
    chosen.add(address);
    items.push({ label, address, expect });
  };
  /** The address of `kind` with the most UTXOs (ties: the larger balance), among those with coins. */
  const richest = (kinds: readonly string[]): ManifestAddress | undefined =>
    manifest.addresses
      .filter((a) => kinds.includes(a.kind) && !chosen.has(a.address) && figures(a).sats > 0)
      .sort((x, y) => figures(y).utxos - figures(x).utxos || figures(y).sats - figures(x).sats)[0];

  add('a legacy P2PKH address (m…/n…) with a balance', richest(['p2pkh']));
  // Several UTXOs, but not the miner's hundreds of coinbases: a count one can check by eye.
  const several = manifest.addresses
    .filter((a) => a.kind === 'p2wpkh' && figures(a).utxos >= 2 && figures(a).utxos <= 20)
    .sort((x, y) => figures(y).utxos - figures(x).utxos)[0];
  add('a native segwit P2WPKH address (rltc1q…) holding several UTXOs', several ?? richest(['p2wpkh']));

  // Peg-outs are the HogEx's outputs 1..n (docs/ltc-mweb.md): coins leaving MWEB for ordinary addresses.
  const pegOutBlock = await node.cli<HogExBlock>('getblock', manifest.blocks.pegOut, 2);
  const hogEx = pegOutBlock.tx[pegOutBlock.tx.length - 1];
  const recipients = (hogEx?.vout.slice(1) ?? []).map((o) => o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]);
  const pegOutTo = manifest.addresses.find((a) => recipients.includes(a.address) && !chosen.has(a.address) && a.kind !== 'p2pkh');
  add(`an address paid by an MWEB peg-out (HogEx of block ${pegOutBlock.height})`, pegOutTo);

  const p2sh = richest(['p2sh-multisig', 'p2sh-p2wpkh', 'p2sh']);
  if (p2sh !== undefined) {
    add('a P2SH address (Q…, here a multisig or wrapped segwit script)', p2sh);
    const { hash, version } = b58.fromBase58Check(p2sh.address);
    if (version === P2SH_VERSION)
      add('the same P2SH script in its legacy 2… spelling: same answer', b58.toBase58Check(hash, P2SH_ALIAS_VERSION));
  }
  add('a taproot P2TR address (rltc1p…)', richest(['p2tr']));
  add('a P2WSH multisig address (rltc1q…, 62 characters)', richest(['p2wsh']));
  const emptied = manifest.addresses.find((a) => a.owner === 'wallet' && a.kind === 'p2pkh' && figures(a).sats === 0);
  add('an address that held coins and spent them all: zero balance', emptied);
  add('an MWEB stealth address: balances inside MWEB are confidential', manifest.mwebAddresses[0], 'mweb');
  return items;
}

export function curlLine(api: ApiTarget, address: string): string {
  return `curl -s -H 'x-api-key: ${api.key}' ${api.base}/api/v1/LTC/address/${address}`;
}

export async function askApi(api: ApiTarget, address: string): Promise<AddressAnswer> {
  const res = await fetch(`${api.base}/api/v1/LTC/address/${address}`, { headers: { 'x-api-key': api.key } });
  const text = await res.text();
  let data: AddressAnswer['data'] = null;
  try {
    data = (JSON.parse(text) as { data?: AddressAnswer['data'] }).data ?? null;
  } catch {
    // Not JSON: shown as it came.
  }
  return { status: res.status, text, data };
}

/**
 * Prints every item: curl line, the API's answer, the node's figures. The node is scanned once for all
 * of them; nothing mines meanwhile, so both describe the same tip. Returns how many disagreed.
 */
export async function printShowcase(
  node: RegtestNode,
  api: ApiTarget,
  items: readonly ShowItem[],
  say: (line: string) => void,
): Promise<number> {
  const scan = await scanAddresses(
    node,
    items.filter((i) => i.expect === 'figures').map((i) => i.address),
  );
  let wrong = 0;
  for (const item of items) {
    const answer = await askApi(api, item.address);
    say('');
    say(`# ${item.label}`);
    say(curlLine(api, item.address));
    say(`  ← ${answer.status} ${answer.text}`);
    if (item.expect === 'mweb') {
      const ok = answer.status === 400 && answer.data?.code === 'UNSUPPORTED_ADDRESS';
      if (!ok) wrong++;
      say(`  node says: an MWEB address has no scriptPubKey, scantxoutset cannot see it either ${ok ? '✓' : '✗'}`);
      continue;
    }
    const f = scan.get(item.address) ?? { sats: 0, utxos: 0 };
    const ok =
      answer.status === 200 &&
      answer.data?.balanceSatoshi === f.sats &&
      answer.data.utxoCount === f.utxos &&
      answer.data.blockHash === scan.bestBlock;
    if (!ok) wrong++;
    say(`  node says: ${f.sats} sat, ${f.utxos} utxos ${ok ? '✓' : '✗'}  (scantxoutset at height ${scan.height})`);
  }
  return wrong;
}

/** The operational endpoints: /ready in full, the chain gauges of /metrics. */
export async function printOps(api: ApiTarget, indexerMetricsUrl: string, say: (line: string) => void): Promise<void> {
  const ready = await fetch(`${api.base}/ready`);
  say('');
  say('# readiness: per chain, indexed height, node height, lag (no key needed)');
  say(`curl -s ${api.base}/ready`);
  say(`  ← ${ready.status} ${await ready.text()}`);
  const metrics = await (await fetch(`${api.base}/metrics`)).text();
  say('');
  say(`# Prometheus metrics of the API (the indexer's own: curl -s ${indexerMetricsUrl})`);
  say(`curl -s ${api.base}/metrics | grep -E '^addrsum_api_(chain|requests_total)'`);
  for (const line of metrics.split('\n').filter((l) => /^addrsum_api_(chain|requests_total)/.test(l))) say(`  ${line}`);
}

/** One line per showcased address whose balance changed since `before` (the watch loop's report). */
export async function balanceChanges(api: ApiTarget, items: readonly ShowItem[], before: Map<string, number>): Promise<string[]> {
  const lines: string[] = [];
  for (const item of items) {
    if (item.expect !== 'figures') continue;
    const answer = await askApi(api, item.address);
    const now = answer.data?.balanceSatoshi;
    if (now === undefined) continue;
    const was = before.get(item.address);
    before.set(item.address, now);
    if (was !== undefined && was !== now) lines.push(`  ${item.address}: ${formatCoins(BigInt(was))} → ${formatCoins(BigInt(now))} LTC`);
  }
  return lines;
}
