/**
 * Writes a change set's per-script deltas (change-set.ts) to the aggregate rows: one upsert per script
 * per commit, however many outputs touched it, CHUNK scripts per statement. Balance deltas are bigints,
 * bound as 64-bit integers.
 */
import type { ScriptDelta } from '../change-set.js';
import { StoreError } from '../errors.js';
import { CHUNK, type WriteStatements } from './statements.js';

/**
 * Applies `deltas` (ascending by key) and returns the script count after them. Two passes per chunk:
 * create the missing rows as (0, 0) — the number created is how the script count is kept without
 * reading — then add the deltas. A row left with count 0 is deleted (its balance must then be 0); a
 * negative count or balance means the index is inconsistent.
 */
export function writeScriptDeltas(stmts: WriteStatements, deltas: readonly ScriptDelta[], scriptsBefore: number): number {
  let scripts = scriptsBefore;
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
      const d = deltas[i + j]!;
      keys[j] = d.key;
      args[3 * j] = d.key;
      args[3 * j + 1] = d.balance;
      args[3 * j + 2] = d.count;
    }
    scripts += stmts.scriptEnsureChunk.run(...keys).changes;
    for (const key of stmts.scriptAddChunk.all(...args)) settle(key);
  }
  for (; i < deltas.length; i++) {
    const d = deltas[i]!;
    scripts += stmts.scriptEnsure.run(d.key).changes;
    settle(stmts.scriptAdd.get(d.key, d.balance, d.count)!);
  }
  return scripts;
}
