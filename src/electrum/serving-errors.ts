/**
 * The serving layer's errors (src/serving/errors.ts) on the Electrum wire, chosen by code: their HTTP
 * status says nothing Electrum's error numbers mean, and a code without an entry here stays a bug (the
 * session answers it INTERNAL_ERROR and logs it) until someone decides what Electrum should say.
 */
import { ServingError, type ErrorCode } from '../serving/errors.js';
import { RpcError, type RpcErrorCode } from './wire.js';

const RPC_CODES: Partial<Record<ErrorCode, RpcErrorCode>> = {
  INVALID_SCRIPTHASH: 'INVALID_PARAMS',
  // The node behind the serving layer's transaction reads (tx-source.ts), as a node link's failure answers.
  NODE_UNAVAILABLE: 'DAEMON_ERROR',
  NODE_NOT_CONFIGURED: 'DAEMON_ERROR',
  BLOCK_PRUNED: 'DAEMON_ERROR',
};

/** The RpcError `err` answers as, its message after `prefix`; null when it is no serving error Electrum names. */
export function rpcErrorOf(err: unknown, prefix: string): RpcError | null {
  if (!(err instanceof ServingError)) return null;
  const code = RPC_CODES[err.code];
  return code === undefined ? null : new RpcError(code, `${prefix}${err.message}`);
}
