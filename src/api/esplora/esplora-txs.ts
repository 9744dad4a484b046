/**
 * Esplora's transaction routes: /tx/:txid, …/status, …/hex, …/raw, …/merkle-proof, …/merkleblock-proof,
 * …/outspend/:vout and …/outspends, from the serving layer's transaction source (the node without -txindex, history naming
 * each transaction's block) and the spend index. Like the native views they need history on.
 */
import type { Request, Response, Router } from 'express';
import { merkleBranch } from '../../chain/merkle.js';
import { merkleBlockProof } from '../../chain/merkle-block.js';
import type { IndexedBlock } from '../../serving/block-source.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { FoundTx, Outspend } from '../../serving/tx-source.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, parseTxid, type NodeRoute, type ViewIndex } from '../node-read.js';
import { historyOff } from '../routes/transactions.js';
import { extraCharge, txExtraTokens } from '../routes/tx.js';
import { EsploraError, sendEsploraBytes, sendEsploraJson, sendEsploraText } from './esplora-answers.js';
import { rustUint } from './esplora-parse.js';
import { placeAt, placesOf, type BlockPlace } from '../block-place.js';
import { outspendValue, statusValue, txValue } from './esplora-values.js';

interface Looked {
  readonly route: NodeRoute;
  readonly index: ViewIndex;
  readonly found: FoundTx | null;
}

async function lookUp(deps: AppDeps, req: Request, res: Response): Promise<Looked> {
  const route = nodeRoute(deps, req);
  const txid = parseTxid(String(req.params.txid));
  const { index } = await answeringIndex(deps, route, res, true);
  return { route, index, found: await route.views.txs.find(index, txid) };
}

async function mustFind(deps: AppDeps, req: Request, res: Response): Promise<Looked & { readonly found: FoundTx }> {
  const looked = await lookUp(deps, req, res);
  if (looked.found === null) throw new EsploraError(404, 'Transaction not found');
  return looked as Looked & { readonly found: FoundTx };
}

const placeOf = (index: ViewIndex, found: FoundTx): Promise<BlockPlace | null> =>
  found.block === null ? Promise.resolve(null) : placeAt(index, found.block.height, found.block.hash);

/** An output's spender in Esplora's shape, with the place of its block (`place`: one header read per height). */
const spenderValue = async (o: Outspend | null, place: (height: number) => Promise<BlockPlace | null>): Promise<Record<string, unknown>> =>
  outspendValue(o === null ? null : { txid: o.txid, vin: o.vin, place: o.height === null ? null : await place(o.height) });

/** Each output's spender with the place of its block. */
async function spendersOf(route: NodeRoute, index: ViewIndex, found: FoundTx): Promise<Record<string, unknown>[]> {
  const outspends = await route.views.txs.outspends(index, found);
  if (outspends === null) throw historyOff(route.chain);
  const place = placesOf(index);
  return Promise.all(outspends.map((o) => spenderValue(o, place)));
}

const unconfirmed = (): EsploraError => new EsploraError(404, 'Transaction not found or is unconfirmed');

/** A confirmed transaction's block as the index holds it, with the block's txids and its position there. */
async function confirmedIn(
  deps: AppDeps,
  req: Request,
  res: Response,
): Promise<{ index: ViewIndex; block: IndexedBlock; txids: readonly Buffer[]; pos: number }> {
  const { route, index, found } = await lookUp(deps, req, res);
  if (found === null) throw unconfirmed();
  const placed = await route.views.blocks.placement(index, found.tx.txid, found.block);
  if (placed.kind !== 'placed') throw unconfirmed();
  return { index, block: placed.block, txids: placed.txids, pos: placed.position };
}

/** An output index as electrs parses it (a u32). */
function parseVout(text: string): number {
  const n = rustUint(text, 32);
  if (n === null) throw new EsploraError(400, 'Invalid number');
  return Number(n);
}

export function mountEsploraTxs(router: Router, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);

  router.get('/tx/:txid', async (req, res) => {
    const { route, index, found } = await mustFind(deps, req, res);
    await charge(req, res, txExtraTokens(found.tx, true));
    const [prevouts, place] = await Promise.all([route.views.txs.prevouts(index, found.tx), placeOf(index, found)]);
    sendEsploraJson(res, txValue(route.handle.params, found.tx, prevouts, place));
  });

  router.get('/tx/:txid/status', async (req, res) => {
    const { index, found } = await lookUp(deps, req, res);
    sendEsploraJson(res, statusValue(found === null ? null : await placeOf(index, found)));
  });

  router.get('/tx/:txid/hex', async (req, res) => {
    sendEsploraText(res, (await mustFind(deps, req, res)).found.raw.toString('hex'));
  });

  router.get('/tx/:txid/raw', async (req, res) => {
    sendEsploraBytes(res, (await mustFind(deps, req, res)).found.raw);
  });

  router.get('/tx/:txid/merkle-proof', async (req, res) => {
    const { block, txids, pos } = await confirmedIn(deps, req, res);
    sendEsploraJson(res, { block_height: block.height, merkle: merkleBranch(txids, pos).map(toDisplayHex), pos });
  });

  router.get('/tx/:txid/merkleblock-proof', async (req, res) => {
    const { index, block, txids, pos } = await confirmedIn(deps, req, res);
    const header = (await index.headers(block.height, 1))?.headers[0];
    if (header === undefined) throw unconfirmed();
    sendEsploraText(res, merkleBlockProof(header, txids, pos).toString('hex'));
  });

  router.get('/tx/:txid/outspend/:vout', async (req, res) => {
    const { route, index, found } = await lookUp(deps, req, res);
    const vout = parseVout(String(req.params.vout));
    if (found === null || vout >= found.tx.outputs.length) return sendEsploraJson(res, outspendValue(null));
    await charge(req, res, txExtraTokens(found.tx, false));
    // One output's spender only: the spending transactions of the others are not read.
    const read = await route.views.txs.outspend(index, found, vout);
    if (read === null) throw historyOff(route.chain);
    sendEsploraJson(res, await spenderValue(read.spend, placesOf(index)));
  });

  router.get('/tx/:txid/outspends', async (req, res) => {
    const { route, index, found } = await mustFind(deps, req, res);
    await charge(req, res, txExtraTokens(found.tx, false));
    sendEsploraJson(res, await spendersOf(route, index, found));
  });
}
