/**
 * What every integration suite sets up around one chain's node the same way: a temporary data
 * directory, the real indexer on it (restarted as a test needs), the real API over the same directory,
 * and whether the index has reached the node's tip. Suites bring their node (a real litecoind, or the
 * BTC stand-in over a chain they build) and their own assertions.
 */
import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ChainCode } from '../src/chain/params.js';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { startApi, type ApiProcess } from './api-process.js';
import { indexedTip } from './index-check.js';
import { killMidCatchUp, makeDataDir, startIndexer, waitFor, type IndexerEnv, type IndexerProcess } from './indexer-process.js';
import { startLitecoind, type Litecoind, type StartOptions as LitecoindOptions } from './litecoind.js';

export interface WorldOptions {
  chain: ChainCode;
  /** The node's RPC URL with credentials. */
  rpcUrl: string;
  /** The node's best block hash now. */
  tipHash: () => string | Promise<string>;
  /**
   * The data directory's name inside the new temporary directory; by default the temporary directory
   * itself is the data directory. A name leaves the data directory for the indexer or the keys CLI to create.
   */
  dataDirName?: string;
  /** Environment for every indexer and API of this world (e.g. ADDRSUM_LTC_INDEX_URL). */
  env?: Record<string, string>;
  /** Where the index stands, when it is not this world's SQLite file (an index in PostgreSQL). */
  indexedTip?: () => Promise<IndexedTip | null>;
}

export interface IndexedTip {
  readonly height: number;
  /** Display hex. */
  readonly hash: string;
}

export type IndexerStart = Omit<IndexerEnv, 'chain' | 'dataDir' | 'rpcUrl'> & { rpcUrl?: string };

export class IndexerWorld {
  indexer: IndexerProcess | undefined;
  api: ApiProcess | undefined;
  readonly dbPath: string;
  private apiConfigs = 0;

  private constructor(
    readonly chain: ChainCode,
    readonly dataDir: string,
    readonly rpcUrl: string,
    private readonly tipHash: () => string | Promise<string>,
    /** What close() removes. */
    private readonly tempDir: string,
    private readonly env: Record<string, string>,
    indexed: (() => Promise<IndexedTip | null>) | undefined,
  ) {
    this.dbPath = chainDbPath(dataDir, chain);
    this.indexedTip = indexed ?? (() => Promise.resolve(indexedTip(this.dbPath)));
  }

  /** Where the index stands now (null: nothing indexed, or not created yet). */
  readonly indexedTip: () => Promise<IndexedTip | null>;

  static async create(opts: WorldOptions): Promise<IndexerWorld> {
    const tempDir = await makeDataDir();
    const dataDir = opts.dataDirName === undefined ? tempDir : path.join(tempDir, opts.dataDirName);
    return new IndexerWorld(opts.chain, dataDir, opts.rpcUrl, opts.tipHash, tempDir, opts.env ?? {}, opts.indexedTip);
  }

  /** Whether the index's tip is the node's. */
  readonly atTip = async (): Promise<boolean> => (await this.indexedTip())?.hash === (await this.tipHash());

  /** Starts an indexer on this world's directory; a running one is stopped first (SIGTERM). */
  async startIndexer(opts: IndexerStart = {}): Promise<IndexerProcess> {
    await this.stopIndexer();
    this.indexer = await startIndexer({
      ...opts,
      env: { ...this.env, ...opts.env },
      chain: this.chain,
      dataDir: this.dataDir,
      rpcUrl: opts.rpcUrl ?? this.rpcUrl,
    });
    return this.indexer;
  }

  /** Stops the running indexer, if any; resolves with its exit code. */
  async stopIndexer(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string | undefined> {
    const running = this.indexer;
    if (!running) return undefined;
    this.indexer = undefined;
    running.kill(signal);
    return running.exited;
  }

  /** Waits until the running indexer has reached the node's tip. */
  waitForTip(what = 'initial catch-up', timeoutMs = 120_000): Promise<void> {
    return waitFor(what, this.atTip, timeoutMs, this.indexer);
  }

  /**
   * Starts indexers that commit every block and SIGKILLs each at a random moment of its catch-up, until
   * `times` kills or one reaches the tip first; `afterKill` runs after each kill. Returns the kills.
   */
  async killDuringCatchUp(times: number, afterKill: () => void = () => undefined, env: Record<string, string> = {}): Promise<number> {
    let kills = 0;
    while (kills < times) {
      const indexer = await this.startIndexer({ toml: 'prefetch = 1\ncommitIntervalMs = 0', env });
      if (!(await killMidCatchUp(indexer, async () => (await this.indexedTip())?.height ?? null, this.atTip))) break;
      this.indexer = undefined;
      kills++;
      afterKill();
    }
    return kills;
  }

  /** A new private-tier API key in this world's keys.sqlite. */
  createKey(label: string): string {
    const keys = KeyStore.open(path.join(this.dataDir, 'keys.sqlite'));
    try {
      return keys.create('private', label).key;
    } finally {
      keys.close();
    }
  }

  /** Starts an API over this world's directory serving this chain on regtest, with `toml` as its config file. */
  async startApi(toml: string, env: Record<string, string> = {}): Promise<ApiProcess> {
    const config = path.join(this.tempDir, `api-${++this.apiConfigs}.toml`);
    await writeFile(config, toml);
    const api = await startApi({
      ADDRSUM_CONFIG: config,
      ADDRSUM_DATA_DIR: this.dataDir,
      [`ADDRSUM_${this.chain}_NETWORK`]: 'regtest',
      [`ADDRSUM_${this.chain}_RPC_URL`]: this.rpcUrl,
      ...this.env,
      ...env,
    });
    this.api ??= api;
    return api;
  }

  /** Stops the API and the indexer (SIGKILL: teardown, not a test) and removes the directory. */
  async close(): Promise<void> {
    await this.api?.stop();
    await this.stopIndexer('SIGKILL');
    await rm(this.tempDir, { recursive: true, force: true });
  }
}

/** A world around a fresh `litecoind -regtest`; close() stops the node too. */
export class LitecoindWorld {
  private constructor(
    readonly node: Litecoind,
    readonly world: IndexerWorld,
  ) {}

  static async start(
    opts: { litecoind?: LitecoindOptions; dataDirName?: string } & Pick<WorldOptions, 'env' | 'indexedTip'> = {},
  ): Promise<LitecoindWorld> {
    const node = await startLitecoind(opts.litecoind);
    try {
      const world = await IndexerWorld.create({
        chain: 'LTC',
        rpcUrl: node.rpcUrl,
        tipHash: () => node.cli<string>('getbestblockhash'),
        ...(opts.dataDirName !== undefined && { dataDirName: opts.dataDirName }),
        ...(opts.env !== undefined && { env: opts.env }),
        ...(opts.indexedTip !== undefined && { indexedTip: opts.indexedTip }),
      });
      return new LitecoindWorld(node, world);
    } catch (err) {
      await node.stop();
      throw err;
    }
  }

  nodeTip(): Promise<string> {
    return this.node.cli<string>('getbestblockhash');
  }

  /** Mines one block paying `to` and waits until the indexer has it. */
  async mineBlock(to: string): Promise<void> {
    await this.node.cli('generatetoaddress', 1, to);
    await this.world.waitForTip('the mined block', 60_000);
  }

  async close(): Promise<void> {
    await this.world.close();
    await this.node.stop();
  }
}
