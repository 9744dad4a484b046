/**
 * Everything createApp needs from outside, as interfaces: wiring.ts wires the real SQLite readers and
 * key store, tests pass fakes. Nothing here opens a file or a socket.
 */
import type { ChainCode } from '../chain/params.js';
import type { RequestLogMode } from '../config.js';
import type { KeyVerifier } from '../store/keys/key-verifier.js';
import type { Tier } from '../store/keys/tier.js';
import type { Logger } from '../logger.js';
import type { DerivationCache } from './derivation-cache.js';
import type { ApiMetrics } from './metrics.js';
import type { RateLimiter, TierLimits } from '../serving/token-bucket.js';
import type { MempoolDelta, ScriptSummary, ScriptView, ScriptViews } from '../store/index-model.js';
import type { ChainHandle } from '../serving/chain-handle.js';
import type { Freshness } from '../serving/chain-state.js';
import type { Clock } from '../serving/clock.js';
import type { NodeViews } from '../serving/node-views.js';

export type { TierLimits };
/** The index's answers in the store's shapes (declared once, in src/store/index-model.ts). */
export type { MempoolDelta, ScriptView, ScriptViews };
/** One address's aggregate with the index status it is true at (one read: the answer and its checks agree). */
export type AddressSummary = ScriptSummary;

/** The `api` section of the configuration, as far as the app reads it. */
export interface ApiSettings extends Freshness {
  readonly allowAnonymous: boolean;
  /** The Esplora dialect is served (src/api/esplora/); absent = off. */
  readonly esplora?: boolean;
  /** The Blockbook dialect is served (src/api/blockbook/); absent = off. */
  readonly blockbook?: boolean;
  /** Transactions sent to the HTTP dialects are relayed to the node (api.broadcast); absent = off. */
  readonly broadcast?: boolean;
  readonly syncLagBlocks: number;
  readonly trustProxyHops: number;
  /** Browser origins allowed by CORS (middleware/cors.ts); none when absent. */
  readonly corsOrigins?: readonly string[];
  /** Most addresses in one batch request (default 100). */
  readonly batchMaxAddresses?: number;
  /** Most indices per branch of one xpub request (default 10,000). */
  readonly xpubMaxRange?: number;
  readonly tiers: Readonly<Record<Tier, TierLimits>>;
  /** Bucket per client address (IPv6: per /64) for requests with a missing or wrong key; a valid key never takes from it. */
  readonly invalidKeys?: TierLimits;
  /** Client addresses or CIDR ranges allowed to read /metrics (absent = anyone). */
  readonly metricsAllow?: readonly string[] | undefined;
  /** Which answers get a request log line (middleware/request-context.ts; absent = all). */
  readonly requestLog?: RequestLogMode;
}

export interface AppDeps {
  /** Chains by code; a chain missing from the map answers CHAIN_UNAVAILABLE. */
  readonly chains: ReadonlyMap<ChainCode, ChainHandle>;
  /** Per chain, its transactions and blocks read from its node; a chain missing here has no node (chains.<C>.rpcUrl). */
  readonly nodeViews?: ReadonlyMap<ChainCode, NodeViews>;
  readonly keys: KeyVerifier;
  readonly settings: ApiSettings;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Created per app when absent (a private registry, never prom-client's global one). */
  readonly metrics?: ApiMetrics;
  /** An in-process token bucket per app when absent. */
  readonly limiter?: RateLimiter;
  /** Derived scripts of recent wallets (xpub routes); one per app when absent. */
  readonly derivations?: DerivationCache;
  /**
   * Why keyed requests cannot be answered now, whatever the chains' state (the keys database cannot be
   * read; limits are fail-closed and their store is unreachable); empty when they can. /ready is 503 then.
   */
  readonly keyedProblems?: () => readonly string[];
  /**
   * One of several workers: the whole cluster's /metrics text (cluster-metrics.ts), or null when the
   * supervisor did not answer. Absent: /metrics is this app's registry.
   */
  readonly clusterMetrics?: () => Promise<string | null>;
}
