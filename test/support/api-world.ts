/**
 * Builders for API tests: an app over fake chain indexes (balances by script hex, a tip, a node height),
 * a real key store in a temp directory, a hand-moved clock, captured log lines, and a caller that checks
 * every response against the app's own /openapi.json.
 */
import type { ChainNode } from '../../src/serving/chain-node.js';
import { nodeViews } from '../../src/serving/node-views.js';
import type { HeaderRange } from '../../src/store/header-chain.js';
import type { TxBlock } from '../../src/store/tx-block.js';
import type { OutputSpends, OutspendsRead } from '../../src/store/spend-key.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/api/app.js';
import type { AddressSummary, AppDeps, ApiSettings, MempoolDelta, ScriptViews } from '../../src/api/deps.js';
import type { ChainHandle, IndexStatus, SummarySource } from '../../src/serving/chain-handle.js';
import { chainParams, type ChainCode, type NetworkName } from '../../src/chain/params.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';
import type { Tier } from '../../src/store/keys/tier.js';
import { createApiMetrics, type ApiMetrics } from '../../src/api/metrics.js';
import { DerivationCache } from '../../src/api/derivation-cache.js';
import { LiveHub } from '../../src/api/live/hub.js';
import { DEFAULT_LIVE_LIMITS } from '../../src/api/live/limits.js';
import { afterEach } from 'vitest';
import { OpenApiValidator } from './openapi-validate.js';
import type {
  HistoryBuildProgress,
  HistoryPage,
  HistoryPageRequest,
  UtxoListing,
  UtxoPageRequest,
  ViewOptions,
  WalletHistoryPage,
  WalletHistoryRequest,
} from '../../src/store/index-model.js';

export class FakeIndex implements SummarySource {
  readonly balances = new Map<string, { balanceSats: bigint; utxoCount: number }>();
  readonly mempool = new Map<string, MempoolDelta>();
  tipHeight = 100;
  tipHash = 'ab'.repeat(32);
  nodeHeight: number | null = 100;
  nodeSeenAt: Date | null = new Date('2025-01-01T00:00:00Z');
  tipTime: Date | null = null;
  /** Thrown by every read (a damaged file). */
  failure: Error | null = null;
  /** Nothing indexed yet: every read answers null. */
  empty = false;
  lookups = 0;

  /** Amounts as tests write them (numbers, or bigints past 2^53); the index answers bigints. */
  set(scriptHex: string, balanceSats: number | bigint, utxoCount: number): void {
    this.balances.set(scriptHex, { balanceSats: BigInt(balanceSats), utxoCount });
  }

  async summary(script: Uint8Array): Promise<AddressSummary | null> {
    this.lookups += 1;
    const status = this.now();
    if (status === null) return null;
    const found = this.balances.get(Buffer.from(script).toString('hex')) ?? { balanceSats: 0n, utxoCount: 0 };
    return { ...status, ...found };
  }

  setMempool(scriptHex: string, delta: Omit<MempoolDelta, 'balanceSats'> & { balanceSats: number | bigint }): void {
    this.mempool.set(scriptHex, { ...delta, balanceSats: BigInt(delta.balanceSats) });
  }

  async views(scripts: readonly Uint8Array[], mempool: boolean): Promise<ScriptViews | null> {
    this.lookups += 1;
    const status = this.now();
    if (status === null) return null;
    const items = scripts.map((script) => {
      const hex = Buffer.from(script).toString('hex');
      const found = this.balances.get(hex) ?? { balanceSats: 0n, utxoCount: 0 };
      return mempool ? { ...found, unconfirmed: this.mempool.get(hex) ?? { balanceSats: 0n, utxoCount: 0, txCount: 0 } } : { ...found };
    });
    return { ...status, items };
  }

  /** A real index whose keyViews this fake answers (under the fake's status); null: the fake's own balances. */
  viewer: { keyViews(keys: readonly Uint8Array[], mempool: boolean, opts?: ViewOptions): ScriptViews | null } | null = null;

  /** views() by script key: the stored scripts whose key (first 16 bytes of their SHA-256) matches. */
  keyViews(keys: readonly Uint8Array[], mempool: boolean, opts?: ViewOptions): Promise<ScriptViews | null> {
    if (this.viewer) {
      const status = this.now();
      const real = this.viewer.keyViews(keys, mempool, opts);
      return Promise.resolve(status && real && { ...real, ...status });
    }
    const byKey = new Map(
      [...this.balances.keys(), ...this.mempool.keys()].map((hex) => [scriptKey(Buffer.from(hex, 'hex')).toString('hex'), hex]),
    );
    const scripts = keys.map((k) => Buffer.from(byKey.get(Buffer.from(k).toString('hex')) ?? 'ff'.repeat(40), 'hex'));
    return this.views(scripts, mempool);
  }

  /** A real index whose UTXO listing this fake serves (under the fake's status); null: the listing is off. */
  lister: { utxoPage(req: UtxoPageRequest): UtxoListing | null } | null = null;

