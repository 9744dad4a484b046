/**
 * What a wallet request names: an output descriptor, or a bare extended public key. A bare key means
 * both of its branches, `/0/*` and `/1/*`, with the script its version implies (xpub/tpub → pkh,
 * ypub/upub → sh(wpkh), zpub/vpub → wpkh), as Blockbook reads one.
 */
import type { ExtendedKeyKind } from '../chain/chain-module.js';
import type { ChainParams } from '../chain/params.js';
import { parseDescriptor, type Descriptor } from './descriptor.js';
import { decodeExtendedKey } from './extended-key.js';

const TEMPLATE: Readonly<Record<ExtendedKeyKind, (key: string) => string>> = {
  pkh: (k) => `pkh(${k})`,
  'sh-wpkh': (k) => `sh(wpkh(${k}))`,
  wpkh: (k) => `wpkh(${k})`,
};

export function parseWalletInput(params: ChainParams, input: string): Descriptor {
  const text = input.trim();
  if (text.includes('(')) return parseDescriptor(params, text);
  const { kind } = decodeExtendedKey(params, text, 'the extended key');
  return parseDescriptor(params, TEMPLATE[kind](`${text}/<0;1>/*`));
}
