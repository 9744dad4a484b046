/**
 * The `{chain}` segment, read one way by every chain route, the event stream and the WebSocket's ops,
 * so that all of them refuse an unknown chain alike (UNKNOWN_CHAIN) and before any key check.
 */
import type { Request } from 'express';
import { CHAIN_CODES, type ChainCode } from '../chain/params.js';
import { ServingError, quote } from '../serving/errors.js';
import type { Step } from './middleware/step.js';

export function parseChain(segment: string): ChainCode {
  const code = segment.toUpperCase();
  if (!(CHAIN_CODES as readonly string[]).includes(code)) {
    throw new ServingError('UNKNOWN_CHAIN', `unknown chain ${quote(segment, 16)}; supported chains: ${CHAIN_CODES.join(', ')}`);
  }
  return code as ChainCode;
}

/** The first step of every chain route: an unknown chain answers 404 before any key check. */
export const chainCheck: Step = (req: Request) => {
  parseChain(String(req.params.chain));
};
