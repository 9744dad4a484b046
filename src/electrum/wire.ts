/**
 * The Electrum wire (protocol 1.4): newline-delimited JSON-RPC 2.0. Pure: a byte stream split into lines
 * no longer than a limit, a line parsed into requests (one, or a batch: a JSON array), and answers and
 * notifications written back as lines. Nothing here throws on what a client sends: every malformed input
 * becomes a value the session answers.
 */
import { CodedError } from '../coded-error.js';

/**
 * JSON-RPC's own codes, and the server errors: BAD_REQUEST is ElectrumX's code for a request it
 * understands and refuses (an unsupported protocol version), DAEMON_ERROR its code for a node that
 * failed (down, slow, or refusing what it was asked), the two negative ones aiorpcx's for a
 * client over its limits and a server that cannot take the request now.
 */
export const RPC_ERROR_NUMBERS = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  BAD_REQUEST: 1,
  DAEMON_ERROR: 2,
  EXCESSIVE_RESOURCE_USAGE: -101,
  SERVER_BUSY: -102,
  /** Protocol 1.7's answer to a script whose history is longer than the server serves (electrum.maxHistory). */
  HISTORY_TOO_LARGE: 10001,
} as const;

export type RpcErrorCode = keyof typeof RPC_ERROR_NUMBERS;

/** An error answer: `code` names it in our code, `number` is what goes on the wire. */
export class RpcError extends CodedError<RpcErrorCode> {
  get number(): number {
    return RPC_ERROR_NUMBERS[this.code];
  }
}

/** A request id; `undefined` marks a notification (a request without id, which gets no answer). */
export type RpcId = string | number | null;

export interface RpcRequest {
  readonly id: RpcId | undefined;
  readonly method: string;
  /** Positional (an array) or named (an object); absent params are `[]`. */
  readonly params: readonly unknown[] | Readonly<Record<string, unknown>>;
}

/** One item of a line: a request to dispatch, or the error answer of one that cannot be. */
export type Incoming =
  { readonly kind: 'request'; readonly request: RpcRequest } | { readonly kind: 'invalid'; readonly id: RpcId; readonly error: RpcError };

export interface ParsedLine {
  /** A batch is answered with one array; a single request with one object. */
  readonly batch: boolean;
  readonly items: readonly Incoming[];
}

/** Most requests in one batch: a 1 MB line could otherwise hold tens of thousands of them. */
export const MAX_BATCH_ITEMS = 500;

const invalid = (id: RpcId, code: RpcErrorCode, message: string): Incoming => ({ kind: 'invalid', id, error: new RpcError(code, message) });

const isId = (v: unknown): v is RpcId => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

function requestOf(value: unknown): Incoming {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'INVALID_REQUEST', 'a request must be a JSON object');
  }
  const v = value as Record<string, unknown>;
  // An id of a forbidden type cannot be echoed back: the answer takes null.
  const id = isId(v.id) ? v.id : null;
  if (v.jsonrpc !== '2.0') return invalid(id, 'INVALID_REQUEST', 'jsonrpc must be "2.0"');
  if (v.id !== undefined && !isId(v.id)) return invalid(null, 'INVALID_REQUEST', 'id must be a string, a number or null');
  if (typeof v.method !== 'string') return invalid(id, 'INVALID_REQUEST', 'method must be a string');
  const params = v.params ?? [];
  if (typeof params !== 'object' || params === null) return invalid(id, 'INVALID_REQUEST', 'params must be an array or an object');
  return {
    kind: 'request',
    request: { id: v.id as RpcId | undefined, method: v.method, params: params as RpcRequest['params'] },
  };
}

/**
 * Deepest nesting a request needs: an object in a batch holds params, a package's list of transactions.
 * JSON.parse of a line nested hundreds of thousands deep takes a fifth of a second; the scan below a
 * millisecond.
 */
export const MAX_NESTING = 8;
/** Most values in one line: 500 requests of a batch with their params fit many times over. */
export const MAX_VALUES = 20_000;

/**
 * What makes a line too costly to parse, found in one pass over its characters without building
 * anything: nesting past MAX_NESTING, or more than MAX_VALUES separators (a flat array of a million
 * numbers). Undefined when JSON.parse may have it.
 */
export function tooCostlyToParse(line: string): string | undefined {
  let depth = 0;
  let separators = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_NESTING) return `nested deeper than ${MAX_NESTING} levels`;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++separators >= MAX_VALUES) return `more than ${MAX_VALUES} values`;
  }
  return undefined;
}

