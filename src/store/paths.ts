import path from 'node:path';
import type { ChainCode } from '../chain/params.js';

/** Where a chain's index lives: `<dataDir>/btc.sqlite`, `<dataDir>/ltc.sqlite` (README: Configuration). */
export function chainDbPath(dataDir: string, chain: ChainCode): string {
  return path.join(dataDir, `${chain.toLowerCase()}.sqlite`);
}
