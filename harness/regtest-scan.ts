/**
 * What the node itself says about balances, for comparison with the index:
 * - scanAddresses: per-address balance and UTXO count from `scantxoutset` (the confirmed UTXO set at
 *   the node's tip, the same state an indexer at that tip must hold);
 * - utxoSetTotals: `gettxoutsetinfo` totals, plus the MWEB HogAddr output they include;
 * - recordBlockAddresses: adds every address some block paid to the manifest.
 * Amounts are read as decimal text (cliExact) and converted with parseCoins: no float ever holds money.
 */
import { parseCoins } from '../src/chain/amount.js';
import { addAddress, type AddressKind, type ChainManifest } from './regtest-manifest.js';
import { mapLimit } from './map-limit.js';
import type { RegtestNode } from './regtest-wallet.js';

export interface AddressFigures {
  sats: number;
  utxos: number;
}

/** Per-address figures, plus the tip they are true at. Every requested address has an entry. */
export type AddressScan = Map<string, AddressFigures> & { height: number; bestBlock: string };

export interface ScanUnspent {
  txid: string;
  vout: number;
  script: string;
  sats: number;
  height: number;
}

interface ScanReply {
  success: boolean;
  height: number;
  bestblock: string;
  unspents: { txid: string; vout: number; scriptPubKey: string; amount: string; height: number }[];
}

const scriptCache = new Map<string, string>();

async function scriptsOf(node: RegtestNode, addresses: readonly string[]): Promise<Map<string, string>> {
  const missing = addresses.filter((a) => !scriptCache.has(a));
  await mapLimit(missing, 8, async (a) => {
    const r = await node.cli<{ isvalid: boolean; scriptPubKey?: string }>('validateaddress', a);
    if (!r.isvalid || r.scriptPubKey === undefined) throw new Error(`node says ${a} is not a valid address`);
    scriptCache.set(a, r.scriptPubKey);
  });
  return new Map(addresses.map((a) => [a, scriptCache.get(a) as string]));
}

/** The node's UTXOs of these addresses, from one `scantxoutset start [addr(...), ...]`. */
export async function scanUnspents(
  node: RegtestNode,
  addresses: Iterable<string>,
): Promise<{ height: number; bestBlock: string; byScript: Map<string, ScanUnspent[]>; scripts: Map<string, string> }> {
  const list = [...new Set(addresses)];
  const scripts = await scriptsOf(node, list);
  const r = await node.cliExact<ScanReply>(
    'scantxoutset',
    'start',
    list.map((a) => `addr(${a})`),
  );
  if (!r.success) throw new Error('scantxoutset did not succeed');
  const byScript = new Map<string, ScanUnspent[]>();
  for (const u of r.unspents) {
    const entry = { txid: u.txid, vout: u.vout, script: u.scriptPubKey, sats: Number(parseCoins(u.amount)), height: u.height };
    const bucket = byScript.get(u.scriptPubKey);
    if (bucket) bucket.push(entry);
    else byScript.set(u.scriptPubKey, [entry]);
  }
  return { height: r.height, bestBlock: r.bestblock, byScript, scripts };
}

/** Core's COINBASE_MATURITY: a coinbase output is spendable in a block this many above its own. */
const COINBASE_MATURITY = 100;

export interface AddressUtxo extends ScanUnspent {
  address: string;
}

/**
 * Confirmed UTXOs of these addresses that a transaction entering the mempool now may spend: not
 * already spent by a mempool transaction (gettxout with include_mempool), not an immature coinbase.
 * Wallet locks do not matter here, unlike listunspent.
 */
export async function spendableUtxos(node: RegtestNode, addresses: readonly string[]): Promise<AddressUtxo[]> {
  const scan = await scanUnspents(node, addresses);
  const candidates: AddressUtxo[] = [];
  for (const address of new Set(addresses)) {
    const script = scan.scripts.get(address);
    for (const u of (script === undefined ? undefined : scan.byScript.get(script)) ?? []) candidates.push({ ...u, address });
  }
  const usable = await mapLimit(candidates, 8, async (u) => {
    if ((await node.cli<unknown>('gettxout', u.txid, u.vout, true)) === null) return false;
    if (scan.height + 1 - u.height >= COINBASE_MATURITY) return true;
    const block = await node.cli<{ tx: string[] }>('getblock', await node.cli<string>('getblockhash', u.height), 1);
    return block.tx[0] !== u.txid;
  });
  return candidates.filter((_, i) => usable[i]);
}

/**
 * Balance and UTXO count of each address as the node's UTXO set has them. Unspents are matched to
 * addresses through their scriptPubKey (the node's own validateaddress), so two spellings of one
 * script (LTC `M…`/`3…`) both get its full figures.
 */
export async function scanAddresses(node: RegtestNode, addresses: Iterable<string>): Promise<AddressScan> {
  const { height, bestBlock, byScript, scripts } = await scanUnspents(node, addresses);
  const out = new Map<string, AddressFigures>();
  for (const [address, script] of scripts) {
    const utxos = byScript.get(script) ?? [];
    out.set(address, { sats: utxos.reduce((s, u) => s + u.sats, 0), utxos: utxos.length });
  }
  return Object.assign(out, { height, bestBlock });
}

