import path from 'node:path';
import type { ChainCode } from '../chain/params.js';

/** Where a chain's index lives: `<dataDir>/btc.sqlite`, `<dataDir>/ltc.sqlite` (interface.md). */
export function chainDbPath(dataDir: string, chain: ChainCode): string {
  return path.join(dataDir, `${chain.toLowerCase()}.sqlite`);
}
