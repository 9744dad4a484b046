/**
 * One served chain whose index is a database server (PostgreSQL, `chains.<C>.indexUrl`: the primary or a
 * streaming standby), not a file: what src/api-process/wiring.ts's servedChain is for a SQLite file. wiring.ts, which
 * alone knows the engines, gives it the engine's opener and failure wording.
 *
 * The reader is opened in the background and again every OPEN_RETRY_MS until it opens, so an API started
 * before its database, or before the indexer created the chain's schema, answers 503 CHAIN_UNAVAILABLE
 * with the reason meanwhile and serves once it can, without a restart. Once open it stays open: its pool
 * reconnects by itself, and a read that fails because the database is unreachable, overloaded or a
 * standby cancelled it answers 503 with the reason (`readFailure`), never a 500, never a dead process.
 */
import type { ChainCode, ChainParams } from '../chain/params.js';
import type { Logger } from '../logger.js';
import type { IndexReader } from '../store/ports.js';
import type { ChainHandle, SourceState } from './chain-handle.js';

export const OPEN_RETRY_MS = 1000;

export interface RemoteIndex {
  /** Opens a reader; rejects with a StoreError (NOT_INITIALIZED, CHAIN_MISMATCH, …) or a connection failure. */
  open(): Promise<IndexReader>;
  /** Why a read failed when the database is at fault, worded for an answer; null: a bug (500). */
  readFailure(err: unknown): string | null;
  /** The location as it may be logged (no password). */
  readonly where: string;
}

export interface ServedRemoteChain {
  readonly value: ChainHandle;
  close(): Promise<void>;
}

export function remoteChain(index: RemoteIndex, chain: ChainCode, params: ChainParams, log: Logger): ServedRemoteChain {
  const { where } = index;
  let held: { ok: true; source: IndexReader } | null = null;
  let reason = 'its index database is being opened';
  let lastLogged: string | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const open = async (): Promise<void> => {
    try {
      const reader = await index.open();
      if (closed) return void (await reader.close());
      held = { ok: true, source: reader };
      log.info({ chain, index: where }, 'chain index opened');
    } catch (err) {
      if (closed) return;
      reason = openFailure(err, index);
      // Once per distinct reason: a database down for an hour is one line, not 3,600.
      if (reason !== lastLogged) log.warn({ chain, index: where, err: reason }, 'chain index not available');
      lastLogged = reason;
      timer = setTimeout(() => void open(), OPEN_RETRY_MS);
      timer.unref();
    }
  };
  void open();

  const handle: ChainHandle = {
    params,
    configured: true,
    acquire: (): SourceState => held ?? { ok: false, reason },
    failed: (err) => {
      const why = index.readFailure(err);
      return why === null ? null : { reason: why, damaged: false };
    },
  };
  return {
    value: handle,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await held?.source.close();
    },
  };
}

/** Why the reader did not open, worded for an answer: the schema not made yet, another chain's, or no database. */
function openFailure(err: unknown, index: RemoteIndex): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'NOT_INITIALIZED') return 'its index does not exist yet (is the indexer running?)';
  if (code === 'CHAIN_MISMATCH' || code === 'SCHEMA_TOO_NEW' || code === 'SCHEMA_TOO_OLD') return (err as Error).message;
  return index.readFailure(err) ?? `its index database cannot be opened: ${err instanceof Error ? err.message : String(err)}`;
}
