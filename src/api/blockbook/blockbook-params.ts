/**
 * Blockbook's readings of its parameters, kept for both doors: its lenient integers, Go's booleans and
 * its txid refusal.
 */
import { ServingError } from '../../serving/errors.js';
import { parseTxid } from '../node-read.js';
import { BlockbookError } from './blockbook-answers.js';

/** Blockbook's validateIntParam: a value that is no integer, or below `min`, is the default; above `max`, `max`. */
export function intParam(text: string | null, fallback: number, min: number, max: number): number {
  if (text === null || !/^[+-]?\d+$/.test(text)) return fallback;
  const n = Number(text);
  if (n < min) return fallback;
  return Math.min(n, max);
}

/** Go's strconv.ParseBool, as Blockbook reads a flag; absent is false. */
export function boolParam(text: string | null, name: string): boolean {
  if (text === null || text === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new BlockbookError(400, `Parameter '${name}' cannot be converted to boolean`);
}

/** A txid as Blockbook words its refusals: `Transaction '<txid>' not found`, with why when it is no txid. */
export function blockbookTxid(text: string): Buffer {
  try {
    return parseTxid(text);
  } catch (err) {
    if (!(err instanceof ServingError)) throw err;
    throw new BlockbookError(400, `Transaction '${text.slice(0, 100)}' not found (a txid is 64 hex digits)`);
  }
}
