/**
 * Esplora's block routes: /blocks/tip/height, /blocks/tip/hash, /blocks[/:start_height] (10 a page,
 * newest first), /block-height/:height, /block/:hash, …/header, …/status, …/txids, …/txid/:index, …/raw
 * and …/txs[/:start_index] (25 a page, each transaction with its prevouts).
 * Headers come from the index, what a header does not hold (size, weight, txids) from the node, as for
 * the native block views. A block is known when it is in the indexed chain; a hash of any other block
 * answers 404 (its status: not in the best chain).
 */
import type { Request, Response, Router } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import type { IndexedBlock } from '../../serving/block-source.js';
import { ServingError } from '../../serving/errors.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, type NodeRoute, type ViewIndex } from '../node-read.js';
import { extraCharge, txExtraTokens } from '../routes/tx.js';
import { rustUint } from './esplora-parse.js';
import { EsploraError, sendEsploraBytes, sendEsploraJson, sendEsploraText } from './esplora-answers.js';
import { blockValue, txValue } from './esplora-values.js';

/** Blocks one /blocks page lists. */
export const BLOCKS_PER_PAGE = 10;
/** Transactions one /block/:hash/txs page lists. */
export const BLOCK_TXS_PER_PAGE = 25;

interface Indexed {
  readonly route: NodeRoute;
  readonly index: ViewIndex;
  readonly tipHeight: number;
}

async function indexed(deps: AppDeps, req: Request, res: Response): Promise<Indexed> {
  const route = nodeRoute(deps, req);
  const { index, tipHeight } = await answeringIndex(deps, route, res, false);
  return { route, index, tipHeight };
}

/** A block hash as electrs parses one: 64 hex digits of either case; 400 `Invalid hex string` otherwise. */
function parseHash(text: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new EsploraError(400, 'Invalid hex string');
  return text.toLowerCase();
}

/**
 * A height or index as electrs parses it (a usize): null where Rust errs. Past 2^53 the number is
 * rounded, which no comparison with a height or a block's transaction count can tell (a page's start,
 * taken modulo its size, stays a bigint).
 */
function usize(text: string | undefined): number | null {
  const n = text === undefined ? null : rustUint(text, 64);
  return n === null ? null : Number(n);
}

function parseIndex(text: string): number {
  const n = usize(text);
  if (n === null) throw new EsploraError(400, 'Invalid number');
  return n;
}

const notFound = (): EsploraError => new EsploraError(404, 'Block not found');

async function byHash(at: Indexed, text: string): Promise<IndexedBlock> {
  const block = await at.route.views.blocks.withHash(at.index, parseHash(text));
  if (block === null) throw notFound();
  return block;
}

async function valueOf(at: Indexed, block: IndexedBlock): Promise<Record<string, unknown>> {
  const [body, medianTime] = await Promise.all([at.route.views.blocks.body(block), at.route.views.blocks.medianTime(at.index, block)]);
  return blockValue({
    hash: block.hash,
    height: block.height,
    header: block.header,
    txCount: body.txids.length,
    size: body.size,
    weight: body.weight,
    medianTime,
  });
}

/**
 * A page of the block's transactions, each with its prevouts. Priced as that many transaction views: a
 * token each before any is read, then what their inputs and outputs cost once they are.
 */
async function blockTxs(at: Indexed, block: IndexedBlock, start: bigint, charge: (extra: number) => Promise<void>): Promise<unknown[]> {
  const { txids } = await at.route.views.blocks.body(block);
  if (start % BigInt(BLOCK_TXS_PER_PAGE) !== 0n) throw new EsploraError(400, `start index must be a multiple of ${BLOCK_TXS_PER_PAGE}`);
  if (start >= BigInt(txids.length)) throw new EsploraError(400, 'start index out of range');
  const page = txids.slice(Number(start), Number(start) + BLOCK_TXS_PER_PAGE);
  await charge(page.length - 1);
  const found = await Promise.all(page.map((txid) => at.route.views.txs.find(at.index, txid)));
  await charge(found.reduce((sum, f) => sum + (f === null ? 0 : txExtraTokens(f.tx, true)), 0));
  const place = { height: block.height, blockHash: block.hash, blockTime: block.header.time };
  return Promise.all(
    found.map(async (f, i) => {
      // Only the genesis coinbase: Core serves it to no one.
      if (f === null)
        throw new ServingError('NODE_UNAVAILABLE', `the ${at.route.chain} node does not serve transaction ${toDisplayHex(page[i]!)}`);
      return txValue(at.route.handle.params, f.tx, await at.route.views.txs.prevouts(at.index, f.tx), place);
    }),
  );
}

