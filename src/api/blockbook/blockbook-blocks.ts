/**
 * Blockbook's block routes: /block-index/:height (the hash at a height; none: the tip's) and
 * /block/:height|hash (the header's fields, then a page of BLOCK_PAGE transactions in block order, in
 * their txslight form). Headers come from the index, what a header does not hold (size, txids) from the
 * node, and the difficulty as the node writes it. A block is known when it is in the indexed chain.
 */
import type { Request, Response, Router } from 'express';
import { nodeFailure, keepingFractions } from '../../serving/node-answers.js';
import type { IndexedBlock } from '../../serving/block-source.js';
import { answeringIndex, type NodeRoute, type ViewIndex } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
import type { BlockbookAsk, HttpAsking } from './blockbook-ask.js';
import { intParam } from './blockbook-params.js';
import { txReading, txsShown } from './blockbook-txs.js';
import { blockValue, paging } from './blockbook-values.js';

/** Transactions one block page lists (Blockbook's txsInAPI). */
const BLOCK_PAGE = 1000;
/** Blockbook reads an id below this that parses as an integer as a height. */
const HEIGHT_BELOW = 2 ** 32 - 1;

const notFound = (): BlockbookError => new BlockbookError(400, 'Block not found');

interface Indexed {
  readonly route: NodeRoute;
  readonly index: ViewIndex;
  readonly tipHeight: number;
}

async function indexed(ask: BlockbookAsk, withHistory: boolean): Promise<Indexed> {
  const { index, tipHeight } = await answeringIndex(ask.deps, ask.route, ask.headers, withHistory);
  return { route: ask.route, index, tipHeight };
}

/** A height (Go's Atoi, below 2^32 − 1) or a block hash, as Blockbook reads the id. */
async function blockOf(at: Indexed, id: string): Promise<IndexedBlock> {
  const { blocks } = at.route.views;
  let block: IndexedBlock | null = null;
  if (/^[+-]?\d+$/.test(id) && Number(id) < HEIGHT_BELOW) {
    const height = Number(id);
    if (height >= 0 && height <= at.tipHeight) block = await blocks.atHeight(at.index, height);
  } else if (/^[0-9a-fA-F]{64}$/.test(id)) {
    block = await blocks.withHash(at.index, id.toLowerCase());
  }
  if (block === null) throw notFound();
  return block;
}

/** getblockheader's difficulty as the node's JSON spells it. */
async function difficultyText(route: NodeRoute, hash: string): Promise<string> {
  let header: { difficulty?: unknown };
  try {
    header = await route.views.node.call<{ difficulty?: unknown }>('getblockheader', [hash, true], { parseJson: keepingFractions });
  } catch (err) {
    throw nodeFailure(route.chain, err, 'getblockheader');
  }
  return JSON.stringify(header.difficulty ?? 0);
}

/** The hash of the indexed block at `height`; null (Blockbook: a height it cannot read) is the tip's. */
export async function blockHashAnswer(ask: BlockbookAsk, height: number | null): Promise<string> {
  const at = await indexed(ask, false);
  const h = height ?? at.tipHeight;
  const block = h >= 0 && h <= at.tipHeight ? await at.route.views.blocks.atHeight(at.index, h) : null;
  if (block === null) throw notFound();
  return block.hash;
}

/** Blockbook's Block: the header's fields and page `page` of its transactions (BLOCK_PAGE each, txslight). */
export async function blockAnswer(ask: BlockbookAsk, id: string, page: number): Promise<Record<string, unknown>> {
  const at = await indexed(ask, true);
  const block = await blockOf(at, id);
  const [body, difficulty] = await Promise.all([at.route.views.blocks.body(block), difficultyText(at.route, block.hash)]);
  const pg = paging(body.txids.length, page, BLOCK_PAGE);
  const txids = body.txids.slice((pg.page - 1) * BLOCK_PAGE, pg.page * BLOCK_PAGE);
  const txs = await txsShown(txReading(at.route, at.index, at.tipHeight), txids, true, (extra) => ask.charge(extra));
  return blockValue(
    {
      hash: block.hash,
      height: block.height,
      header: block.header,
      nextHash: block.nextHash,
      tipHeight: at.tipHeight,
      size: body.size,
      txCount: body.txids.length,
      difficulty,
    },
    pg,
    txs,
  );
}

export function mountBlockbookBlocks(router: Router, asking: HttpAsking): void {
  const blockIndex = async (req: Request, res: Response, text: string | null): Promise<void> => {
    // Blockbook answers the tip for a height it cannot read as an integer.
    const height = text !== null && /^[+-]?\d+$/.test(text) ? Number(text) : null;
    sendBlockbookJson(res, { blockHash: await blockHashAnswer(asking(req, res), height) });
  };
  router.get('/block-index/', (req, res) => blockIndex(req, res, null));
  router.get('/block-index/:height', (req, res) => blockIndex(req, res, String(req.params.height)));

  router.get('/block/:id', async (req, res) => {
    const page = intParam(queryOf(req).getAll('page').at(-1) ?? null, 1, 1, 1_000_000);
    sendBlockbookJson(res, await blockAnswer(asking(req, res), String(req.params.id), page));
  });
}
