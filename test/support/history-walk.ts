/**
 * The history suites' oracle: per-script transaction history of a litecoind chain, computed only from
 * the node's own JSON (`getblockhash` + `getblock <hash> 2`) and its own outpoint map. It imports
 * nothing from src/ or indexer/, so a bug in the index's parser or store cannot hide in the expectations.
 *
 * Rules, as the index must apply them:
 * - blocks 1..tip (the genesis coinbase never enters Core's UTXO set);
 * - outputs Core's IsUnspendable rejects (OP_RETURN first, or a script over 10,000 bytes) are not
 *   counted, and so can never be spent;
 * - a transaction touches a script when it pays it or spends a coin of it: one entry per (script, tx),
 *   however many outputs or inputs, so txCount counts distinct transactions;
 * - MWEB peg-ins (witness v9) and HogAddr outputs (v8) are ordinary outputs of their script, and the
 *   HogEx (the block's last transaction, no flag in 0.21.2.1's JSON) ordinary inputs and outputs.
 *
 * Scripts are keyed by scriptPubKey hex, not by address: 0.21 lists the keys' P2PKH addresses for P2PK
 * and bare multisig outputs, which those outputs do not belong to.
 */

/** An RPC caller that keeps decimal amounts as their text (Litecoind.cliExact); plain numbers below 2^26 coins also work. */
export type Rpc = <T>(method: string, ...params: unknown[]) => Promise<T>;

export interface HistoryEntry {
  txid: string;
  height: number;
  /** Index of the transaction in its block's transaction list (0: coinbase; last: HogEx after MWEB). */
  position: number;
  receivedSats: bigint;
  sentSats: bigint;
}

export interface HistoryTotals {
  txCount: number;
  receivedSats: bigint;
  sentSats: bigint;
  fundedOutputs: number;
  spentOutputs: number;
}

export interface ScriptHistory extends HistoryTotals {
  script: string;
  /** The address getblock names for it, or null (P2PK, bare multisig, MWEB programs, odd scripts). */
  address: string | null;
  /** Oldest first: height, then position, ascending. */
  entries: HistoryEntry[];
}

export interface HistoryWalk {
  tipHeight: number;
  tipHash: string;
  /** Every script a counted output paid, by scriptPubKey hex. */
  scripts: ReadonlyMap<string, ScriptHistory>;
  /** Address (as getblock spells it) → scriptPubKey hex. */
  addresses: ReadonlyMap<string, string>;
  /** Zeros for an address no block paid (or spelled differently from getblock: use the script then). */
  totalsOf(address: string): HistoryTotals;
  /** Newest first (height desc, then position desc), as a paged history answers. */
  historyOf(address: string): HistoryEntry[];
  historyOfScript(script: string): HistoryEntry[];
}

interface RpcOutput {
  value: string | number;
  n: number;
  scriptPubKey: { hex: string; type: string; address?: string; addresses?: string[] };
}

interface RpcTx {
  txid: string;
  vin: { coinbase?: string; txid?: string; vout?: number }[];
  vout: RpcOutput[];
}

interface RpcBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  tx: RpcTx[];
}

const COIN = 100_000_000n;
/** Below 2^26 coins a double's ulp is under 1e-8, so toFixed(8) gives back the exact 8-decimal amount. */
const EXACT_DOUBLE_LIMIT = 2 ** 26;

/** Satoshis of an RPC amount: decimal text (exact) or a JSON double small enough to be exact. */
export function satsOf(value: string | number): bigint {
  if (typeof value === 'number' && !(Math.abs(value) < EXACT_DOUBLE_LIMIT)) {
    throw new RangeError(`${value} coins cannot be read exactly from a double: ask for decimal text`);
  }
  const text = typeof value === 'number' ? value.toFixed(8) : value;
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (m === null) throw new RangeError(`not an amount: ${text}`);
  return BigInt(m[1] as string) * COIN + BigInt((m[2] ?? '').padEnd(8, '0'));
}

