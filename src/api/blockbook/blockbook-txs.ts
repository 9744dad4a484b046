/**
 * Blockbook's transaction routes: /tx/:txid (Blockbook's Tx, with each input's prevout and each
 * output's spender from the spend index) and /tx-specific/:txid (the node's own getrawtransaction
 * answer). A transaction is found as the native views find it: by the block history names, or in the
 * node's mempool. What a Tx needs beside it (prevouts, spenders, its block's place, its mempool entry's
 * time) is read here once for every route that shows transactions.
 */
import type { Request, Response, Router } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import { nodeRpcCode } from '../../serving/chain-node.js';
import { askNode, keepingFractions, nodeFailure, RPC_NOT_FOUND } from '../../serving/node-answers.js';
import type { FoundTx } from '../../serving/tx-source.js';
import { placesOf } from '../block-place.js';
import { answeringIndex, type NodeRoute, type ViewIndex } from '../node-read.js';
import { historyOff } from '../routes/transactions.js';
import { txExtraTokens } from '../routes/tx.js';
import { BlockbookError, sendBlockbookJson, sendBlockbookText } from './blockbook-answers.js';
import type { BlockbookAsk, HttpAsking } from './blockbook-ask.js';
import { blockbookTxid } from './blockbook-params.js';
import { txValue, type BlockbookPlace, type TxFacts } from './blockbook-values.js';

/** What the transactions of one request are read against: the index and its tip, and one memo of places. */
export interface TxReading {
  readonly route: NodeRoute;
  readonly index: ViewIndex;
  readonly tipHeight: number;
  readonly place: ReturnType<typeof placesOf>;
}

export function txReading(route: NodeRoute, index: ViewIndex, tipHeight: number): TxReading {
  return { route, index, tipHeight, place: placesOf(index) };
}

/** When the node's mempool took the transaction (getmempoolentry); 0 when it has left the mempool since. */
async function mempoolTime({ route }: TxReading, txid: Buffer): Promise<number> {
  const entry = await askNode<{ time?: unknown }>(route.chain, route.views.node, 'getmempoolentry', [toDisplayHex(txid)]);
  return typeof entry?.time === 'number' ? entry.time : 0;
}

async function placeOf(r: TxReading, found: FoundTx): Promise<BlockbookPlace> {
  if (found.block === null) return { confirmed: false, time: await mempoolTime(r, found.tx.txid) };
  const at = await r.place(found.block.height, found.block.hash);
  return {
    confirmed: true,
    height: found.block.height,
    blockHash: toDisplayHex(found.block.hash),
    blockTime: at?.blockTime ?? 0,
    tipHeight: r.tipHeight,
  };
}

/** `found` as Blockbook's Tx (`light`: its txslight form). */
export async function txShown(r: TxReading, found: FoundTx, light = false): Promise<Record<string, unknown>> {
  const { txs } = r.route.views;
  const [prevouts, outspends, place] = await Promise.all([
    txs.prevouts(r.index, found.tx),
    txs.outspends(r.index, found),
    placeOf(r, found),
  ]);
  if (outspends === null) throw historyOff(r.route.chain);
  const facts: TxFacts = { tx: found.tx, raw: found.raw, prevouts, outspends, place };
  return txValue(r.route.handle.params, facts, light);
}

/** Transactions whose reading one token pays for in a page of them (Esplora's page size). */
const TXS_PER_TOKEN = 25;

/**
 * The transactions named, shown (`light`: txslight); one gone meanwhile (or the genesis coinbase, which
 * Core serves to no one) is left out. The page's length is paid before the node is read, what each
 * transaction holds once it is.
 */
export async function txsShown(
  r: TxReading,
  txids: readonly Buffer[],
  light: boolean,
  pay: (extra: number) => Promise<void>,
): Promise<Record<string, unknown>[]> {
  await pay(Math.ceil(txids.length / TXS_PER_TOKEN) - 1);
  const found = (await Promise.all(txids.map((t) => r.route.views.txs.find(r.index, t)))).filter((f) => f !== null);
  await pay(found.reduce((sum, f) => sum + txExtraTokens(f.tx, true), 0));
  return Promise.all(found.map((f) => txShown(r, f, light)));
}

const notFound = (text: string): BlockbookError => new BlockbookError(400, `Transaction '${text}' not found`);

/** Blockbook's Tx of a transaction in the index's chain or the node's mempool. */
export async function txAnswer(ask: BlockbookAsk, text: string): Promise<Record<string, unknown>> {
  const txid = blockbookTxid(text);
  const { index, tipHeight } = await answeringIndex(ask.deps, ask.route, ask.headers, true);
  const found = await ask.route.views.txs.find(index, txid);
  if (found === null) throw notFound(text);
  await ask.charge(txExtraTokens(found.tx, true));
  return txShown(txReading(ask.route, index, tipHeight), found);
}

/** The node's getrawtransaction answer, its numbers as the node wrote them (keepingFractions). */
export async function txSpecificAnswer(ask: BlockbookAsk, text: string): Promise<unknown> {
  const { route } = ask;
  const txid = blockbookTxid(text);
  const { index } = await answeringIndex(ask.deps, route, ask.headers, true);
  const block = await index.txBlock(txid);
  const params: unknown[] = [toDisplayHex(txid), true];
  if (block !== null) params.push(toDisplayHex(block.hash));
  try {
    return await route.views.node.call<unknown>('getrawtransaction', params, { parseJson: keepingFractions });
  } catch (err) {
    if (nodeRpcCode(err) === RPC_NOT_FOUND) throw notFound(text);
    throw nodeFailure(route.chain, err, 'getrawtransaction');
  }
}

export function mountBlockbookTxs(router: Router, asking: HttpAsking): void {
  router.get('/tx/:txid', async (req: Request, res: Response) => {
    sendBlockbookJson(res, await txAnswer(asking(req, res), String(req.params.txid)));
  });

  router.get('/tx-specific/:txid', async (req: Request, res: Response) => {
    sendBlockbookText(res, JSON.stringify(await txSpecificAnswer(asking(req, res), String(req.params.txid))));
  });
}
