/**
 * What an Electrum server should answer for a set of addresses, computed from the node only: a walk of
 * every block (`getblock <hash> 2`) for each script's confirmed history in blockchain order (and the
 * outputs inputs spend), `getrawmempool true` and `getrawtransaction` for the mempool part with its fees
 * and parents, `scantxoutset` for the confirmed UTXOs. Independent of the index and of src/electrum.
 */
import { createHash } from 'node:crypto';

export interface NodeCli {
  cli<T>(method: string, ...args: unknown[]): Promise<T>;
}

interface Vout {
  value: number;
  n: number;
  scriptPubKey: { hex: string };
}
interface Vin {
  txid?: string;
  vout?: number;
}
interface Tx {
  txid: string;
  vin: Vin[];
  vout: Vout[];
}
interface PoolEntry {
  fees: { base: number };
  depends: string[];
}

export interface ExpectedEntry {
  tx_hash: string;
  height: number;
  fee?: number;
}

export interface ExpectedUnspent {
  tx_hash: string;
  tx_pos: number;
  height: number;
  value: number;
}

export interface Expected {
  readonly scripthash: string;
  readonly history: ExpectedEntry[];
  readonly mempool: ExpectedEntry[];
  readonly balance: { confirmed: number; unconfirmed: number };
  readonly unspent: ExpectedUnspent[];
  readonly status: string | null;
}

const sats = (coins: number): number => Math.round(coins * 1e8);

export function scripthashOf(scriptHex: string): string {
  return createHash('sha256').update(Buffer.from(scriptHex, 'hex')).digest().reverse().toString('hex');
}

/** The protocol's status, written out here again rather than imported. */
export function statusOf(history: readonly ExpectedEntry[]): string | null {
  if (history.length === 0) return null;
  return createHash('sha256')
    .update(history.map((e) => `${e.tx_hash}:${e.height}:`).join(''))
    .digest('hex');
}

/**
 * The node's confirmed chain, walked once: per script the transactions touching it in blockchain order,
 * and every output's script and value (what a later input spends).
 */
export class ChainWalk {
  readonly outputs = new Map<string, { script: string; value: number }>();
  readonly touched = new Map<string, Array<{ txid: string; height: number }>>();
  tip = -1;

  async extend(node: NodeCli): Promise<void> {
    const height = await node.cli<number>('getblockcount');
    // A reorg replaces blocks: walk again from genesis (regtest chains are short).
    if (this.tip >= 0 && (await node.cli<string>('getblockhash', this.tip)) !== this.tipHash) this.reset();
    for (let h = this.tip + 1; h <= height; h++) {
      const hash = await node.cli<string>('getblockhash', h);
      const block = await node.cli<{ tx: Tx[] }>('getblock', hash, 2);
      for (const tx of block.tx) {
        const scripts = new Set<string>();
        for (const vin of tx.vin) {
          if (vin.txid === undefined) continue;
          const spent = this.outputs.get(`${vin.txid}:${vin.vout}`);
          if (spent) scripts.add(spent.script);
        }
        for (const out of tx.vout) {
          this.outputs.set(`${tx.txid}:${out.n}`, { script: out.scriptPubKey.hex, value: sats(out.value) });
          scripts.add(out.scriptPubKey.hex);
        }
        for (const s of scripts) {
          let list = this.touched.get(s);
          if (!list) this.touched.set(s, (list = []));
          list.push({ txid: tx.txid, height: h });
        }
      }
      this.tip = h;
      this.tipHash = hash;
    }
  }

  private tipHash = '';

  private reset(): void {
    this.outputs.clear();
    this.touched.clear();
    this.tip = -1;
  }
}

interface PoolTx extends Tx {
  fee: number;
  parents: number;
}

async function mempoolTxs(node: NodeCli): Promise<PoolTx[]> {
  const pool = await node.cli<Record<string, PoolEntry>>('getrawmempool', true);
  const out: PoolTx[] = [];
  for (const [txid, entry] of Object.entries(pool)) {
    const tx = await node.cli<Tx>('getrawtransaction', txid, true);
    out.push({ ...tx, fee: sats(entry.fees.base), parents: entry.depends.length });
  }
  return out;
}

