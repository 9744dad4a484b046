/**
 * Per-script aggregate changes collected over a whole transaction (a batch of blocks, or one rollback)
 * and written once per script at the end: a script touched by many outputs in a batch costs one upsert,
 * not one per output. Also carries the running totals (UTXO count, amount, script count) kept in meta.
 *
 * Amounts are bigints (src/chain/amount.ts), bound to SQLite as 64-bit integers.
 */
import { StoreError } from '../errors.js';
import { CHUNK, type WriteStatements } from './statements.js';
import type { Totals } from '../index-model.js';

interface Delta {
  key: Buffer;
  balance: bigint;
  count: number;
}

export class ScriptDeltas {
  private readonly byScript = new Map<string, Delta>();
  utxos = 0;
  amount = 0n;

  /** Records `count` UTXOs of `value` satoshis in total entering (positive) or leaving (negative) a script. */
  add(scriptKey: Buffer, value: bigint, count: number): void {
    const id = scriptKey.toString('latin1');
    const d = this.byScript.get(id);
    if (d) {
      d.balance += value;
      d.count += count;
    } else {
      this.byScript.set(id, { key: scriptKey, balance: value, count });
    }
    this.utxos += count;
    this.amount += value;
  }

  /** Scripts whose aggregate this transaction changes (for the change feed). */
  *changedKeys(): Generator<Buffer> {
    for (const d of this.byScript.values()) if (d.balance !== 0n || d.count !== 0) yield d.key;
  }

  /**
   * Writes every non-zero delta, in key order, CHUNK scripts per statement, and returns the totals after
   * it. Two passes per chunk: create the missing rows as (0, 0) — the number created is how the script
   * count is kept without reading — then add the deltas. A row left with count 0 is deleted (its balance
   * must then be 0); a negative count or balance means the index is inconsistent.
   */
  flush(stmts: WriteStatements, before: Totals): Totals {
    const deltas = [...this.byScript.entries()].filter(([, d]) => d.balance !== 0n || d.count !== 0);
    deltas.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let scripts = before.scripts;
    const settle = (key: Buffer | null): void => {
      if (key === null) return;
      const row = stmts.scriptGet.get(key)!;
      if (row.utxo_count < 0n || row.balance < 0n || (row.utxo_count === 0n && row.balance !== 0n)) {
        throw new StoreError(
          'INCONSISTENT',
          `aggregate of script ${key.toString('hex')} would become balance ${row.balance} with ${row.utxo_count} UTXOs`,
        );
      }
      if (row.utxo_count === 0n) {
        stmts.scriptDelete.run(key);
        scripts--;
      }
    };
    const keys: unknown[] = new Array<unknown>(CHUNK);
    const args: unknown[] = new Array<unknown>(3 * CHUNK);
    let i = 0;
    for (; i + CHUNK <= deltas.length; i += CHUNK) {
      for (let j = 0; j < CHUNK; j++) {
        const d = deltas[i + j]![1];
        keys[j] = d.key;
        args[3 * j] = d.key;
        args[3 * j + 1] = d.balance;
        args[3 * j + 2] = d.count;
      }
      scripts += stmts.scriptEnsureChunk.run(...keys).changes;
      for (const key of stmts.scriptAddChunk.all(...args)) settle(key);
    }
    for (; i < deltas.length; i++) {
      const d = deltas[i]![1];
      scripts += stmts.scriptEnsure.run(d.key).changes;
      settle(stmts.scriptAdd.get(d.key, d.balance, d.count)!);
    }
    return { utxos: before.utxos + this.utxos, amount: before.amount + this.amount, scripts };
  }
}
