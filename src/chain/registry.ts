/**
 * Every chain addrsum serves, one module each. Config keys, env variables, API path segments, OpenAPI
 * enums and CLI choices are all derived from this list: adding a chain is a folder and a line here.
 */
import { btc } from './btc/index.js';
import { ltc } from './ltc/index.js';
import type { ChainModule } from './chain-module.js';

export const CHAINS = Object.freeze([btc, ltc] as const);

type AnyChain = (typeof CHAINS)[number];
export type ChainCode = AnyChain['code'];
/** Every network name of any chain; chainParams refuses a pair the chain does not have. */
export type NetworkName = AnyChain extends infer M ? (M extends ChainModule<string, infer N> ? N : never) : never;

export const CHAIN_CODES: readonly ChainCode[] = Object.freeze(CHAINS.map((c) => c.code));

export function chainModule(code: ChainCode): ChainModule {
  const found: ChainModule | undefined = CHAINS.find((c) => c.code === code);
  if (!found) throw new RangeError(`unknown chain: ${String(code)}`);
  return found;
}
