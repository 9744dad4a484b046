/**
 * The per-script paged routes (…/address/{address}/X and …/scripthash/{hash}/X: the UTXO listing, the
 * history), mounted one way: GET/HEAD with chain → key → the page's price → answer; other methods 405.
 * The price is one token per `perToken` items asked for, at least one. And the script such a route names.
 */
import type { Express, Request, Response } from 'express';
import { addressToScript, scriptToAddress } from '../../chain/address.js';
import { scriptKey } from '../../store/script-key.js';
import type { ChainCode } from '../../chain/params.js';
import { chainCheck, parseChain } from '../chain-param.js';
import { unavailable } from '../index-read.js';
import type { AppDeps } from '../deps.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import { ServingError } from '../../serving/errors.js';
import { methodNotAllowed } from '../errors.js';
import type { ApiMetrics } from '../metrics.js';
import { keyCheck } from '../middleware/auth.js';
import { limitCheck } from '../middleware/rate-limit.js';
import { inSequence } from '../middleware/step.js';
import { requestedLimit, type LimitBounds } from '../page-query.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import { parseScripthash } from '../../serving/scripthash-param.js';

export interface PagedRoutes {
  readonly address: string;
  readonly scripthash: string;
  readonly bounds: LimitBounds;
  readonly perToken: number;
  /** What one token buys, for the 429 message: `outputs`, `transactions`. */
  readonly items: string;
  readonly answer: (deps: AppDeps, req: Request, res: Response, kind: 'address' | 'scripthash') => Promise<void>;
}

export function mountPagedRoutes(app: Express, deps: AppDeps, limiter: RateLimiter, metrics: ApiMetrics, routes: PagedRoutes): void {
  const price = limitCheck(
    limiter,
    deps.settings,
    metrics,
    (req) => Math.max(1, Math.ceil(requestedLimit(req, routes.bounds) / routes.perToken)),
    (n) => `a page of ${n} tokens (one per ${routes.perToken} ${routes.items})`,
  );
  for (const kind of ['address', 'scripthash'] as const) {
    app
      .route(routes[kind])
      .get(
        inSequence(chainCheck, keyCheck(deps.keys, deps.settings, limiter, metrics), price, (req: Request, res: Response) =>
          routes.answer(deps, req, res, kind),
        ),
      )
      .all((req: Request) => {
        throw methodNotAllowed(req.method);
      });
  }
}

/**
 * The chain and the script a per-script route names, by address (its canonical spelling answered back)
 * or by Electrum scripthash; CHAIN_UNAVAILABLE for a chain this service does not serve, INVALID_ADDRESS
 * and friends, or INVALID_SCRIPTHASH, when it names none.
 */
export function scriptNamed(
  deps: AppDeps,
  req: Request,
  kind: 'address' | 'scripthash',
): { chain: ChainCode; handle: ChainHandle; key: Buffer; named: Record<string, string> } {
  const chain = parseChain(String(req.params.chain));
  const handle = deps.chains.get(chain);
  if (!handle) throw unavailable(chain, 'this service is not configured for it');
  if (kind === 'address') {
    const address = String(req.params.address);
    const decoded = addressToScript(handle.params, address);
    if (!decoded.ok) throw new ServingError(decoded.error.code, decoded.error.message);
    const named = { address: scriptToAddress(handle.params, decoded.script) ?? address };
    return { chain, handle, key: scriptKey(decoded.script), named };
  }
  const parsed = parseScripthash(String(req.params.hash));
  return { chain, handle, key: parsed.key, named: { scripthash: parsed.hash } };
}
