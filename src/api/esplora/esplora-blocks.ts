/**
 * Esplora's block routes: /blocks/tip/height, /blocks/tip/hash, /blocks[/:start_height] (10 a page,
 * newest first), /block-height/:height, /block/:hash, …/header, …/status, …/txids and …/txid/:index.
 * Headers come from the index, what a header does not hold (size, weight, txids) from the node, as for
 * the native block views. A block is known when it is in the indexed chain; a hash of any other block
 * answers 404 (its status: not in the best chain).
 */
import type { Request, Response, Router } from 'express';
import { toDisplayHex } from '../../chain/hash.js';
import type { IndexedBlock } from '../../serving/block-source.js';
import type { AppDeps } from '../deps.js';
import { answeringIndex, nodeRoute, type NodeRoute, type ViewIndex } from '../node-read.js';
import { EsploraError, sendEsploraJson, sendEsploraText } from './esplora-answers.js';
import { blockValue } from './esplora-values.js';

/** Blocks one /blocks page lists. */
export const BLOCKS_PER_PAGE = 10;

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

/** Rust's usize parse: decimal digits, an optional leading `+`. */
function parseIndex(text: string): number {
  const n = /^\+?\d{1,15}$/.test(text) ? Number(text.replace('+', '')) : NaN;
  if (!Number.isSafeInteger(n)) throw new EsploraError(400, 'Invalid number');
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

export function mountEsploraBlocks(router: Router, deps: AppDeps): void {
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
    const parsed = startText !== undefined && /^\+?\d{1,10}$/.test(startText) ? Number(startText.replace('+', '')) : at.tipHeight;
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
