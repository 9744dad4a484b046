/**
 * An address as a door reads it from a caller: the script it pays, or why it is refused, as an error
 * value (never thrown) so that a batch can answer it in place of that one address.
 */
import { addressToScript } from '../chain/address.js';
import type { ChainHandle } from './chain-handle.js';
import { ServingError } from './errors.js';

export type Checked = { readonly ok: true; readonly script: Uint8Array } | { readonly ok: false; readonly error: ServingError };

export function checkAddress(handle: ChainHandle, address: string): Checked {
  const decoded = addressToScript(handle.params, address);
  return decoded.ok
    ? { ok: true, script: decoded.script }
    : { ok: false, error: new ServingError(decoded.error.code, decoded.error.message) };
}
