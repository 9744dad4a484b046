/** The parameters of the index-backed methods, checked alike: a wrong one is INVALID_PARAMS naming it. */
import { parseScripthash } from '../../serving/scripthash-param.js';
import { rpcErrorOf } from '../serving-errors.js';
import { RpcError } from '../wire.js';

/** A non-negative integer parameter; `fallback` when absent (undefined or null). */
export function heightParam(value: unknown, name: string, fallback?: number): number {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RpcError('INVALID_PARAMS', `${name} must be a non-negative integer`);
  }
  return value;
}

/** An Electrum scripthash: its lowercase hex and the index's script key. */
export function scripthashParam(value: unknown): { hash: string; key: Buffer } {
  if (typeof value !== 'string') throw new RpcError('INVALID_PARAMS', 'scripthash must be a string of 64 hex digits');
  try {
    return parseScripthash(value);
  } catch (err) {
    throw rpcErrorOf(err, 'scripthash: ') ?? err;
  }
}

/** A transaction hash parameter (64 hex digits, display order), lowercased. */
export function txHashParam(value: unknown, name = 'tx_hash'): string {
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) throw new RpcError('INVALID_PARAMS', `${name} must be 64 hex digits`);
  return value.toLowerCase();
}
