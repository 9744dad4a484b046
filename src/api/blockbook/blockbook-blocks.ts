/**
 * Blockbook's block routes: /block-index/:height (the hash at a height; none: the tip's) and
 * /block/:height|hash (the header's fields, then a page of BLOCK_PAGE transactions in block order, in
 * their txslight form). Headers come from the index, what a header does not hold (size, txids) from the
 * node, and the difficulty as the node writes it. A block is known when it is in the indexed chain.
 */
import type { Request, Response, Router } from 'express';
import { nodeFailure, keepingFractions } from '../../serving/node-answers.js';
import type { IndexedBlock } from '../../serving/block-source.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, type NodeRoute, type ViewIndex } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { extraCharge } from '../routes/tx.js';
import { intParam } from './blockbook-address.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
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

async function indexed(deps: AppDeps, req: Request, res: Response, withHistory: boolean): Promise<Indexed> {
  const route = nodeRoute(deps, req);
  const { index, tipHeight } = await answeringIndex(deps, route, res, withHistory);
  return { route, index, tipHeight };
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

export function mountBlockbookBlocks(router: Router, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);

  const blockIndex = async (req: Request, res: Response, text: string | null): Promise<void> => {
    const at = await indexed(deps, req, res, false);
    // Blockbook answers the tip for a height it cannot read as an integer.
    const height = text !== null && /^[+-]?\d+$/.test(text) ? Number(text) : at.tipHeight;
    const block = height >= 0 && height <= at.tipHeight ? await at.route.views.blocks.atHeight(at.index, height) : null;
    if (block === null) throw notFound();
    sendBlockbookJson(res, { blockHash: block.hash });
  };
  router.get('/block-index/', (req, res) => blockIndex(req, res, null));
  router.get('/block-index/:height', (req, res) => blockIndex(req, res, String(req.params.height)));

  router.get('/block/:id', async (req, res) => {
    const at = await indexed(deps, req, res, true);
    const block = await blockOf(at, String(req.params.id));
    const [body, difficulty] = await Promise.all([at.route.views.blocks.body(block), difficultyText(at.route, block.hash)]);
    const q = queryOf(req);
    const pg = paging(body.txids.length, intParam(q.getAll('page').at(-1) ?? null, 1, 1, 1_000_000), BLOCK_PAGE);
    const txids = body.txids.slice((pg.page - 1) * BLOCK_PAGE, pg.page * BLOCK_PAGE);
    const txs = await txsShown(txReading(at.route, at.index, at.tipHeight), txids, true, (extra) => charge(req, res, extra));
    sendBlockbookJson(
      res,
      blockValue(
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
      ),
    );
  });
}
