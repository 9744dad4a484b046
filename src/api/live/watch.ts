/**
 * Watches (summaries.ts) from checked input: an address's script, an Electrum scripthash's key, or a
 * wallet's derived scripts. The store keys are what the change feed names.
 */
import type { ChainCode } from '../../chain/params.js';
import { scriptKey } from '../../store/script-key.js';
import type { DerivedScript } from '../../wallet/derive.js';
import { walletTokens } from '../wallet-request.js';
import type { AddressWatch, ScripthashWatch, WalletWatch } from './summaries.js';

export function watchOf(chain: ChainCode, address: string, script: Uint8Array, mempool: boolean): AddressWatch {
  return { kind: 'address', chain, address, script, keys: [scriptKey(script).toString('latin1')], mempool, cost: 1 };
}

export function scripthashWatch(chain: ChainCode, scripthash: string, key: Buffer, mempool: boolean): ScripthashWatch {
  return { kind: 'scripthash', chain, scripthash, keys: [key.toString('latin1')], mempool, cost: 1 };
}

export interface WalletOf {
  readonly fingerprint: string;
  readonly range: number;
  readonly descriptors: readonly string[];
  readonly scripts: readonly DerivedScript[];
  /** The scripts' store keys, in the same order (derivation-cache.ts keeps them). */
  readonly keys: readonly Buffer[];
}

/**
 * A wallet counts as one subscription per 200 derived scripts (rounded up), the xpub route's token
 * arithmetic over its scripts (not its derivations: the caps bound the keys the hub holds): watching
 * 2×1000 scripts costs what 10 addresses do. Known before the wallet is derived.
 */
export function walletSubscriptions(scripts: number): number {
  return walletTokens(scripts);
}

export function walletWatch(chain: ChainCode, wallet: WalletOf, mempool: boolean): WalletWatch {
  const { keys: storeKeys, ...rest } = wallet;
  const keys = storeKeys.map((k) => k.toString('latin1'));
  return { kind: 'wallet', chain, ...rest, keys, mempool, cost: walletSubscriptions(keys.length) };
}
