/**
 * 10,000 generated bodies (and content types, lengths, encodings) POSTed as raw bytes to the batch route
 * of a real listening server: never a 5xx, every answer JSend with a code whose status matches, and every
 * answer valid against /openapi.json.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/serving/errors.js';
import { createHttpServer } from '../../src/api/http-server.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { buildWorld, type World } from '../support/api-world.js';
import { OpenApiValidator } from '../support/openapi-validate.js';
import { rawRequest } from '../support/raw-http.js';

const RUNS = 10_000;
const validator = new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>);
let world: World;
let server: Server;
let port = 0;
let key = '';

beforeAll(async () => {
  world = buildWorld({ tiers: { default: { rate: 1e6, burst: 1e6 }, private: { rate: 1e6, burst: 1e6 } } });
  world.index.BTC.set('76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac', 2_100_000_000_000_000, 7);
  world.index.BTC.setMempool('76a914a31c06bd463e3923bc1aadbde48b16976c08071788ac', {
    balanceSats: -2_100_000_000_000_000,
    utxoCount: -7,
    txCount: 9,
  });
  server = createHttpServer(world.app, pino({ level: 'silent' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  key = world.createKey('private').key;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  world.cleanup();
});

const ADDRESSES = [
  '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo',
  'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv',
  'BC1QVYQ0CC6RAHYVSAZFDJE0TWL7EZ82NDMUAC2LHV',
  'mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ',
  'ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz',
  'ltcmweb1qq2j6sjq6eltw9v305ntdksxmjvwyjlyklkw4sn4xrlwa4kuq5hk4qqnxxhpxsz8gcdsmwxmjaxztdkanqssgnz80q7vcs8wr4c7cml7nxsgp2hlc',
];

const addressLike = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ADDRESSES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 50 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
);

const jsonBody = fc.oneof(
  { weight: 6, arbitrary: fc.array(addressLike, { maxLength: 120 }).map((addresses) => JSON.stringify({ addresses })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .record({ addresses: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }) }, { requiredKeys: [] })
      .map((v) => JSON.stringify(v)),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })).map((v) => JSON.stringify(v)) },
);

/** A valid body cut short, spliced with junk, or replaced by arbitrary bytes. */
const body = fc.oneof(
  { weight: 6, arbitrary: jsonBody.map((s) => Buffer.from(s)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(jsonBody, fc.nat(), fc.string({ maxLength: 4 }))
      .map(([s, at, junk]) => Buffer.from(s.slice(0, at % (s.length + 1)) + junk)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.alloc(0),
      Buffer.from('{"addresses":[' + '"x",'.repeat(30_000) + '"x"]}'),
      Buffer.from('['.repeat(5000)),
    ),
  },
);

const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/json; charset=nope',
  '',
);
const lengthMode = fc.constantFrom('exact', 'exact', 'exact', 'short', 'chunked');
const encoding = fc.constantFrom(undefined, undefined, undefined, 'gzip', 'identity', 'br', 'x-bogus');

const requestArb = fc.record({
  body,
  contentType,
  lengthMode,
  encoding,
  query: fc.constantFrom('', '?mempool=true', '?mempool=x', '?mempool=1&mempool=0'),
  chain: fc.constantFrom('BTC', 'ltc', 'DOGE'),
});
type Req = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function bytesOf(r: Req): Buffer {
  const lines = [`POST /api/v1/${r.chain}/addresses${r.query} HTTP/1.1`, 'Host: 127.0.0.1', `x-api-key: ${key}`, 'Connection: close'];
  if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
  if (r.encoding !== undefined) lines.push(`Content-Encoding: ${r.encoding}`);
  let payload = r.body;
  if (r.lengthMode === 'chunked') {
    lines.push('Transfer-Encoding: chunked');
    payload = Buffer.concat([Buffer.from(`${r.body.length.toString(16)}\r\n`), r.body, Buffer.from('\r\n0\r\n\r\n')]);
  } else {
    // 'short' declares fewer bytes than sent: the rest is a (malformed) next request on the connection.
    lines.push(`Content-Length: ${r.lengthMode === 'short' ? Math.floor(r.body.length / 2) : r.body.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

it(`answers ${RUNS} generated batch bodies with JSend, never 5xx`, async () => {
  const codes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(requestArb, async (r) => {
      const res = await rawRequest(port, bytesOf(r), { timeoutMs: 10_000 });
      const parsed = JSON.parse(res.body) as { status: string; data?: { code?: string }; code?: string };
      const c = res.status === 200 ? 'OK' : String(parsed.data?.code ?? parsed.code);
      codes.set(c, (codes.get(c) ?? 0) + 1);
      const problems = validator.check({
        method: 'POST',
        path: `/api/v1/${r.chain}/addresses`,
        status: res.status,
        headers: res.headers,
        text: res.body,
      });
      const where = `request ${JSON.stringify(bytesOf(r).toString('latin1').slice(0, 300))} → ${res.status} ${res.body.slice(0, 200)}`;
      if (res.status >= 500) throw new Error(`5xx: ${where}`);
      if (problems.length > 0) throw new Error(`${problems[0]}: ${where}`);
      if (res.status !== 200) expect(ERROR_STATUS[c as ErrorCode], where).toBe(res.status);
    }),
    { numRuns: RUNS },
  );
  // The generator must reach every outcome, or the property says little.
  for (const c of ['OK', 'INVALID_JSON', 'INVALID_BATCH', 'BAD_REQUEST', 'UNKNOWN_CHAIN'])
    expect(codes.get(c) ?? 0, `${c}: ${JSON.stringify(Object.fromEntries(codes))}`).toBeGreaterThan(10);
  expect(codes.get('BODY_TOO_LARGE') ?? 0).toBeGreaterThan(0);
}, 600_000);