/** Everything expected of `scripts` (output script hex) now: mempool fees and parents from getmempoolentry. */
export async function expectations(node: NodeCli, walk: ChainWalk, scripts: readonly string[]): Promise<Expected[]> {
  await walk.extend(node);
  const pool = await mempoolTxs(node);
  const poolOutputs = new Map<string, { script: string; value: number }>();
  for (const tx of pool)
    for (const o of tx.vout) poolOutputs.set(`${tx.txid}:${o.n}`, { script: o.scriptPubKey.hex, value: sats(o.value) });
  const spentInPool = new Set(pool.flatMap((tx) => tx.vin.filter((v) => v.txid !== undefined).map((v) => `${v.txid}:${v.vout}`)));
  const scan = await node.cli<{ unspents: Array<{ txid: string; vout: number; scriptPubKey: string; amount: number; height: number }> }>(
    'scantxoutset',
    'start',
    scripts.map((s) => `raw(${s})`),
  );
  const result: Expected[] = [];
  for (const script of scripts) {
    const history: ExpectedEntry[] = [];
    const seen = new Set<string>();
    for (const t of walk.touched.get(script) ?? []) {
      if (seen.has(t.txid)) continue;
      seen.add(t.txid);
      history.push({ tx_hash: t.txid, height: t.height });
    }
    const mempool: ExpectedEntry[] = [];
    let unconfirmed = 0;
    for (const tx of pool) {
      let touches = false;
      for (const vin of tx.vin) {
        const prev = walk.outputs.get(`${vin.txid}:${vin.vout}`) ?? poolOutputs.get(`${vin.txid}:${vin.vout}`);
        if (prev?.script === script) {
          touches = true;
          unconfirmed -= prev.value;
        }
      }
      for (const o of tx.vout) {
        if (o.scriptPubKey.hex !== script) continue;
        touches = true;
        unconfirmed += sats(o.value);
      }
      if (touches) mempool.push({ tx_hash: tx.txid, height: tx.parents > 0 ? -1 : 0, fee: tx.fee });
    }
    mempool.sort((a, b) => b.height - a.height || (a.tx_hash < b.tx_hash ? -1 : 1));
    const unspent: ExpectedUnspent[] = [];
    let confirmed = 0;
    for (const u of scan.unspents) {
      if (u.scriptPubKey !== script) continue;
      confirmed += sats(u.amount);
      if (spentInPool.has(`${u.txid}:${u.vout}`)) continue;
      unspent.push({ tx_hash: u.txid, tx_pos: u.vout, height: u.height, value: sats(u.amount) });
    }
    for (const [outpoint, o] of poolOutputs) {
      if (o.script !== script || spentInPool.has(outpoint)) continue;
      const [txid, n] = outpoint.split(':');
      unspent.push({ tx_hash: txid!, tx_pos: Number(n), height: 0, value: o.value });
    }
    const all = [...history, ...mempool];
    result.push({
      scripthash: scripthashOf(script),
      history: all,
      mempool,
      balance: { confirmed, unconfirmed },
      unspent: sortUnspent(unspent),
      status: statusOf(all),
    });
  }
  return result;
}

export function sortUnspent<T extends { tx_hash: string; tx_pos: number }>(list: T[]): T[] {
  return list.sort((a, b) => (a.tx_hash < b.tx_hash ? -1 : a.tx_hash > b.tx_hash ? 1 : a.tx_pos - b.tx_pos));
}

const dsha = (b: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const internal = (displayHex: string): Buffer => Buffer.from(displayHex, 'hex').reverse();

/** Bitcoin's merkle root over block hashes given in display hex (the checkpoint tree), as display hex. */
export function checkpointRoot(blockHashes: readonly string[]): string {
  let level = blockHashes.map(internal);
  while (level.length > 1) {
    if (level.length & 1) level.push(level[level.length - 1]!);
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(dsha(Buffer.concat([level[i]!, level[i + 1]!])));
    level = next;
  }
  return Buffer.from(level[0]!).reverse().toString('hex');
}

/** What a wallet does with a checkpoint branch: fold it from the block hash up to the root (display hex). */
export function foldBranch(blockHash: string, height: number, branch: readonly string[]): string {
  let h = internal(blockHash);
  for (const b of branch) {
    h = height & 1 ? dsha(Buffer.concat([internal(b), h])) : dsha(Buffer.concat([h, internal(b)]));
    height >>= 1;
  }
  return Buffer.from(h).reverse().toString('hex');
}