export function mountEsploraBlocks(router: Router, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);
  router.get('/blocks/tip/height', async (req, res) => {
    sendEsploraText(res, String((await indexed(deps, req, res)).tipHeight));
  });

  router.get('/blocks/tip/hash', async (req, res) => {
    const at = await indexed(deps, req, res);
    const tip = await at.route.views.blocks.atHeight(at.index, at.tipHeight);
    if (tip === null) throw notFound();
    sendEsploraText(res, tip.hash);
  });

  const page = async (req: Request, res: Response, startText: string | undefined): Promise<void> => {
    const at = await indexed(deps, req, res);
    // electrs ignores a start height it cannot parse: the page starts at the tip.
    const parsed = usize(startText) ?? at.tipHeight;
    if (parsed > at.tipHeight) throw notFound();
    const heights = Array.from({ length: Math.min(BLOCKS_PER_PAGE, parsed + 1) }, (_, i) => parsed - i);
    const blocks = await Promise.all(heights.map((h) => at.route.views.blocks.atHeight(at.index, h)));
    sendEsploraJson(res, await Promise.all(blocks.filter((b): b is IndexedBlock => b !== null).map((b) => valueOf(at, b))));
  };
  router.get('/blocks', (req, res) => page(req, res, undefined));
  router.get('/blocks/:start', (req, res) => page(req, res, String(req.params.start)));
  // A trailing slash leaves an empty start height, which electrs reads as none.
  router.get('/blocks/', (req, res) => page(req, res, undefined));

  router.get('/block-height/:height', async (req, res) => {
    const height = parseIndex(String(req.params.height));
    const at = await indexed(deps, req, res);
    const block = height > at.tipHeight ? null : await at.route.views.blocks.atHeight(at.index, height);
    if (block === null) throw notFound();
    sendEsploraText(res, block.hash);
  });

  router.get('/block/:hash', async (req, res) => {
    const at = await indexed(deps, req, res);
    sendEsploraJson(res, await valueOf(at, await byHash(at, String(req.params.hash))));
  });

  router.get('/block/:hash/header', async (req, res) => {
    const at = await indexed(deps, req, res);
    const block = await byHash(at, String(req.params.hash));
    const raw = (await at.index.headers(block.height, 1))?.headers[0];
    if (raw === undefined) throw notFound();
    sendEsploraText(res, raw.toString('hex'));
  });

  router.get('/block/:hash/status', async (req, res) => {
    const at = await indexed(deps, req, res);
    const block = await at.route.views.blocks.withHash(at.index, parseHash(String(req.params.hash)));
    sendEsploraJson(
      res,
      block === null
        ? { in_best_chain: false, height: null, next_best: null }
        : { in_best_chain: true, height: block.height, next_best: block.nextHash },
    );
  });

  router.get('/block/:hash/txids', async (req, res) => {
    const at = await indexed(deps, req, res);
    const { txids } = await at.route.views.blocks.body(await byHash(at, String(req.params.hash)));
    sendEsploraJson(res, txids.map(toDisplayHex));
  });

  router.get('/block/:hash/raw', async (req, res) => {
    const at = await indexed(deps, req, res);
    sendEsploraBytes(res, await at.route.views.blocks.raw(await byHash(at, String(req.params.hash))));
  });

  const txsPage = async (req: Request, res: Response, startText: string | undefined): Promise<void> => {
    const at = await indexed(deps, req, res);
    const block = await byHash(at, String(req.params.hash));
    // electrs reads a start index it cannot parse as 0.
    const start = (startText === undefined ? null : rustUint(startText, 64)) ?? 0n;
    sendEsploraJson(res, await blockTxs(at, block, start, (extra) => charge(req, res, extra)));
  };
  router.get('/block/:hash/txs', (req, res) => txsPage(req, res, undefined));
  router.get('/block/:hash/txs/', (req, res) => txsPage(req, res, undefined));
  router.get('/block/:hash/txs/:start', (req, res) => txsPage(req, res, String(req.params.start)));

  router.get('/block/:hash/txid/:index', async (req, res) => {
    const at = await indexed(deps, req, res);
    const block = await byHash(at, String(req.params.hash));
    const i = parseIndex(String(req.params.index));
    const { txids } = await at.route.views.blocks.body(block);
    const txid = txids[i];
    if (txid === undefined) throw new EsploraError(404, 'tx index out of range');
    sendEsploraText(res, toDisplayHex(txid));
  });
}
