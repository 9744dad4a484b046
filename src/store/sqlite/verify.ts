/**
 * Offline checks of a chain database (`npm run verify`): recompute every aggregate from the UTXO table
 * and check the chain bookkeeping. Each function reads one snapshot (one read transaction), so it can
 * run on a copy opened read-only while the indexer keeps writing.
 *
 * The recomputation is a GROUP BY over all UTXOs sorted by script key (SQLite's sorter spills to temp
 * files on big tables), merge-joined in key order with `scripts` — constant memory in JS.
 *
 * Balances are compared exactly without a BigInt per row: SQLite hands a balance over as a number when it
 * is a safe integer and as its decimal text otherwise (exact()), and both spellings are canonical, so
 * equal values compare equal. Only the differences reported become bigints.
 */
import { SatsSum } from '../../chain/amount.js';
import { HeaderChecker } from '../header-verify.js';
import type { Db } from './db.js';
import type { AggregateReport, AggregateValues } from '../index-model.js';

interface KeyedRow {
  script_key: Buffer;
  /** A number when a safe integer, else decimal text. */
  balance: number | string;
  utxo_count: number;
}

/** `expr` as a number when JavaScript holds it exactly, else as its decimal text. */
const exact = (expr: string): string =>
  `CASE WHEN ${expr} BETWEEN -${Number.MAX_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER} THEN ${expr} ELSE CAST(${expr} AS TEXT) END`;

export function verifyAggregates(db: Db, opts: { maxDifferences?: number } = {}): AggregateReport {
  const max = opts.maxDifferences ?? 1000;
  const computedStmt = db.prepare<[], KeyedRow>(
    // SQLite computes the repeated SUM(value) once (identical aggregates share one accumulator).
    `SELECT script_key, ${exact('SUM(value)')} AS balance, COUNT(*) AS utxo_count FROM utxos GROUP BY script_key ORDER BY script_key`,
  );
  const storedStmt = db.prepare<[], KeyedRow>(
    `SELECT script_key, ${exact('balance')} AS balance, utxo_count FROM scripts ORDER BY script_key`,
  );
  return db.transaction(() => {
    const report: AggregateReport = { differences: [], differenceCount: 0, scripts: 0, utxos: 0, amount: 0n };
    const amount = new SatsSum();
    const note = (key: Buffer, stored: KeyedRow | null, computed: KeyedRow | null): void => {
      report.differenceCount++;
      if (report.differences.length < max) {
        report.differences.push({ scriptKey: key.toString('hex'), stored: values(stored), computed: values(computed) });
      }
    };
    const computedIt = computedStmt.iterate();
    const storedIt = storedStmt.iterate();
    let c = computedIt.next();
    let s = storedIt.next();
    while (!c.done || !s.done) {
      const cmp = c.done ? 1 : s.done ? -1 : Buffer.compare(c.value.script_key, s.value.script_key);
      if (cmp <= 0) {
        report.utxos += c.value!.utxo_count;
        amount.add(c.value!.balance);
      }
      if (cmp >= 0) report.scripts++;
      if (cmp < 0) {
        note(c.value!.script_key, null, c.value!);
        c = computedIt.next();
      } else if (cmp > 0) {
        note(s.value!.script_key, s.value!, null);
        s = storedIt.next();
      } else {
        if (c.value!.balance !== s.value!.balance || c.value!.utxo_count !== s.value!.utxo_count) {
          note(c.value!.script_key, s.value!, c.value!);
        }
        c = computedIt.next();
        s = storedIt.next();
      }
    }
    report.amount = amount.total;
    return report;
  })();
}

function values(row: KeyedRow | null): AggregateValues | null {
  return row && { balance: BigInt(row.balance), utxoCount: row.utxo_count };
}

