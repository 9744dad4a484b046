/**
 * What can go wrong talking to bitcoind/litecoind, as typed values. The sync loop decides from `code`
 * and `transient` whether to wait and retry (node down, starting, overloaded) or to stop with a message
 * (a bug or a node that does not speak the protocol we expect).
 *
 * | code          | when                                                        | transient |
 * |---------------|-------------------------------------------------------------|-----------|
 * | UNREACHABLE   | connection refused/reset, DNS failure, socket hang up       | yes       |
 * | WARMING_UP    | RPC error -28 (RPC_IN_WARMUP), REST 503 while loading       | yes       |
 * | TIMEOUT       | no complete answer within timeoutMs                         | yes       |
 * | AUTH          | HTTP 401 (bad user/password/cookie), 403 (rpcallowip)       | no *      |
 * | NOT_FOUND     | RPC -5 (RPC_INVALID_ADDRESS_OR_KEY: block not found), REST 404, height out of range | no |
 * | RPC           | any other JSON-RPC error object                             | no        |
 * | BAD_RESPONSE  | not the JSON/bytes we expect; 5xx without a JSON body is transient (work queue full) | 5xx only |
 *
 * * AUTH is not transient for one request, but an operator can fix the password or restart the node
 *   (which rotates the cookie) while we wait, so withRetry keeps retrying it with a clear log line.
 *
 * Messages name the node by its redacted URL: a password never reaches a log or an error.
 */

import { CodedError } from '../coded-error.js';

export const NODE_ERROR_CODES = ['UNREACHABLE', 'AUTH', 'WARMING_UP', 'TIMEOUT', 'RPC', 'NOT_FOUND', 'BAD_RESPONSE'] as const;
export type NodeErrorCode = (typeof NODE_ERROR_CODES)[number];

export interface NodeErrorDetails {
  /** JSON-RPC error code from the node (e.g. -28, -5), when there was one. */
  readonly rpcCode?: number;
  readonly httpStatus?: number;
  /** The RPC method or REST path that failed. */
  readonly request?: string;
  /** The node's own error message (an RPC error's `message`): what a relayed refusal shows its sender. */
  readonly nodeMessage?: string;
}

export class NodeError extends CodedError<NodeErrorCode> {
  constructor(
    code: NodeErrorCode,
    message: string,
    readonly transient: boolean,
    readonly details: NodeErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Bitcoin Core's RPCErrorCode values we act on (src/rpc/protocol.h). */
export const RPC_IN_WARMUP = -28;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;

/** Whether withRetry should wait and try again: transient failures plus what an operator can fix. */
export function isRetryable(err: unknown): err is NodeError {
  return err instanceof NodeError && (err.transient || err.code === 'AUTH' || err.code === 'UNREACHABLE');
}

/** Socket-level failures (Node's errno codes) that mean "the node is not there right now". */
const UNREACHABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Classifies an error raised by node:http before any HTTP status arrived. */
export function fromSocketError(err: unknown, target: string, request: string): NodeError {
  if (err instanceof NodeError) return err;
  const errno = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  if (typeof errno === 'string' && UNREACHABLE_ERRNOS.has(errno)) {
    return new NodeError('UNREACHABLE', `node at ${target} unreachable (${errno}) during ${request}`, true, { request }, { cause: err });
  }
  if (text === 'socket hang up') {
    return new NodeError('UNREACHABLE', `node at ${target} closed the connection during ${request}`, true, { request }, { cause: err });
  }
  return new NodeError('UNREACHABLE', `node at ${target} failed during ${request}: ${text}`, true, { request }, { cause: err });
}

/** Classifies a JSON-RPC error object `{code, message}` returned by the node. */
export function fromRpcError(error: { code: number; message: string }, target: string, request: string, httpStatus: number): NodeError {
  const details = { rpcCode: error.code, httpStatus, request, nodeMessage: error.message };
  const text = `node at ${target}: ${request} failed with RPC error ${error.code}: ${error.message}`;
  if (error.code === RPC_IN_WARMUP) return new NodeError('WARMING_UP', text, true, details);
  if (error.code === RPC_INVALID_ADDRESS_OR_KEY) return new NodeError('NOT_FOUND', text, false, details);
  return new NodeError('RPC', text, false, details);
}

/** Classifies an HTTP answer that is not a usable JSON-RPC reply. */
export function fromHttpStatus(status: number, bodyText: string, target: string, request: string): NodeError {
  const details = { httpStatus: status, request };
  if (status === 401) {
    return new NodeError(
      'AUTH',
      `node at ${target} rejected the RPC credentials (HTTP 401) for ${request}: check rpcuser/rpcpassword in the URL or the cookie file`,
      false,
      details,
    );
  }
  if (status === 403) {
    return new NodeError(
      'AUTH',
      `node at ${target} refused this client (HTTP 403) for ${request}: check the node's -rpcallowip`,
      false,
      details,
    );
  }
  const snippet = bodyText.slice(0, 200).trim();
  if (status >= 500) {
    // Bitcoin Core answers 503 "Work queue depth exceeded" when its RPC threads are busy.
    return new NodeError('BAD_RESPONSE', `node at ${target} answered HTTP ${status} for ${request}: ${snippet}`, true, details);
  }
  return new NodeError('BAD_RESPONSE', `node at ${target} answered HTTP ${status} for ${request}: ${snippet}`, false, details);
}