/** One line (without its newline) as the requests it holds. */
export function parseLine(line: string): ParsedLine {
  const costly = tooCostlyToParse(line);
  if (costly !== undefined) return { batch: false, items: [invalid(null, 'INVALID_REQUEST', `a request line ${costly}`)] };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { batch: false, items: [invalid(null, 'PARSE_ERROR', 'invalid JSON')] };
  }
  if (!Array.isArray(value)) return { batch: false, items: [requestOf(value)] };
  if (value.length === 0) return { batch: false, items: [invalid(null, 'INVALID_REQUEST', 'an empty batch')] };
  if (value.length > MAX_BATCH_ITEMS) {
    return { batch: false, items: [invalid(null, 'INVALID_REQUEST', `a batch holds at most ${MAX_BATCH_ITEMS} requests`)] };
  }
  return { batch: true, items: value.map(requestOf) };
}

/** A line is unusable as a whole: nothing in it could be dispatched (counts towards closing a garbage sender). */
export function isBadLine(parsed: ParsedLine): boolean {
  return parsed.items.every((i) => i.kind === 'invalid');
}

export type RpcAnswer =
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly error: { readonly code: number; readonly message: string } };

export const resultAnswer = (id: RpcId, result: unknown): RpcAnswer => ({ jsonrpc: '2.0', id, result: result ?? null });

export const errorAnswer = (id: RpcId, error: RpcError): RpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code: error.number, message: error.message },
});

/**
 * A result already written as JSON bytes, in pieces (a long history, built once where a list would take
 * an object per entry, and kept: status.ts): framed around them, never copied into one string.
 */
export class JsonText {
  constructor(readonly pieces: readonly Buffer[]) {}
}

type Message = RpcAnswer | readonly RpcAnswer[] | Notification;

const hasText = (m: RpcAnswer | Notification): m is RpcAnswer & { result: JsonText } => 'result' in m && m.result instanceof JsonText;

function messageText(message: RpcAnswer | Notification): string {
  if (hasText(message))
    return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${Buffer.concat(message.result.pieces).toString()}}`;
  return JSON.stringify(message);
}

/** One message as a line: an answer, a batch's answers, or a notification. */
export function frame(message: Message): string {
  return `${Array.isArray(message) ? `[${message.map(messageText).join(',')}]` : messageText(message as RpcAnswer | Notification)}\n`;
}

/** frame() as the bytes to write, one after another: an answer of JsonText keeps its pieces as they are. */
export function frameBytes(message: Message): Buffer[] {
  if (Array.isArray(message) || !hasText(message as RpcAnswer | Notification)) return [Buffer.from(frame(message))];
  const { id, result } = message as RpcAnswer & { result: JsonText };
  return [Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`), ...result.pieces, LINE_END];
}

const LINE_END = Buffer.from('}\n');

export interface Notification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params: readonly unknown[];
}

/** A notification is named after the subscription method (`blockchain.headers.subscribe`). */
export const notification = (method: string, params: readonly unknown[]): Notification => ({ jsonrpc: '2.0', method, params });

const NEWLINE = 0x0a;

export type Chunked = { readonly lines: string[]; readonly oversized: boolean };

/**
 * Splits a byte stream into lines of at most `maxLineBytes` (the newline not counted). Bytes are kept
 * until their newline comes, so a line split across chunks (or a UTF-8 character split across them) is
 * whole when decoded. Once a line is too long the splitter says so and keeps nothing more: the session
 * answers and closes.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private overflowed = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): Chunked {
    const lines: string[] = [];
    if (this.overflowed) return { lines, oversized: true };
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = end < 0 ? chunk.subarray(start) : chunk.subarray(start, end);
      if (this.held + piece.length > this.maxLineBytes) {
        this.overflowed = true;
        this.parts = [];
        this.held = 0;
        return { lines, oversized: true };
      }
      if (end < 0) {
        if (piece.length > 0) {
          // Copied: a chunk's buffer may be reused by the socket once this returns.
          this.parts.push(Buffer.from(piece));
          this.held += piece.length;
        }
        return { lines, oversized: false };
      }
      const whole = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.held = 0;
      const text = whole.toString('utf8').replace(/\r$/, '');
      // Blank lines (a keep-alive newline, a trailing \r\n) are not requests.
      if (text.trim() !== '') lines.push(text);
      start = end + 1;
    }
  }
}