  async utxoPage(req: UtxoPageRequest): Promise<UtxoListing | null> {
    const status = this.now();
    if (status === null) return null;
    const real = this.lister?.utxoPage(req);
    const tipHash = Buffer.from(this.tipHash, 'hex').reverse();
    return { ...status, tipTime: null, listing: real ? real.listing : { kind: 'off', tipHeight: this.tipHeight, tipHash } };
  }

  /** A real index whose history this fake serves (under the fake's status); null: history is off. */
  historian: {
    historyPage(req: HistoryPageRequest): HistoryPage | null;
    walletHistoryPage(req: WalletHistoryRequest): WalletHistoryPage | null;
  } | null = null;

  /** Set: history is being built, this far (the historian is not asked). */
  historyBuilding: HistoryBuildProgress | null = null;

  async historyPage(req: HistoryPageRequest): Promise<HistoryPage | null> {
    const status = this.now();
    if (status === null) return null;
    if (this.historyBuilding) return { ...status, tipTime: null, page: null, building: this.historyBuilding };
    return { ...status, tipTime: null, page: this.historian?.historyPage(req)?.page ?? null };
  }

  async walletHistoryPage(req: WalletHistoryRequest): Promise<WalletHistoryPage | null> {
    const status = this.now();
    if (status === null) return null;
    if (this.historyBuilding) return { ...status, tipTime: null, page: null, building: this.historyBuilding };
    return { ...status, tipTime: null, page: this.historian?.walletHistoryPage(req)?.page ?? null };
  }

  async status(): Promise<IndexStatus | null> {
    return this.now();
  }

  /** Which block holds a transaction, by txid (internal byte order, hex), for the transaction views. */
  readonly txBlocks = new Map<string, TxBlock>();
  /** The stored block headers, by height from 0 (the fake's tip is the last). */
  storedHeaders: Buffer[] = [];

  /** What spent an output, by `${txid hex (internal order)}:${vout}`; absent: in the UTXO set. */
  readonly spends = new Map<string, OutputSpends>();

  async outspends(txid: Buffer, outputs: number): Promise<OutspendsRead | null> {
    const status = this.now();
    if (status === null) return null;
    if (!status.historyState) return { tipHeight: status.tipHeight, spendsFrom: null, outputs: [] };
    const unspent: OutputSpends = { unspent: true, spenders: [], mempool: null };
    return {
      tipHeight: status.tipHeight,
      spendsFrom: 0,
      outputs: Array.from({ length: outputs }, (_, vout) => this.spends.get(`${txid.toString('hex')}:${vout}`) ?? unspent),
    };
  }

  async txBlock(txid: Buffer): Promise<TxBlock | null> {
    this.now();
    return this.txBlocks.get(txid.toString('hex')) ?? null;
  }

  async headers(from: number, count: number): Promise<HeaderRange | null> {
    const status = this.now();
    if (status === null) return null;
    return {
      tipHeight: status.tipHeight,
      tipHash: Buffer.from(status.tipHash, 'hex').reverse(),
      headersFrom: 0,
      headers: this.storedHeaders.slice(from, Math.min(from + count, status.tipHeight + 1)),
    };
  }

  /** The fake's status as every read sees it; throws `failure`. */
  private now(): IndexStatus | null {
    if (this.failure) throw this.failure;
    if (this.empty) return null;
    return {
      tipHeight: this.tipHeight,
      tipHash: this.tipHash,
      nodeHeight: this.nodeHeight,
      nodeSeenAt: this.nodeSeenAt,
      tipTime: this.tipTime,
      ...(this.historyBuilding
        ? { historyState: { state: 'building', builtHeight: this.historyBuilding.height } }
        : this.historian && { historyState: { state: 'on' } }),
    };
  }
}

export interface WorldOptions {
  allowAnonymous?: boolean;
  syncLagBlocks?: number;
  networks?: Partial<Record<ChainCode, NetworkName>>;
  /** Chains whose index database "does not exist yet". */
  missing?: ChainCode[];
  /** Chains this service is not configured for. */
  unconfigured?: ChainCode[];
  /** Use the wall clock instead of the hand-moved one. */
  realClock?: boolean;
  tiers?: ApiSettings['tiers'];
  batchMaxAddresses?: number;
  invalidKeys?: ApiSettings['invalidKeys'];
  staleAfterSeconds?: number;
  maxTipAgeSeconds?: number;
  corsOrigins?: readonly string[];
  xpubMaxRange?: number;
  requestLog?: ApiSettings['requestLog'];
  /** Mount the events stream route (api.live, default limits), as the API process always does. */
  live?: boolean;
  /** The chains' nodes, for the transaction and block views (none: NODE_NOT_CONFIGURED). */
  nodes?: Partial<Record<ChainCode, ChainNode>>;
  /** Serve the Esplora dialect (api.esplora). */
  esplora?: boolean;
}

export class FakeClock {
  t = 1_700_000_000_000;
  now(): number {
    return this.t;
  }
}

