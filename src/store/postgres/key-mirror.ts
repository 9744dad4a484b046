/**
 * The API's key check when keys live in PostgreSQL (ADDRSUM_KEYS_URL): the keys held in memory
 * (../keys/key-table.ts), reloaded whenever `addrsum_keys.state.revision` moves, which every create and
 * revoke does in its own transaction (key-store.ts). The revision is read every POLL_MS, so a key made
 * or revoked on any machine applies here within POLL_MS plus one query.
 *
 * A database that cannot be read is not a reason to go on trusting what was loaded: past STALE_MS
 * without a successful read the mirror is `unreadable` (the API answers 503 KEYS_UNAVAILABLE, never 401),
 * and it recovers by itself at the next read that succeeds. Before the first read it is unreadable too.
 * A schema nobody created yet holds no keys (and is readable).
 */
import { isWellFormedKey } from '../keys/key-format.js';
import { KeyTable, type KeyRow } from '../keys/key-table.js';
import type { KeyCheck, KeyVerifier } from '../keys/key-verifier.js';
import { KEYS_SCHEMA, schemaVersionProblem } from './key-store.js';
import { isMissingSchema, openPool, type Pool } from './pg-pool.js';

export const POLL_MS = 1000;
/** Three polls: a revocation is refused within this, even when this API cannot read the database. */
export const STALE_MS = 3000;

export interface KeyMirrorEvents {
  /** A read failed (once per outage, not per poll). */
  onError?(err: unknown): void;
  /** Keys were (re)loaded: how many, and why. */
  onLoad?(count: number, why: 'opened' | 'changed' | 'recovered'): void;
}

interface StateRow {
  schema_version: number;
  revision: string;
}

export class PgKeyMirror implements KeyVerifier {
  private keys = KeyTable.EMPTY;
  /** The revision loaded; null before the first load, or while the schema does not exist. */
  private revision: string | null = null;
  private lastRead = -Infinity;
  private failing = false;
  private polling: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    private readonly events: KeyMirrorEvents = {},
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
    void this.poll();
  }

  static open(url: string, events?: KeyMirrorEvents): PgKeyMirror {
    return new PgKeyMirror(openPool(url, { max: 1, name: 'addrsum-api keys', onIdleError: (err) => events?.onError?.(err) }), events);
  }

  verify(presented: string): KeyCheck {
    if (!isWellFormedKey(presented)) return { ok: false, reason: 'malformed' };
    if (this.unreadable) return { ok: false, reason: 'unknown' };
    return this.keys.check(presented);
  }

  /** No successful read for STALE_MS (or none yet): every key counts as unknown, and the API says KEYS_UNAVAILABLE. */
  get unreadable(): boolean {
    return this.now() - this.lastRead > STALE_MS;
  }

  get size(): number {
    return this.keys.size;
  }

  /** Reads now (tests and start-up wait on it); one read at a time. */
  poll(): Promise<void> {
    this.polling ??= this.read().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await this.pool.end();
  }

  private async read(): Promise<void> {
    const wasFailing = this.failing;
    try {
      const state = (await this.pool.query<StateRow>(`SELECT schema_version, revision::text AS revision FROM ${KEYS_SCHEMA}.state`))
        .rows[0];
      const problem = state ? schemaVersionProblem(state.schema_version) : null;
      if (problem) throw new Error(problem);
      if (!state) this.loaded(KeyTable.EMPTY, null);
      else if (state.revision !== this.revision) await this.load(wasFailing);
      else {
        this.loaded(this.keys, this.revision);
        if (wasFailing) this.events.onLoad?.(this.keys.size, 'recovered');
      }
    } catch (err) {
      if (isMissingSchema(err)) return this.loaded(KeyTable.EMPTY, null);
      if (!this.failing) this.events.onError?.(err);
      this.failing = true;
    }
  }

  private async load(wasFailing: boolean): Promise<void> {
    // Rows and revision from one statement: one snapshot, so a commit between them cannot leave rows
    // older than the revision recorded (that change would never be loaded).
    const { rows } = await this.pool.query<KeyRow & { revision: string }>(
      `SELECT s.revision::text AS revision, k.id, k.digest, k.tier, k.revoked_at
         FROM ${KEYS_SCHEMA}.state s LEFT JOIN ${KEYS_SCHEMA}.api_keys k ON true`,
    );
    const keys = new KeyTable(
      rows.filter((r) => r.id !== null),
      `${KEYS_SCHEMA}.api_keys`,
    );
    const why = wasFailing ? 'recovered' : this.revision === null ? 'opened' : 'changed';
    this.loaded(keys, rows[0]?.revision ?? null);
    this.events.onLoad?.(keys.size, why);
  }

  private loaded(keys: KeyTable, revision: string | null): void {
    this.keys = keys;
    this.revision = revision;
    this.lastRead = this.now();
    this.failing = false;
  }
}
