/**
 * A wallet as a request names it (an extended key or a descriptor, and a range), read and priced before
 * anything is derived: one reading for the xpub routes and the live subscribe, so that both refuse and
 * charge alike.
 */
import type { ChainHandle } from '../serving/chain-handle.js';
import { ServingError } from '../serving/errors.js';
import { checkRange, derivationWork, scriptCount } from '../wallet/derive.js';
import { WalletError } from '../wallet/errors.js';
import { refusePrivateKeys } from '../wallet/extended-key.js';
import { walletFingerprint } from '../wallet/fingerprint.js';
import { parseWalletInput } from '../wallet/wallet-input.js';

export const DEFAULT_XPUB_RANGE = 1000;
export const DEFAULT_XPUB_MAX_RANGE = 10_000;

/**
 * The price of a wallet request: one token per 200 units of derivationWork (wallet/derive.ts: one per
 * child key derived, at least one per script), rounded up, at least one. A bare key at the default range
 * (2×1000 scripts, one key each) costs 10 tokens, the default tier's whole burst; a 16-key multisig costs
 * 16 times its scripts, as its derivation does. A price above the tier's burst is taken from a full
 * bucket and repaid at the tier's rate before the caller's next request (token-bucket.ts, overdraw).
 */
export const WORK_PER_TOKEN = 200;

/** Tokens `units` cost: a wallet's derivationWork on the routes and the live subscribe alike. */
export function walletTokens(units: number): number {
  return Math.max(1, Math.ceil(units / WORK_PER_TOKEN));
}

/** Never 5xx for what a caller sent: a parser failure that is not a WalletError is still a malformed input. */
export function refused(err: unknown): ServingError {
  if (err instanceof ServingError) return err;
  if (err instanceof WalletError) return new ServingError(err.code, err.message);
  return new ServingError('MALFORMED_DESCRIPTOR', 'the key or descriptor could not be read');
}

/**
 * A wallet input and its range, parsed and priced but not derived; throws a WalletError, or any parser
 * error that refused() turns into one.
 */
export function walletOf(handle: ChainHandle, input: unknown, range: unknown, maxRange: number) {
  if (typeof input !== 'string' || input.trim() === '')
    throw new WalletError('MALFORMED_DESCRIPTOR', 'no extended key or descriptor given');
  refusePrivateKeys(input);
  const n = rangeOf(range);
  const desc = parseWalletInput(handle.params, input);
  checkRange(desc, { range: n, maxRange });
  return {
    desc,
    input,
    fingerprint: walletFingerprint(desc),
    range: n,
    maxRange,
    scripts: scriptCount(desc, n),
    work: derivationWork(desc, n),
  };
}

function rangeOf(value: unknown): number {
  if (value === null || value === undefined) return DEFAULT_XPUB_RANGE;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new WalletError('BAD_RANGE', 'range must be a whole number of at least 1');
  return n;
}
