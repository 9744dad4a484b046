/**
 * Offline checks of a chain's history (`npm run verify`, while chains.<C>.history is on), against the
 * UTXO set it must agree with, in one snapshot and constant memory (both tables walked in key order):
 *   - for every script: received − sent = its balance and funded − spent = its UTXO count (a script
 *     with no `scripts` row holds 0 and 0);
 *   - its head's txCount = the entries of its head and chunks, their received and sent sum to the totals,
 *     transaction numbers strictly rise, and every sealed chunk's key is 1 + its newest number;
 *   - one history_blocks row per indexed block.
 */
import { decodeChunk, decodeHead, type HistoryEntry, type HistoryTotals } from '../history-chunk.js';
import type { Db } from './db.js';
import { HISTORY_KEY } from './history-store.js';

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
    const check = (key: Buffer, totals: HistoryTotals, entries: HistoryEntry[]): void => {
      const hex = key.toString('hex');
      while (!s.done && Buffer.compare(s.value.script_key, key) < 0) {
        note(`script ${s.value.script_key.toString('hex')} holds coins but has no history`);
        s = scripts.next();
      }
      const held = !s.done && s.value.script_key.equals(key) ? s.value : null;
      if (held) s = scripts.next();
      const balance = held?.balance ?? 0n;
      const count = Number(held?.utxo_count ?? 0n);
      if (totals.received - totals.sent !== balance)
        note(`script ${hex}: received ${totals.received} − sent ${totals.sent} is not its balance ${balance}`);
      if (totals.funded - totals.spent !== count)
        note(`script ${hex}: funded ${totals.funded} − spent ${totals.spent} outputs is not its UTXO count ${count}`);
      let received = 0n;
      let sent = 0n;
      for (const e of entries) {
        received += e.received;
        sent += e.sent;
      }
      if (entries.length !== totals.txCount) note(`script ${hex}: txCount ${totals.txCount} but ${entries.length} entries`);
      if (received !== totals.received || sent !== totals.sent) note(`script ${hex}: its entries do not sum to its totals`);
      for (let i = 1; i < entries.length; i++)
        if (entries[i]!.txNum <= entries[i - 1]!.txNum) {
          note(`script ${hex}: transaction numbers do not rise`);
          break;
        }
    };
    // Rows of one script come together: the head (chunk 0) first, then sealed chunks oldest first.
    let current: { key: Buffer; totals: HistoryTotals | null; entries: HistoryEntry[] } | null = null;
    const finish = (): void => {
      if (!current) return;
      if (current.totals) check(current.key, current.totals, current.entries);
      else note(`script ${current.key.toString('hex')} has history chunks but no head`);
    };
    let head: HistoryEntry[] = [];
    for (const row of db.prepare<[], HistoryRow>('SELECT script_key, chunk, data FROM history ORDER BY script_key, chunk').iterate()) {
      if (!current || !current.key.equals(row.script_key)) {
        if (current) current.entries.push(...head);
        finish();
        current = { key: row.script_key, totals: null, entries: [] };
        head = [];
      }
      if (row.chunk === 0) {
        const decoded = decodeHead(row.data);
        current.totals = decoded.totals;
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
    const blocks = db.prepare('SELECT COUNT(*) FROM blocks').pluck().get() as number;
    const historyBlocks = db.prepare('SELECT COUNT(*) FROM history_blocks').pluck().get() as number;
    if (blocks !== historyBlocks) note(`history covers ${historyBlocks} blocks of the ${blocks} indexed`);
    if (more > 0) problems.push(`… and ${more} more history problems`);
    return problems;
  })();
}
