/**
 * Whether a chain's index was built for the chain and network this service is configured for. The API
 * refuses to serve a foreign index on every request (503 CHAIN_UNAVAILABLE, wiring.ts); at start it also
 * says so once, so that an operator reading the start log learns it without sending a request. The API
 * still starts: the index may be replaced, or the setting corrected, while it runs.
 */
import { existsSync } from 'node:fs';
import type { ChainCode, NetworkName } from '../chain/params.js';
import type { Logger } from '../logger.js';
import { settingWithVariables } from '../setting-variables.js';

/** What an index says it was built for. */
export interface Built {
  readonly chain: ChainCode;
  readonly network: NetworkName;
}

/** Why an index built for `built` cannot serve `chain` on `network`; null when it can. */
export function foreignIndex(file: string, built: Built, chain: ChainCode, network: NetworkName): string | null {
  if (built.chain === chain && built.network === network) return null;
  return `${file} indexes ${built.chain} ${built.network}, but this service is configured for ${chain} ${network}`;
}

/**
 * One warn line when the index at `file` exists and was built for another chain or network. An index
 * that does not exist yet, or cannot be read now (`builtFor` throws), says nothing here: the check on
 * each request covers it. `builtFor` opens the index through its engine (wiring.ts knows which).
 */
export function warnForeignIndexAtStart(
  file: string,
  chain: ChainCode,
  network: NetworkName,
  log: Logger,
  builtFor: (file: string) => Built,
): void {
  if (!existsSync(file)) return;
  let built: Built;
  try {
    built = builtFor(file);
  } catch {
    return;
  }
  const why = foreignIndex(file, built, chain, network);
  if (why === null) return;
  // Only the network is a setting; an index of another chain is the wrong file, whatever the settings.
  const fix =
    built.chain === chain
      ? `set ${settingWithVariables(`chains.${chain}.network`)} to ${built.network} if that is the network meant, or index ${network} into this data directory`
      : `this is not a ${chain} index: point the data directory at the right files`;
  log.warn(
    { chain, file, configuredNetwork: network, indexChain: built.chain, indexNetwork: built.network },
    `${why}; ${chain} requests are answered 503 CHAIN_UNAVAILABLE until they agree: ${fix}`,
  );
}
