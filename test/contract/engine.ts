/**
 * What the contract suite (engine-contract.ts) needs of an index engine: fresh empty indexes, and the
 * ports opened on them, in this process or in a child process (the kill, snapshot and bootstrap cases). Nothing
 * else of the engine is visible to the cases, so a second engine passes the same suite by writing one
 * of these.
 */
import type { ChainCode, NetworkName } from '../../src/chain/params.js';
import type { IndexReader, IndexVerifier, IndexWriter } from '../../src/store/ports.js';

export interface WriterOptions {
  readonly chain: ChainCode;
  readonly network: NetworkName;
  /** Blocks whose undo is kept: the deepest reorg the writer must follow. */
  readonly undoDepth: number;
}

/** One index. Opening a writer again after a writer was killed must resume at its last commit. */
export interface EngineIndex {
  openWriter(opts: WriterOptions): Promise<IndexWriter>;
  openReader(): Promise<IndexReader>;
  openVerifier(): Promise<IndexVerifier>;
  /** How a child process reaches this index: writer-child.ts passes `location` to the module's openWriter. */
  readonly child: ChildWriterSpec;
}

export interface ChildWriterSpec {
  /** Absolute path of a module exporting `openWriter` (ChildEngineModule), loaded with tsx. */
  readonly module: string;
  /** Names the index for that module: a file path, a connection string, … */
  readonly location: string;
}

/** The shape of ChildWriterSpec.module. */
export interface ChildEngineModule {
  openWriter(location: string, opts: WriterOptions): Promise<IndexWriter>;
}

/** What an engine offers beyond the core (blocks, UTXOs, aggregates, undo, the change feed); a case needing more is not run. */
export interface EngineFeatures {
  readonly history: boolean;
  readonly mempool: boolean;
  readonly utxoList: boolean;
  /** Bootstrapping from a UTXO snapshot (loadSnapshot: cases/bootstrap.ts). */
  readonly snapshot: boolean;
}

export const ALL_FEATURES: EngineFeatures = { history: true, mempool: true, utxoList: true, snapshot: true };

export interface EngineFactory {
  /** Absent: every feature (ALL_FEATURES). */
  readonly features?: EngineFeatures;
  /** A fresh index that exists (readers may open it) and holds nothing. */
  create(opts: Pick<WriterOptions, 'chain' | 'network'>): Promise<EngineIndex>;
  /** Removes every index `create` made (after the suite; writers and readers are closed by then). */
  dispose(): Promise<void>;
}
