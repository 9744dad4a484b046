/**
 * How the Electrum methods and subscriptions read a script's history: straight from the index
 * (script-history.ts), or through the chain's kept long histories (history-cache.ts).
 */
import type { ElectrumIndex } from './access.js';
import type { HistoryCache } from './history-cache.js';
import { electrumHistory, readScriptTxs, type ScriptHistory } from './script-history.js';

/** Reads a script's history for the Electrum methods: through `cache` when one is kept. */
export type ScriptHistories = (index: ElectrumIndex, key: Buffer) => Promise<ScriptHistory>;

export function scriptHistories(max: number, cache: HistoryCache | null): ScriptHistories {
  const read = (index: ElectrumIndex, key: Buffer, after?: number) => readScriptTxs(index, key, max, after);
  if (cache === null) return async (index, key) => electrumHistory((await read(index, key)).list);
  return (index, key) => cache.get(index, key, read);
}
