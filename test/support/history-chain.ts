/**
 * The chain the history suites run on: the harness's varied chain (every address kind the 0.21 wallet
 * makes plus taproot, coinbases, address-less outputs, MWEB peg-ins, HogEx peg-outs), then one block
 * holding the case a per-output count gets wrong: a transaction that spends a coin of an address and
 * pays that same address twice, followed in the same block by a child spending one of those outputs.
 * Amounts there are fixed here, so tests can check the oracle against numbers it did not compute.
 */
import { Transaction } from 'bitcoinjs-lib';
import { cachedChain, cachedVariedChain, type CachedChain } from '../../harness/chain-cache.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { mine, recordBlockAddresses, type BuildOptions, type ChainManifest } from '../../harness/regtest-chain.js';
import { scriptOf, signAndSend } from '../../harness/regtest-wallet.js';

export interface DoublePay {
  /** A legacy (P2PKH) wallet address. */
  address: string;
  script: string;
  /** Spends `fundedSats` of `address`, pays it `paidSats[0]` (output 0) and `paidSats[1]` (output 2). */
  txid: string;
  fundedSats: bigint;
  paidSats: readonly [bigint, bigint];
  /** Spends output 0 of `txid` in the same block. */
  childTxid: string;
  blockHash: string;
  height: number;
  /** Positions of the two transactions in the block's transaction list. */
  position: number;
  childPosition: number;
}

export interface HistoryChain {
  manifest: ChainManifest;
  doublePay: DoublePay;
}

const FUNDING = 200_000_000n;
const PAID = [70_000_000n, 50_000_000n] as const;
const FEE = 20_000n;

/**
 * The history chain for these options, built once per run (harness/chain-cache.ts) on top of the varied
 * chain of the same options. `perKind` defaults to 24 here: history needs variety, not volume.
 */
export async function cachedHistoryChain(opts: Omit<BuildOptions, 'onStep'> = {}): Promise<CachedChain<HistoryChain>> {
  const varied = await cachedVariedChain({ perKind: 24, ...opts });
  return cachedChain('history', (node) => addDoublePay(node, structuredClone(varied.value)), {
    base: varied,
    sources: ['test/support/history-chain.ts'],
  });
}

/** Mines the double-pay block on top of the varied chain `manifest` describes (and records it there). */
async function addDoublePay(node: Litecoind, manifest: ChainManifest): Promise<HistoryChain> {
  const miner = await node.cli<string>('getnewaddress', '', 'bech32');
  const address = await node.cli<string>('getnewaddress', '', 'legacy');
  const script = await scriptOf(node, address);
  const fundTxid = await node.cli<string>('sendtoaddress', address, '2.00000000');
  const fundedIn = await mine(node, 1, miner);

  const funded = await node.cliExact<{ details: { category: string; address?: string; vout: number; amount: string }[] }>(
    'gettransaction',
    fundTxid,
  );
  const coin = funded.details.find((d) => d.category === 'receive' && d.address === address);
  if (coin?.amount !== '2.00000000') throw new Error(`funding ${fundTxid} did not pay 2 LTC to ${address}`);

  // createrawtransaction refuses a repeated address, so the transaction is put together by hand.
  const change = await scriptOf(node, await node.cli<string>('getnewaddress', '', 'bech32'));
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.from(fundTxid, 'hex').reverse(), coin.vout);
  tx.addOutput(Buffer.from(script, 'hex'), PAID[0]);
  tx.addOutput(Buffer.from(change, 'hex'), FUNDING - PAID[0] - PAID[1] - FEE);
  tx.addOutput(Buffer.from(script, 'hex'), PAID[1]);
  const txid = await signAndSend(node, tx.toHex());

  const child = new Transaction();
  child.version = 2;
  child.addInput(Buffer.from(txid, 'hex').reverse(), 0);
  child.addOutput(Buffer.from(await scriptOf(node, await node.cli<string>('getnewaddress', '', 'p2sh-segwit')), 'hex'), PAID[0] - FEE);
  const childTxid = await signAndSend(node, child.toHex());

  const [blockHash] = await mine(node, 1, miner);
  const block = await node.cli<{ height: number; tx: string[] }>('getblock', blockHash, 1);
  const [position, childPosition] = [block.tx.indexOf(txid), block.tx.indexOf(childTxid)];
  if (position < 1 || childPosition < 1) throw new Error(`block ${block.height} lacks the double-pay transactions`);
  await recordBlockAddresses(node, manifest, [...fundedIn, blockHash as string]);
  return {
    manifest,
    doublePay: {
      address,
      script,
      txid,
      fundedSats: FUNDING,
      paidSats: PAID,
      childTxid,
      blockHash: blockHash as string,
      height: block.height,
      position,
      childPosition,
    },
  };
}
