/**
 * Esplora's address and scripthash routes: `/address/:a` and `/scripthash/:h` (chain_stats and
 * mempool_stats), `…/txs` (up to 50 mempool transactions, then 25 confirmed), `…/txs/chain[/:last_seen]`
 * (25 a page), `…/txs/mempool` and `…/utxo`, read from history and the UTXO listing through the serving
 * layer. Esplora's scripthash is SHA-256 of the script in natural byte order (Electrum's is reversed).
 *
 * Where electrs's order is an accident of its keys (within a block it lists by txid, the mempool in the
 * order it learned it), ours is the native routes': newest first by height, then position in the block,
 * the mempool newest first (docs/esplora.md).
 */
import type { Request, Response, Router } from 'express';
import { addressToScript } from '../../chain/address.js';
import { toDisplayHex, fromDisplayHex } from '../../chain/hash.js';
import { decodeOutpoint } from '../../store/outpoint.js';
import { scriptKey, scriptKeyOfDigest } from '../../store/script-key.js';
import type { HistoryPosition } from '../../store/index-model.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { AppDeps } from '../deps.js';
import { readIndex } from '../index-read.js';
import type { ApiMetrics } from '../metrics.js';
import { answeringIndex, nodeRoute, type NodeRoute, type ViewIndex } from '../node-read.js';
import { historyOff, servedPage } from '../routes/transactions.js';
import { extraCharge, txExtraTokens } from '../routes/tx.js';
import { listingOff, UTXOS_PER_TOKEN } from '../routes/utxos.js';
import { EsploraError, sendEsploraJson } from './esplora-answers.js';
import { U64 } from './esplora-json.js';
import { placesOf } from '../block-place.js';
import { statusValue, txValue } from './esplora-values.js';

/** electrs's page sizes (CHAIN_TXS_PER_PAGE, MAX_MEMPOOL_TXS) and its default --utxos-limit. */
const CHAIN_TXS_PER_PAGE = 25;
const MAX_MEMPOOL_TXS = 50;
const UTXOS_LIMIT = 500;
/** The listing's rows read at most for one `…/utxo` (confirmed ones within UTXOS_LIMIT, then the mempool's). */
const UTXO_ROWS = 1000;

type Kind = 'address' | 'scripthash';

interface Named {
  readonly route: NodeRoute;
  readonly key: Buffer;
  readonly kind: Kind;
  /** As the request spelled it: electrs answers it back so. */
  readonly text: string;
}

function scriptNamed(deps: AppDeps, req: Request, kind: Kind): Named {
  const route = nodeRoute(deps, req);
  const text = String(req.params.script);
  if (kind === 'address') {
    const decoded = addressToScript(route.handle.params, text);
    if (!decoded.ok)
      throw new EsploraError(400, decoded.error.code === 'WRONG_NETWORK' ? 'Address on invalid network' : 'Invalid Bitcoin address');
    return { route, key: scriptKey(decoded.script), kind, text };
  }
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new EsploraError(400, 'Invalid hex string');
  if (text.length !== 64) throw new EsploraError(400, 'Invalid scripthash');
  return { route, key: scriptKeyOfDigest(Buffer.from(text, 'hex')), kind, text };
}

/** electrs's ScriptStats, its keys in serde_json's (sorted) order. */
function stats(funded: number, received: bigint, spent: number, sent: bigint, txCount: number): Record<string, unknown> {
  return {
    funded_txo_count: funded,
    funded_txo_sum: new U64(received),
    spent_txo_count: spent,
    spent_txo_sum: new U64(sent),
    tx_count: txCount,
  };
}

async function scriptStats(deps: AppDeps, res: Response, { route, key }: Named): Promise<Record<string, unknown>> {
  const { chain, handle } = route;
  await answeringIndex(deps, route, res, true);
  const views = await readIndex(chain, handle, (s) => s.keyViews([key], true, { fundedOutputs: true }));
  const view = views?.items[0];
  if (view?.history === undefined || view.unconfirmed === undefined) throw historyOff(chain);
  const h = view.history;
  const m = view.unconfirmed;
  // The mempool's outputs paying the script minus its Δ UTXO count: its coins the mempool spends.
  const funded = m.funded ?? 0;
  return {
    chain_stats: stats(h.funded, h.received, h.spent, h.sent, h.txCount),
    mempool_stats: stats(funded, m.received ?? 0n, funded - m.utxoCount, m.sent ?? 0n, m.txCount),
  };
}

async function historyOf(
  deps: AppDeps,
  res: Response,
  { route, key }: Named,
  after: HistoryPosition | null,
  limit: number,
  mempool: boolean,
) {
  const { chain, handle } = route;
  const read = await readIndex(chain, handle, async (s) => (s.historyPage ? s.historyPage({ key, after, limit, mempool }) : null));
  return servedPage(deps, chain, read, res);
}