/** Satoshis as coins with exactly 8 decimals, the way the API and Core print amounts. */
export function coinsText(sats: bigint): string {
  const sign = sats < 0n ? '-' : '';
  const abs = sats < 0n ? -sats : sats;
  return `${sign}${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
}

/** Core's CScript::IsUnspendable, on hex: OP_RETURN (0x6a) first, or more than MAX_SCRIPT_SIZE bytes. */
export function isUnspendable(scriptHex: string): boolean {
  return scriptHex.startsWith('6a') || scriptHex.length > 2 * 10_000;
}

const NOT_AN_ADDRESS = new Set(['pubkey', 'multisig']);

function addressOf(spk: RpcOutput['scriptPubKey']): string | null {
  if (NOT_AN_ADDRESS.has(spk.type)) return null;
  return spk.address ?? (spk.addresses?.length === 1 ? (spk.addresses[0] as string) : null);
}

/** Blocks fetched at once; they are still applied strictly in height order. */
const FETCH_AHEAD = 8;

/** Walks blocks 1..the node's tip now. Fails if the chain changes under the walk. */
export async function walkHistory(rpc: Rpc): Promise<HistoryWalk> {
  const tipHeight = await rpc<number>('getblockcount');
  const coins = new Map<string, { script: string; sats: bigint }>();
  const scripts = new Map<string, ScriptHistory>();
  const addresses = new Map<string, string>();
  const historyOf = (script: string): ScriptHistory => {
    let h = scripts.get(script);
    if (h === undefined) {
      h = { script, address: null, entries: [], txCount: 0, receivedSats: 0n, sentSats: 0n, fundedOutputs: 0, spentOutputs: 0 };
      scripts.set(script, h);
    }
    return h;
  };

  const apply = (tx: RpcTx, height: number, position: number): void => {
    const touched = new Map<string, HistoryEntry>();
    const entry = (script: string): HistoryEntry => {
      let e = touched.get(script);
      if (e === undefined) {
        e = { txid: tx.txid, height, position, receivedSats: 0n, sentSats: 0n };
        touched.set(script, e);
      }
      return e;
    };
    for (const input of tx.vin) {
      if (input.coinbase !== undefined) continue;
      const outpoint = `${input.txid}:${input.vout}`;
      const coin = coins.get(outpoint);
      if (coin === undefined) throw new Error(`${tx.txid} at height ${height} spends ${outpoint}, which no counted output created`);
      coins.delete(outpoint);
      entry(coin.script).sentSats += coin.sats;
      historyOf(coin.script).spentOutputs++;
    }
    for (const out of tx.vout) {
      const script = out.scriptPubKey.hex;
      if (isUnspendable(script)) continue;
      const sats = satsOf(out.value);
      coins.set(`${tx.txid}:${out.n}`, { script, sats });
      entry(script).receivedSats += sats;
      const h = historyOf(script);
      h.fundedOutputs++;
      const address = addressOf(out.scriptPubKey);
      if (address !== null) {
        h.address = address;
        addresses.set(address, script);
      }
    }
    for (const [script, e] of touched) {
      const h = historyOf(script);
      h.entries.push(e);
      h.txCount++;
      h.receivedSats += e.receivedSats;
      h.sentSats += e.sentSats;
    }
  };

  let previous = await rpc<string>('getblockhash', 0);
  for (let from = 1; from <= tipHeight; from += FETCH_AHEAD) {
    const heights = Array.from({ length: Math.min(FETCH_AHEAD, tipHeight - from + 1) }, (_, i) => from + i);
    const blocks = await Promise.all(heights.map(async (h) => rpc<RpcBlock>('getblock', await rpc<string>('getblockhash', h), 2)));
    for (const block of blocks) {
      if (block.previousblockhash !== previous) throw new Error(`the chain changed during the walk (height ${block.height})`);
      previous = block.hash;
      block.tx.forEach((tx, position) => apply(tx, block.height, position));
    }
  }

  const none: HistoryTotals = { txCount: 0, receivedSats: 0n, sentSats: 0n, fundedOutputs: 0, spentOutputs: 0 };
  // Entries were appended in chain order, so newest first is simply the reverse.
  const newestFirst = (script: string | undefined): HistoryEntry[] =>
    [...((script === undefined ? undefined : scripts.get(script))?.entries ?? [])].reverse();
  return {
    tipHeight,
    tipHash: previous,
    scripts,
    addresses,
    totalsOf(address) {
      const h = scripts.get(addresses.get(address) ?? '');
      if (h === undefined) return { ...none };
      const { txCount, receivedSats, sentSats, fundedOutputs, spentOutputs } = h;
      return { txCount, receivedSats, sentSats, fundedOutputs, spentOutputs };
    },
    historyOf: (address) => newestFirst(addresses.get(address)),
    historyOfScript: (script) => newestFirst(script),
  };
}
