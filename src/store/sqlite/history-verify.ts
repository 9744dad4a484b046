/**
 * Offline checks of a chain's history (`npm run verify`, while chains.<C>.history is on), against the
 * UTXO set it must agree with, in one snapshot and constant memory (both tables walked in key order):
 *   - for every script: received − sent = its balance and funded − spent = its UTXO count (a script
 *     with no `scripts` row holds 0 and 0);
 *   - its head's sealed totals are what its sealed chunks hold, transaction numbers strictly rise, and
 *     every sealed chunk's key is 1 + its newest number;
 *   - one history_blocks row per indexed block;
 *   - one history_txid_index row per numbered transaction (txid-index.ts), counted.
 */
import { NO_HISTORY, decodeChunk, decodeHead, historyKey, plus, type HistoryEntry, type HistoryTotals } from '../history-chunk.js';

const big = (_: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);
import type { Db } from './db.js';
import { HISTORY_KEY, NEXT_TX_KEY } from './history-store.js';

/** Problems reported in full; beyond, only counted. */
const SHOWN = 20;

interface ScriptRow {
  script_key: Buffer;
  balance: bigint;
  utxo_count: bigint;
}

interface HistoryRow {
  script_key: Buffer;
  chunk: number;
  data: Buffer;
}

export function verifyHistory(db: Db): string[] {
  return db.transaction(() => {
    if (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(HISTORY_KEY) !== 1) return [];
    const problems: string[] = [];
    let more = 0;
    const note = (text: string): void => {
      if (problems.length < SHOWN) problems.push(text);
      else more++;
    };
    const scripts = db
      .prepare<[], ScriptRow>('SELECT script_key, balance, utxo_count FROM scripts ORDER BY script_key')
      .safeIntegers(true)
      .iterate();
    let s = scripts.next();
    // History rows are keyed by the scripts' history keys (a prefix: the same order); scripts sharing one
    // (history-chunk.ts) share a history, which holds their coins together.
    const check = (key: Buffer, totals: HistoryTotals, entries: HistoryEntry[]): void => {
      const hex = key.toString('hex');
      while (!s.done && Buffer.compare(historyKey(s.value.script_key), key) < 0) {
        note(`script ${s.value.script_key.toString('hex')} holds coins but has no history`);
        s = scripts.next();
      }
      let balance = 0n;
      let count = 0;
      for (; !s.done && historyKey(s.value.script_key).equals(key); s = scripts.next()) {
        balance += s.value.balance;
        count += Number(s.value.utxo_count);
      }
      if (totals.received - totals.sent !== balance)
        note(`script ${hex}: received ${totals.received} − sent ${totals.sent} is not its balance ${balance}`);
      if (totals.funded - totals.spent !== count)
        note(`script ${hex}: funded ${totals.funded} − spent ${totals.spent} outputs is not its UTXO count ${count}`);
      for (let i = 1; i < entries.length; i++)
        if (entries[i]!.txNum <= entries[i - 1]!.txNum) {
          note(`script ${hex}: transaction numbers do not rise`);
          break;
        }
    };
    // Rows of one script come together: the head (chunk 0) first, then sealed chunks oldest first.
    let current: { key: Buffer; totals: HistoryTotals | null; sealed: HistoryTotals; entries: HistoryEntry[] } | null = null;
    const finish = (): void => {
      if (!current) return;
      if (!current.totals) return note(`script ${current.key.toString('hex')} has history chunks but no head`);
      // The head's sealed totals must be what its chunks hold; the rest of the totals are its own entries.
      const head = current.entries.length - (current.totals.txCount - current.sealed.txCount);
      const sealed = plus(NO_HISTORY, current.entries.slice(0, head));
      if (JSON.stringify(sealed, big) !== JSON.stringify(current.sealed, big))
        note(`script ${current.key.toString('hex')}: its head's sealed totals are not what its chunks hold`);
      check(current.key, plus(sealed, current.entries.slice(head)), current.entries);
    };
    let head: HistoryEntry[] = [];
    for (const row of db.prepare<[], HistoryRow>('SELECT script_key, chunk, data FROM history ORDER BY script_key, chunk').iterate()) {
      if (!current || !current.key.equals(row.script_key)) {
        if (current) current.entries.push(...head);
        finish();
        current = { key: row.script_key, totals: null, sealed: NO_HISTORY, entries: [] };
        head = [];
      }
      if (row.chunk === 0) {
        const decoded = decodeHead(row.data);
        current.totals = plus(decoded.sealed, decoded.entries);
        current.sealed = decoded.sealed;
        head = [...decoded.entries];
      } else {
        const entries = decodeChunk(row.data);
        const newest = entries[entries.length - 1];
        if (!newest || newest.txNum + 1 !== row.chunk)
          note(`script ${row.script_key.toString('hex')}: chunk ${row.chunk} does not end at ${row.chunk - 1}`);
        current.entries.push(...entries);
      }
    }
    if (current) current.entries.push(...head);
    finish();
    for (; !s.done; s = scripts.next()) note(`script ${s.value.script_key.toString('hex')} holds coins but has no history`);
    // Every block from genesis, also below a snapshot's base (where the index keeps no blocks row).
    const blocks = Number(db.prepare("SELECT value FROM meta WHERE key = 'tip_height'").pluck().get() ?? -1) + 1;
    const historyBlocks = db.prepare('SELECT COUNT(*) FROM history_blocks').pluck().get() as number;
    if (blocks !== historyBlocks) note(`history covers ${historyBlocks} blocks of the ${blocks} from genesis to the tip`);
    const numbered = Number(db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(NEXT_TX_KEY) ?? 0);
    const byTxid = db.prepare('SELECT COUNT(*) FROM history_txid_index').pluck().get() as number;
    if (numbered !== byTxid) note(`history numbers ${numbered} transactions but finds ${byTxid} by txid (history_txid_index)`);
    if (more > 0) problems.push(`… and ${more} more history problems`);
    return problems;
  })();
}