/** The stored headers (../header-verify.ts), each with its block's hash where a blocks row exists. */
function verifyHeaders(db: Db, tipHeight: unknown, tipHash: unknown): string[] {
  const checker = new HeaderChecker();
  const rows = db.prepare<[], { height: number; header: Buffer; hash: Buffer | null }>(
    'SELECT h.height, h.header, b.hash FROM headers AS h LEFT JOIN blocks AS b ON b.height = h.height ORDER BY h.height',
  );
  for (const r of rows.iterate()) checker.add(r.height, r.header, r.hash);
  return checker.finish(typeof tipHeight === 'number' && tipHash instanceof Buffer ? { height: tipHeight, hash: tipHash } : null);
}

/**
 * Chain bookkeeping: blocks 0..tip (base_height..tip after a snapshot bootstrap) all present and linked by prev_hash, meta's tip = the last block,
 * undo rows only at or below the tip, meta's running totals = the sums over `scripts`, the stored headers.
 * Returns human-readable problems; empty means consistent.
 */
export function verifyChain(db: Db): string[] {
  return db.transaction(() => {
    const problems: string[] = [];
    const meta = new Map(
      (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: unknown }[]).map((r) => [r.key, r.value]),
    );
    const blocks = db.prepare('SELECT COUNT(*) AS n, MIN(height) AS lo, MAX(height) AS hi FROM blocks').get() as {
      n: number;
      lo: number | null;
      hi: number | null;
    };
    const tipHeight = meta.get('tip_height');
    const tipHash = meta.get('tip_hash');
    if (blocks.n === 0) {
      if (tipHeight !== undefined) problems.push(`meta tip_height ${String(tipHeight)} but no blocks`);
    } else {
      // A snapshot-bootstrapped index starts at its base block (meta base_height), not at genesis.
      const base = meta.get('base_height');
      const lo = typeof base === 'number' ? base : 0;
      if (blocks.lo !== lo || blocks.hi !== lo + blocks.n - 1)
        problems.push(`blocks are not exactly heights ${lo}..${String(blocks.hi)} (${blocks.n} rows, from ${String(blocks.lo)})`);
      if (tipHeight !== blocks.hi) problems.push(`meta tip_height ${String(tipHeight)} is not the last block ${String(blocks.hi)}`);
      const lastHash = db.prepare('SELECT hash FROM blocks WHERE height = ?').pluck().get(blocks.hi) as Buffer;
      if (!(tipHash instanceof Buffer) || !tipHash.equals(lastHash)) problems.push('meta tip_hash is not the hash of the last block');
      const unlinked = db
        .prepare('SELECT COUNT(*) FROM blocks AS b JOIN blocks AS p ON p.height = b.height - 1 WHERE b.prev_hash != p.hash')
        .pluck()
        .get() as number;
      if (unlinked > 0) problems.push(`${unlinked} blocks whose prev_hash is not the hash of the block below`);
    }
    const strayUndo = db
      .prepare('SELECT COUNT(*) FROM undo WHERE height > ?')
      .pluck()
      .get(blocks.hi ?? -1) as number;
    if (strayUndo > 0) problems.push(`${strayUndo} undo rows above the tip`);
    problems.push(...verifyHeaders(db, tipHeight, tipHash));
    // Both sides as bigints (safeIntegers): the amount may pass 2^53, where numbers could compare equal wrongly.
    // meta.value is ANY: a total bound as a number is a REAL there, read as a number even so.
    const sums = db
      .prepare('SELECT COUNT(*) AS scripts, COALESCE(SUM(utxo_count), 0) AS utxos, COALESCE(SUM(balance), 0) AS amount FROM scripts')
      .safeIntegers(true)
      .get() as { scripts: bigint; utxos: bigint; amount: bigint };
    const metaInt = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().safeIntegers(true);
    const totals: [string, bigint][] = [
      ['utxo_count', sums.utxos],
      ['utxo_amount', sums.amount],
      ['script_count', sums.scripts],
    ];
    for (const [key, value] of totals) {
      // An INTEGER (bound as a bigint) or a REAL (bound as a number, integral when right).
      const raw = metaInt.get(key) ?? 0n;
      const stored = typeof raw === 'number' && Number.isInteger(raw) ? BigInt(raw) : raw;
      if (stored !== value) problems.push(`meta ${key} ${String(stored)} differs from the sum over scripts ${value}`);
    }
    return problems;
  })();
}
