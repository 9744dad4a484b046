/**
 * Why a wallet key or descriptor was refused. Each reason has its own code so a client can tell a typo
 * from a private key sent by mistake; messages never quote the key or the descriptor (an extended key
 * reveals a whole wallet, a private one spends it).
 */
import { CodedError } from '../coded-error.js';

export const WALLET_ERROR_CODES = [
  'PRIVATE_KEY_REFUSED',
  'BAD_CHECKSUM',
  'WRONG_NETWORK',
  'HARDENED_BELOW_XPUB',
  'RANGE_TOO_LARGE',
  'BAD_RANGE',
  'MALFORMED_DESCRIPTOR',
] as const;

export type WalletErrorCode = (typeof WALLET_ERROR_CODES)[number];

export class WalletError extends CodedError<WalletErrorCode> {}

export function malformed(message: string): WalletError {
  return new WalletError('MALFORMED_DESCRIPTOR', message);
}
