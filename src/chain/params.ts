/**
 * Chain parameters by (chain, network): everything address encoding and block validation need to know
 * about a network. The values live in each chain's module (./btc/, ./ltc/); this file only looks them
 * up, so the rest of the code names no chain.
 */
import type { NetworkParams } from './chain-module.js';
import { chainModule, CHAIN_CODES, CHAINS, type ChainCode, type NetworkName } from './registry.js';

export { CHAIN_CODES, type ChainCode, type NetworkName };

export interface ChainParams extends NetworkParams {
  readonly chain: ChainCode;
  readonly network: NetworkName;
}

/** The networks every chain has (each chain may have more: networkNames(chain)). */
export const NETWORK_NAMES: readonly NetworkName[] = Object.freeze(
  CHAINS[0].networkNames.filter((n) => CHAINS.every((c) => (c.networkNames as readonly string[]).includes(n))),
);

/** Every network name of any chain, each once, in registry order. */
export const ALL_NETWORK_NAMES: readonly NetworkName[] = Object.freeze([
  ...new Set(CHAINS.flatMap((c) => c.networkNames as readonly NetworkName[])),
]);

/** The chain's networks, its default first. */
export function networkNames(chain: ChainCode): readonly NetworkName[] {
  return chainModule(chain).networkNames as readonly NetworkName[];
}

/** Human name of the chain: 'Bitcoin'. */
export function chainName(chain: ChainCode): string {
  return chainModule(chain).name;
}

export function chainParams(chain: ChainCode, network: NetworkName): ChainParams {
  const byNetwork = CHAINS.find((c) => c.code === chain)?.params as Record<string, NetworkParams> | undefined;
  const params = byNetwork !== undefined && Object.hasOwn(byNetwork, network) ? byNetwork[network] : undefined;
  if (!params) throw new RangeError(`unknown chain/network: ${String(chain)}/${String(network)}`);
  return params as ChainParams;
}
