/** A watch (summaries.ts) from a checked address: the store key is what the change feed names. */
import type { ChainCode } from '../../chain/params.js';
import { scriptKey } from '../../store/script-key.js';
import type { Watch } from './summaries.js';

export function watchOf(chain: ChainCode, address: string, script: Uint8Array, mempool: boolean): Watch {
  return { chain, address, script, key: scriptKey(script).toString('latin1'), mempool };
}