export interface World {
  app: Express;
  index: Record<ChainCode, FakeIndex>;
  missing: Set<ChainCode>;
  clock: FakeClock;
  metrics: ApiMetrics;
  logs: string[];
  /** The xpub routes' derivation cache (its `derivations` counts wallets derived). */
  derivations: DerivationCache;
  keyStore: KeyStore;
  keysFile: string;
  createKey(tier: Tier): { key: string; id: string };
  cleanup(): void;
}

export function buildWorld(options: WorldOptions = {}): World {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-api-'));
  const keysFile = path.join(dir, 'keys.sqlite');
  const keyStore = KeyStore.open(keysFile);
  const reader = new KeyCache(keysFile);
  const index: Record<ChainCode, FakeIndex> = { BTC: new FakeIndex(), LTC: new FakeIndex() };
  const missing = new Set(options.missing ?? []);
  const unconfigured = new Set(options.unconfigured ?? []);
  const chains = new Map<ChainCode, ChainHandle>();
  for (const chain of ['BTC', 'LTC'] as const) {
    const configured = !unconfigured.has(chain);
    chains.set(chain, {
      params: chainParams(chain, options.networks?.[chain] ?? 'mainnet'),
      configured,
      acquire: () => {
        if (!configured) return { ok: false, reason: 'this service is not configured for it' };
        if (missing.has(chain)) return { ok: false, reason: 'its index does not exist yet' };
        return { ok: true, source: index[chain] };
      },
      failed: (err) => (err instanceof Error && /damaged/.test(err.message) ? { reason: err.message, damaged: true } : null),
    });
  }
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const clock = new FakeClock();
  const metrics = createApiMetrics();
  const derivations = new DerivationCache();
  const deps: AppDeps = {
    chains,
    nodeViews: new Map(
      Object.entries(options.nodes ?? {}).map(([chain, node]) => [chain as ChainCode, nodeViews(chain as ChainCode, node)]),
    ),
    keys: reader,
    settings: {
      allowAnonymous: options.allowAnonymous ?? false,
      syncLagBlocks: options.syncLagBlocks ?? 3,
      trustProxyHops: 0,
      batchMaxAddresses: options.batchMaxAddresses ?? 100,
      tiers: options.tiers ?? { default: { rate: 5, burst: 10 }, private: { rate: 50, burst: 100 } },
      ...(options.invalidKeys && { invalidKeys: options.invalidKeys }),
      ...(options.staleAfterSeconds !== undefined && { staleAfterSeconds: options.staleAfterSeconds }),
      ...(options.maxTipAgeSeconds !== undefined && { maxTipAgeSeconds: options.maxTipAgeSeconds }),
      ...(options.corsOrigins && { corsOrigins: options.corsOrigins }),
      ...(options.xpubMaxRange !== undefined && { xpubMaxRange: options.xpubMaxRange }),
      ...(options.requestLog !== undefined && { requestLog: options.requestLog }),
      ...(options.esplora !== undefined && { esplora: options.esplora }),
    },
    logger: pino({ level: 'debug' }, sink),
    metrics,
    derivations,
    ...(options.realClock ? {} : { clock }),
  };
  const hub = options.live ? new LiveHub(deps, DEFAULT_LIVE_LIMITS, pino({ level: 'silent' })) : undefined;
  const app = createApp(deps, hub && { hub, limits: DEFAULT_LIVE_LIMITS });
  return {
    app,
    index,
    missing,
    clock,
    metrics,
    logs,
    derivations,
    keyStore,
    keysFile,
    createKey(tier) {
      const { key, record } = keyStore.create(tier, 'test');
      return { key, id: record.id };
    },
    cleanup() {
      hub?.close();
      reader.close();
      keyStore.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

/** Sends one request through supertest and fails on any mismatch with the app's /openapi.json. */
export class Caller {
  private validator: OpenApiValidator | null = null;
  readonly problems: string[] = [];
  seen = 0;

  constructor(private readonly app: Express) {}

  async send(method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
    if (!this.validator) {
      const doc = await request(this.app).get('/openapi.json');
      this.validator = new OpenApiValidator(doc.body as Record<string, unknown>);
    }
    const m = method.toLowerCase() as 'get';
    let req = request(this.app)[m](url);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    if (body !== undefined) req = req.send(body);
    const res = await req.buffer(true).parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (text += c));
      r.on('end', () => done(null, text));
    });
    const text = typeof res.body === 'string' ? res.body : '';
    const answer: Answer = { status: res.status, headers: res.headers as Answer['headers'], text, body: text ? safeJson(text) : undefined };
    this.seen += 1;
    this.problems.push(
      ...this.validator.check({ method, path: url.split('?')[0] ?? url, status: res.status, headers: answer.headers, text }),
    );
    return answer;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * For a test file: a function making a world and its caller, each world cleaned up after the test that
 * made it (registers the file's afterEach).
 */
export function worldPerTest(): (options?: WorldOptions) => { w: World; c: Caller } {
  const worlds: World[] = [];
  afterEach(() => {
    for (const w of worlds.splice(0)) w.cleanup();
  });
  return (options = {}) => {
    const w = buildWorld(options);
    worlds.push(w);
    return { w, c: new Caller(w.app) };
  };
}