/**
 * Balance and UTXO count per scriptPubKey (hex) for outputs that have no address (P2PK, bare
 * multisig, ...), via `raw(<hex>)` descriptors.
 */
export async function scanScripts(node: RegtestNode, scripts: Iterable<string>): Promise<Map<string, AddressFigures>> {
  const list = [...new Set(scripts)];
  const r = await node.cliExact<ScanReply>(
    'scantxoutset',
    'start',
    list.map((h) => `raw(${h})`),
  );
  if (!r.success) throw new Error('scantxoutset did not succeed');
  const out = new Map<string, AddressFigures>(list.map((h) => [h, { sats: 0, utxos: 0 }]));
  for (const u of r.unspents) {
    const f = out.get(u.scriptPubKey);
    if (f === undefined) throw new Error(`scantxoutset returned an unasked-for script ${u.scriptPubKey}`);
    f.sats += Number(parseCoins(u.amount));
    f.utxos++;
  }
  return out;
}

export interface UtxoSetTotals {
  height: number;
  bestBlock: string;
  /** All outputs in the node's UTXO set (`gettxoutsetinfo`: unspendable outputs never enter it). */
  txouts: number;
  totalSats: number;
  /**
   * The part of those totals held by MWEB programs (witness v8 HogAddr; v9 peg-ins are spent within
   * their block), which belong to no address: subtract them to compare with address aggregates.
   */
  mwebTxouts: number;
  mwebSats: number;
}

interface BlockV2Exact {
  tx: { txid: string; vout: { value: string; n: number; scriptPubKey: { hex: string; type: string } }[] }[];
}

export async function utxoSetTotals(node: RegtestNode): Promise<UtxoSetTotals> {
  // hash_type 'none': the totals without hashing the whole set.
  const info = await node.cliExact<{ height: number; bestblock: string; txouts: number; total_amount: string }>('gettxoutsetinfo', 'none');
  let mwebTxouts = 0;
  let mwebSats = 0;
  // Each HogEx spends the previous HogAddr (and its block's peg-ins), so at any tip exactly one MWEB
  // output is unspent: output 0 of the tip block's HogEx. Reading it from the block gettxoutsetinfo
  // names keeps both figures about the same tip even if a block arrives in between.
  const tip = await node.cliExact<BlockV2Exact>('getblock', info.bestblock, 2);
  const hogAddr = tip.tx[tip.tx.length - 1]?.vout[0];
  if (hogAddr?.scriptPubKey.type === 'witness_mweb_hogaddr') {
    mwebTxouts = 1;
    mwebSats = Number(parseCoins(hogAddr.value));
  }
  return {
    height: info.height,
    bestBlock: info.bestblock,
    txouts: info.txouts,
    totalSats: Number(parseCoins(info.total_amount)),
    mwebTxouts,
    mwebSats,
  };
}

const KIND_OF_TYPE: Record<string, AddressKind | undefined> = {
  pubkeyhash: 'p2pkh',
  scripthash: 'p2sh',
  witness_v0_keyhash: 'p2wpkh',
  witness_v0_scripthash: 'p2wsh',
  witness_v1_taproot: 'p2tr',
  witness_unknown: 'witness-unknown',
};

interface BlockV2 {
  tx: { vout: { scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] } }[] }[];
}

/**
 * Adds to the manifest every address that an output of these blocks pays. Only script types that
 * *are* an address count: for P2PK and bare multisig, 0.21's `addresses` lists the keys' P2PKH
 * addresses, which those outputs do not belong to; MWEB programs (v8/v9) have none.
 */
export async function recordBlockAddresses(node: RegtestNode, manifest: ChainManifest, hashes: readonly string[]): Promise<void> {
  const blocks = await mapLimit(hashes, 4, (h) => node.cli<BlockV2>('getblock', h, 2));
  const found: { address: string; kind: AddressKind; script: string }[] = [];
  for (const b of blocks) {
    for (const tx of b.tx) {
      for (const o of tx.vout) {
        const kind = KIND_OF_TYPE[o.scriptPubKey.type];
        const address = o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0];
        if (kind === undefined || address === undefined) continue;
        if (manifest.addresses.some((a) => a.address === address) || found.some((f) => f.address === address)) continue;
        found.push({ address, kind, script: o.scriptPubKey.hex });
      }
    }
  }
  const infos = await mapLimit(found, 8, (f) => node.cli<{ ismine: boolean; script?: string }>('getaddressinfo', f.address));
  found.forEach((f, i) => {
    const info = infos[i];
    let kind = f.kind;
    if (kind === 'p2sh' && info?.script === 'multisig') kind = 'p2sh-multisig';
    if (kind === 'p2sh' && info?.script === 'witness_v0_keyhash') kind = 'p2sh-p2wpkh';
    const owner = manifest.taprootKeys.has(f.address) ? 'taproot-key' : info?.ismine === true ? 'wallet' : 'none';
    addAddress(manifest, { address: f.address, kind, script: f.script, owner });
  });
}