/** The transactions named, in Esplora's shape with prevouts and status; one gone meanwhile is left out. */
async function txsValue(
  req: Request,
  res: Response,
  route: NodeRoute,
  index: ViewIndex,
  txids: readonly Buffer[],
  charge: (req: Request, res: Response, extra: number) => Promise<void>,
): Promise<unknown[]> {
  // The page's size is paid before the node is asked for it; what each transaction holds, once read.
  await charge(req, res, Math.max(0, Math.ceil(txids.length / CHAIN_TXS_PER_PAGE) - 1));
  const found = (await Promise.all(txids.map((t) => route.views.txs.find(index, t)))).filter((f) => f !== null);
  await charge(
    req,
    res,
    found.reduce((sum, f) => sum + txExtraTokens(f.tx, true), 0),
  );
  const placeOf = placesOf(index);
  return Promise.all(
    found.map(async (f) => {
      const [prevouts, place] = await Promise.all([
        route.views.txs.prevouts(index, f.tx),
        f.block === null ? null : placeOf(f.block.height, f.block.hash),
      ]);
      return txValue(route.handle.params, f.tx, prevouts, place);
    }),
  );
}

const LAST_SEEN = /^[0-9a-fA-F]{64}$/;

export function mountEsploraScripts(router: Router, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics): void {
  const charge = extraCharge(limiter, deps.settings, metrics);
  for (const kind of ['address', 'scripthash'] as const) {
    const base = `/${kind}/:script`;

    router.get(base, async (req, res) => {
      const named = scriptNamed(deps, req, kind);
      const figures = await scriptStats(deps, res, named);
      sendEsploraJson(res, kind === 'address' ? { address: named.text, ...figures } : { ...figures, scripthash: named.text });
    });

    router.get(`${base}/txs`, async (req, res) => {
      const named = scriptNamed(deps, req, kind);
      const { index } = await answeringIndex(deps, named.route, res, true);
      const page = await historyOf(deps, res, named, null, MAX_MEMPOOL_TXS + CHAIN_TXS_PER_PAGE, true);
      let confirmed: readonly { readonly txid: Buffer }[] = page.items.slice(0, CHAIN_TXS_PER_PAGE);
      // The mempool filled the read: the confirmed part is a read of its own.
      if (confirmed.length < CHAIN_TXS_PER_PAGE && page.next !== null)
        confirmed = (await historyOf(deps, res, named, null, CHAIN_TXS_PER_PAGE, false)).items;
      const txids = [...page.unconfirmed.slice(0, MAX_MEMPOOL_TXS), ...confirmed].map((t) => t.txid);
      sendEsploraJson(res, await txsValue(req, res, named.route, index, txids, charge));
    });

    const chainPage = async (req: Request, res: Response): Promise<void> => {
      const named = scriptNamed(deps, req, kind);
      const { index } = await answeringIndex(deps, named.route, res, true);
      const last = req.params.last === undefined ? null : String(req.params.last);
      let txids: Buffer[];
      // electrs reads a last_seen_txid that is not a txid as none, and one the history lacks as its end.
      if (last !== null && LAST_SEEN.test(last)) {
        const block = await index.txBlock(fromDisplayHex(last));
        // A mempool or unknown txid has no block: the history holds no confirmed transaction after it.
        const page =
          block && (await historyOf(deps, res, named, { phase: 'confirmed', txNum: block.txNum + 1 }, CHAIN_TXS_PER_PAGE + 1, false));
        txids = page !== null && page.items[0]?.txNum === block!.txNum ? page.items.slice(1).map((t) => t.txid) : [];
      } else {
        txids = (await historyOf(deps, res, named, null, CHAIN_TXS_PER_PAGE, false)).items.map((t) => t.txid);
      }
      sendEsploraJson(res, await txsValue(req, res, named.route, index, txids, charge));
    };
    router.get(`${base}/txs/chain`, chainPage);
    router.get(`${base}/txs/chain/:last`, chainPage);

    router.get(`${base}/txs/mempool`, async (req, res) => {
      const named = scriptNamed(deps, req, kind);
      const { index } = await answeringIndex(deps, named.route, res, true);
      const page = await historyOf(deps, res, named, null, MAX_MEMPOOL_TXS, true);
      sendEsploraJson(
        res,
        await txsValue(
          req,
          res,
          named.route,
          index,
          page.unconfirmed.map((t) => t.txid),
          charge,
        ),
      );
    });

    router.get(`${base}/utxo`, async (req, res) => {
      const named = scriptNamed(deps, req, kind);
      const { chain, handle } = named.route;
      const { index } = await answeringIndex(deps, named.route, res, false);
      const views = await readIndex(chain, handle, (s) => s.keyViews([named.key], false));
      const count = views?.items[0]?.utxoCount ?? 0;
      if (count > UTXOS_LIMIT) throw new EsploraError(400, 'Too many history entries');
      await charge(req, res, Math.max(0, Math.ceil(count / UTXOS_PER_TOKEN) - 1));
      const read = await readIndex(chain, handle, async (s) =>
        s.utxoPage ? s.utxoPage({ keys: [named.key], after: null, limit: UTXO_ROWS, mempool: true, check: () => {} }) : null,
      );
      const listing = read?.listing;
      if (listing === undefined || listing.kind === 'off') throw listingOff(chain);
      if (listing.kind === 'empty') return sendEsploraJson(res, []);
      if (listing.next !== null) throw new EsploraError(400, 'Too many history entries');
      const placeOf = placesOf(index);
      const rows = listing.rows.filter((r) => r.spentInMempool !== true);
      const values = await Promise.all(
        rows.map(async (r) => {
          const { txid, vout } = decodeOutpoint(r.outpoint);
          const place = r.height === null ? null : await placeOf(r.height);
          return { txid: toDisplayHex(txid), vout, status: statusValue(place), value: Number(r.valueSats) };
        }),
      );
      sendEsploraJson(res, values);
    });
  }
}
