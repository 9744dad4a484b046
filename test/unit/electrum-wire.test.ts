/**
 * The Electrum wire (src/electrum/wire.ts) and server.version's negotiation (version.ts), pure: lines
 * split across chunks and limited in length, requests parsed into values (never a throw), answers and
 * notifications written as one line each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/electrum/version.js';
import {
  errorAnswer,
  frame,
  frameBytes,
  JsonText,
  isBadLine,
  LineSplitter,
  MAX_BATCH_ITEMS,
  MAX_NESTING,
  MAX_VALUES,
  notification,
  parseLine,
  resultAnswer,
  RpcError,
  tooCostlyToParse,
} from '../../src/electrum/wire.js';

const req = (id: unknown, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('LineSplitter', () => {
  it('splits on newlines, keeps a partial line for the next chunk, drops blank lines and a trailing \\r', () => {
    const s = new LineSplitter(100);
    expect(s.push(Buffer.from('a\nb\r\n\n  \nc'))).toEqual({ lines: ['a', 'b'], oversized: false });
    expect(s.push(Buffer.from('d'))).toEqual({ lines: [], oversized: false });
    expect(s.push(Buffer.from('e\n'))).toEqual({ lines: ['cde'], oversized: false });
  });

  it('decodes a UTF-8 character split across chunks whole', () => {
    const bytes = Buffer.from('"€"\n');
    const s = new LineSplitter(100);
    expect(s.push(bytes.subarray(0, 2)).lines).toEqual([]);
    expect(s.push(bytes.subarray(2)).lines).toEqual(['"€"']);
  });

  it('accepts a line of exactly the limit and refuses one byte more, for good', () => {
    expect(new LineSplitter(4).push(Buffer.from('abcd\n'))).toEqual({ lines: ['abcd'], oversized: false });
    const s = new LineSplitter(4);
    expect(s.push(Buffer.from('ok\nab'))).toEqual({ lines: ['ok'], oversized: false });
    expect(s.push(Buffer.from('cde\nfine\n'))).toEqual({ lines: [], oversized: true });
    expect(s.push(Buffer.from('x\n'))).toEqual({ lines: [], oversized: true });
  });

  it('gives the same lines however the stream is chunked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }).filter((l) => !l.includes('\n') && l.trim() !== '' && !l.endsWith('\r'))),
        fc.array(fc.nat(30)),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          const s = new LineSplitter(1000);
          const got: string[] = [];
          let at = 0;
          for (const cut of cuts) {
            const end = Math.min(bytes.length, at + cut);
            got.push(...s.push(bytes.subarray(at, end)).lines);
            at = end;
          }
          got.push(...s.push(bytes.subarray(at)).lines);
          expect(got).toEqual(lines);
        },
      ),
    );
  });
});

describe('parseLine', () => {
  it('reads a request, a notification (no id) and named params', () => {
    expect(parseLine(req(1, 'server.ping', []))).toEqual({
      batch: false,
      items: [{ kind: 'request', request: { id: 1, method: 'server.ping', params: [] } }],
    });
    const n = parseLine(JSON.stringify({ jsonrpc: '2.0', method: 'server.ping' }));
    expect(n.items[0]).toEqual({ kind: 'request', request: { id: undefined, method: 'server.ping', params: [] } });
    expect(parseLine(req('a', 'server.version', { client_name: 'x' })).items[0]).toMatchObject({
      request: { id: 'a', params: { client_name: 'x' } },
    });
  });

  it.each([
    ['not JSON', 'hello', -32700, null],
    ['a number', '42', -32600, null],
    ['no jsonrpc member', JSON.stringify({ id: 3, method: 'server.ping' }), -32600, 3],
    ['a method that is not a string', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 5 }), -32600, 4],
    ['params that are a string', JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'm', params: 'x' }), -32600, 5],
    ['an id that is an object', JSON.stringify({ jsonrpc: '2.0', id: {}, method: 'm' }), -32600, null],
    ['an empty batch', '[]', -32600, null],
  ])('answers %s with its error and the id it can echo', (_what, line, code, id) => {
    const parsed = parseLine(line);
    expect(parsed.items).toHaveLength(1);
    const item = parsed.items[0]!;
    expect(item.kind).toBe('invalid');
    if (item.kind !== 'invalid') return;
    expect(item.error.number).toBe(code);
    expect(item.id).toBe(id);
    expect(isBadLine(parsed)).toBe(true);
  });

  it('reads a batch item by item, and refuses one past MAX_BATCH_ITEMS', () => {
    const parsed = parseLine(`[${req(1, 'a')},7,${req(2, 'b')}]`);
    expect(parsed.batch).toBe(true);
    expect(parsed.items.map((i) => i.kind)).toEqual(['request', 'invalid', 'request']);
    expect(isBadLine(parsed)).toBe(false);
    const big = parseLine(JSON.stringify(Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'm' }))));
    expect(big.batch).toBe(false);
    expect(big.items[0]).toMatchObject({ kind: 'invalid', id: null });
  });

  it('refuses a line nested too deep or holding too many values before parsing it, whatever its strings hold', () => {
    const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(tooCostlyToParse(nested(MAX_NESTING))).toBeUndefined();
    expect(tooCostlyToParse(nested(MAX_NESTING + 1))).toBe(`nested deeper than ${MAX_NESTING} levels`);
    // The hostile probe's line: 490,000 levels (JSON.parse takes ~0.2 s of it).
    const deep = parseLine(`{"jsonrpc":"2.0","id":1,"method":"m","params":${nested(490_000)}}`);
    expect(deep.items).toEqual([{ kind: 'invalid', id: null, error: expect.objectContaining({ code: 'INVALID_REQUEST' }) }]);
    expect(isBadLine(deep)).toBe(true);
    const flat = (n: number): string =>
      req(
        1,
        'm',
        Array.from({ length: n }, () => 1),
      );
    expect(tooCostlyToParse(flat(MAX_VALUES - 10))).toBeUndefined();
    expect(tooCostlyToParse(flat(MAX_VALUES + 1))).toBe(`more than ${MAX_VALUES} values`);
    // Brackets, commas and escaped quotes inside strings are text, not structure.
    const texty = req(1, 'm', ['['.repeat(50) + ','.repeat(MAX_VALUES) + '\\"{{{{{{{{{{']);
    expect(tooCostlyToParse(texty)).toBeUndefined();
    expect(parseLine(texty).items[0]!.kind).toBe('request');
    // A batch of MAX_BATCH_ITEMS ordinary requests passes.
    const batch = JSON.stringify(
      Array.from({ length: MAX_BATCH_ITEMS }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'm', params: ['a', 1, [2]] })),
    );
    expect(tooCostlyToParse(batch)).toBeUndefined();
  });

  it('never throws, whatever the line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (line) => {
        const parsed = parseLine(line);
        expect(parsed.items.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('answers', () => {
  it('are one JSON line each, errors with the wire number of their code', () => {
    expect(frame(resultAnswer(1, null))).toBe('{"jsonrpc":"2.0","id":1,"result":null}\n');
    expect(frame(errorAnswer('x', new RpcError('METHOD_NOT_FOUND', 'unknown method')))).toBe(
      '{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"unknown method"}}\n',
    );
    expect(frame([resultAnswer(1, 2), resultAnswer(2, 3)])).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":2},{"jsonrpc":"2.0","id":2,"result":3}]\n',
    );
    expect(frame(notification('blockchain.headers.subscribe', [{ height: 1 }]))).toBe(
      '{"jsonrpc":"2.0","method":"blockchain.headers.subscribe","params":[{"height":1}]}\n',
    );
    expect(new RpcError('EXCESSIVE_RESOURCE_USAGE', 'slow down').number).toBe(-101);
    expect(new RpcError('INVALID_PARAMS', 'x').code).toBe('INVALID_PARAMS');
  });

  it('frame a result written as JSON pieces around them, alone or in a batch, as the bytes of one line', () => {
    const pieces = [Buffer.from('[{"a":'), Buffer.from('1},{"b":"é"}'), Buffer.from(']')];
    const line = '{"jsonrpc":"2.0","id":"q","result":[{"a":1},{"b":"é"}]}\n';
    expect(frame(resultAnswer('q', new JsonText(pieces)))).toBe(line);
    const bytes = frameBytes(resultAnswer('q', new JsonText(pieces)));
    expect(Buffer.concat(bytes).toString()).toBe(line);
    // The pieces are written as they are, not copied.
    expect(bytes.slice(1, 4)).toEqual(pieces);
    expect(bytes[2]).toBe(pieces[1]);
    expect(frame([resultAnswer(1, new JsonText([Buffer.from('[]')])), resultAnswer(2, 3)])).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":[]},{"jsonrpc":"2.0","id":2,"result":3}]\n',
    );
    expect(Buffer.concat(frameBytes(resultAnswer(1, 2))).toString()).toBe(frame(resultAnswer(1, 2)));
  });
});

describe('server.version negotiation', () => {
  it('settles on 1.4 for a client asking for it alone, in a range, or for nothing', () => {
    expect(negotiate('1.4')).toBe('1.4');
    expect(negotiate(['1.4', '1.4'])).toBe('1.4');
    // 1.5 was skipped by the protocol: a range up to it has 1.4 as its highest spoken version.
    expect(negotiate(['1.2', '1.5'])).toBe('1.4');
    expect(negotiate(undefined)).toBe('1.4');
  });

  it('settles on 1.6 for a range that reaches it, as Electrum 4.7 asks', () => {
    expect(negotiate(['1.4', '1.6'])).toBe('1.6');
    expect(negotiate('1.6')).toBe('1.6');
    expect(negotiate(['1.6', '1.7'])).toBe('1.6');
    expect(negotiate(['1.4.2', '1.6'])).toBe('1.6');
    expect(negotiate(['1.4', '1.5.9'])).toBe('1.4');
  });

  it('refuses a range without 1.4 (BAD_REQUEST) and a malformed version (INVALID_PARAMS)', () => {
    const code = (v: unknown) => {
      try {
        negotiate(v);
      } catch (err) {
        return (err as RpcError).code;
      }
      return 'ok';
    };
    expect(code('1.2')).toBe('BAD_REQUEST');
    expect(code(['1.5', '1.5'])).toBe('BAD_REQUEST');
    expect(code(['1.7', '1.8'])).toBe('BAD_REQUEST');
    expect(code(['1.0', '1.3'])).toBe('BAD_REQUEST');
    expect(code('one')).toBe('INVALID_PARAMS');
    expect(code(['1.4'])).toBe('INVALID_PARAMS');
    expect(code(['1.6', '1.4'])).toBe('INVALID_PARAMS');
    expect(code(14)).toBe('INVALID_PARAMS');
  });
});
