/**
 * What a watch-only wallet of some addresses should show, from the node alone: the confirmed balance
 * (scantxoutset), the mempool's effect on it, and every txid touching the addresses (a walk of
 * `getblock <hash> 2` from genesis, then the mempool). The expected side of the real-client test.
 */
import type { RegtestNode } from '../../harness/regtest-wallet.js';
import { parseCoins } from '../../src/chain/amount.js';

interface VerboseTx {
  txid: string;
  vin: { txid?: string; vout?: number }[];
  /** Litecoin Core 0.21 lists `addresses`; later Bitcoin Core versions one `address`. */
  vout: { value: number | string; n: number; scriptPubKey: { address?: string; addresses?: string[] } }[];
}

export interface WalletView {
  confirmedSats: number;
  unconfirmedSats: number;
  txids: Set<string>;
  confirmedTxids: number;
  mempoolTxids: number;
}

const sats = (v: number | string): number => Number(parseCoins(String(v)));

export async function nodeWalletView(node: RegtestNode, addresses: readonly string[]): Promise<WalletView> {
  const watched = new Set(addresses);
  const outputs = new Map<string, number>(); // "txid:n" of watched outputs → sats (amounts read as exact decimal text)
  const txids = new Set<string>();
  /** Records the tx when it pays or spends a watched output; returns its effect in sats. */
  const visit = (tx: VerboseTx): number => {
    let delta = 0;
    for (const i of tx.vin) {
      const spent = i.txid === undefined ? undefined : outputs.get(`${i.txid}:${i.vout}`);
      if (spent !== undefined) delta -= spent;
    }
    for (const o of tx.vout)
      if ([o.scriptPubKey.address, ...(o.scriptPubKey.addresses ?? [])].some((a) => a !== undefined && watched.has(a))) {
        outputs.set(`${tx.txid}:${o.n}`, sats(o.value));
        delta += sats(o.value);
      }
    const touches = delta !== 0 || tx.vin.some((i) => outputs.has(`${i.txid}:${i.vout}`));
    if (touches) txids.add(tx.txid);
    return delta;
  };

  const tip = await node.cli<number>('getblockcount');
  for (let h = 0; h <= tip; h++) {
    const block = await node.cliExact<{ tx: VerboseTx[] }>('getblock', await node.cli<string>('getblockhash', h), 2);
    for (const tx of block.tx) visit(tx);
  }
  const confirmedTxids = txids.size;
  let unconfirmedSats = 0;
  // Parents before children would matter for chains of unconfirmed payments; the test has none.
  for (const txid of await node.cli<string[]>('getrawmempool'))
    unconfirmedSats += visit(await node.cliExact<VerboseTx>('getrawtransaction', txid, true));

  const scan = await node.cliExact<{ total_amount: number | string }>(
    'scantxoutset',
    'start',
    addresses.map((a) => `addr(${a})`),
  );
  return { confirmedSats: sats(scan.total_amount), unconfirmedSats, txids, confirmedTxids, mempoolTxids: txids.size - confirmedTxids };
}
