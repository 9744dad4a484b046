/**
 * OpenAPI 3.1 description of the whole HTTP surface: every path, method, status, header and body the app
 * can produce. The test suite validates every response it sees against this document, so the document
 * and the code cannot drift apart silently. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect).
 */
import { ERROR_STATUS, type ErrorCode } from './errors.js';

type Json = Record<string, unknown>;

const INT_TEXT = { type: 'string', pattern: '^[0-9]+$' };
const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Methods answered 405 on every path (HEAD and GET are served). */
const OTHER_METHODS = ['put', 'post', 'delete', 'options', 'patch', 'trace'] as const;

function codesWithStatus(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
}

function failSchema(codes: readonly ErrorCode[], extra: Json = {}): Json {
  return {
    type: 'object',
    required: ['status', 'data'],
    additionalProperties: false,
    properties: {
      status: { const: 'fail' },
      data: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { enum: codes }, message: { type: 'string', minLength: 1 }, ...extra },
      },
    },
  };
}

function errorSchema(codes: readonly ErrorCode[], data?: Json): Json {
  return {
    type: 'object',
    required: data ? ['status', 'code', 'message', 'data'] : ['status', 'code', 'message'],
    additionalProperties: false,
    properties: {
      status: { const: 'error' },
      code: { enum: codes },
      message: { type: 'string', minLength: 1 },
      data: data ?? { type: 'object' },
    },
  };
}

type HeaderName =
  | 'X-Request-Id'
  | 'RateLimit-Limit'
  | 'RateLimit-Remaining'
  | 'RateLimit-Reset'
  | 'Retry-After'
  | 'ETag'
  | 'Cache-Control'
  | 'Allow'
  | 'WWW-Authenticate'
  | 'X-Index-Age'
  | 'X-Tip-Age';

function headers(required: readonly HeaderName[], optional: readonly HeaderName[] = []): Json {
  const out: Json = {};
  for (const name of ['X-Request-Id', ...required] as HeaderName[]) out[name] = { ...HEADERS[name], required: true };
  for (const name of optional) out[name] = ref('headers', name);
  return out;
}

const json = (schema: Json) => ({ 'application/json': { schema } });

/** The JSend success envelope around `data`. */
function successSchema(data: Json): Json {
  return { type: 'object', additionalProperties: false, required: ['status', 'data'], properties: { status: { const: 'success' }, data } };
}

function response(description: string, schema: Json | null, hdrs: Json): Json {
  return schema ? { description, headers: hdrs, content: json(schema) } : { description, headers: hdrs };
}

const HEADERS: Record<HeaderName, Json> = {
  'X-Request-Id': {
    description: "The request id (the caller's X-Request-Id when short and plain, else a new UUID); it names the request in the logs.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'RateLimit-Limit': {
    description: "Requests allowed in a burst for the caller's tier (IETF RateLimit header fields draft).",
    schema: INT_TEXT,
  },
  'RateLimit-Remaining': { description: 'Requests left in the current burst.', schema: INT_TEXT },
  'RateLimit-Reset': { description: 'Seconds until the full burst is available again.', schema: INT_TEXT },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: INT_TEXT },
  ETag: {
    description: 'Changes exactly when the indexed tip (or the address) changes; send it back in If-None-Match.',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
  },
  'Cache-Control': { description: '`no-cache` on answers (revalidate with the ETag), `no-store` on errors.', schema: { type: 'string' } },
  Allow: { description: 'The methods this path serves.', schema: { enum: ['GET, HEAD', 'POST'] } },
  'WWW-Authenticate': { description: 'How to authenticate: the x-api-key header.', schema: { type: 'string' } },
  'X-Index-Age': {
    description: 'Seconds since the indexer last heard from its node (the answer is at most this stale; see api.staleAfterSeconds).',
    schema: INT_TEXT,
  },
  'X-Tip-Age': { description: "Seconds since the indexed tip block's header time (absent when unknown).", schema: INT_TEXT },
};

const LIMITS: HeaderName[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

const SCHEMAS: Json = {
  AddressSummary: {
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'address', 'balanceSatoshi', 'balance', 'utxoCount', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: ['BTC', 'LTC'], description: 'The chain in the path, upper case.' },
      address: { type: 'string', description: 'Canonical spelling: Litecoin P2SH as M…/Q…, bech32 lower case.' },
      balanceSatoshi: {
        type: 'integer',
        minimum: 0,
        maximum: 8_400_000_000_000_000,
        description: 'Confirmed balance at the indexed tip, in the smallest unit.',
      },
      balance: {
        type: 'number',
        minimum: 0,
        description: 'balanceSatoshi / 100,000,000, written with exactly 8 decimals (e.g. 0.00000123).',
      },
      utxoCount: { type: 'integer', minimum: 0 },
      unconfirmed: ref('schemas', 'Unconfirmed'),
      blockHeight: { type: 'integer', minimum: 0, description: 'Height of the indexed tip the answer is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  },
  Unconfirmed: {
    type: 'object',
    additionalProperties: false,
    required: ['balanceSatoshi', 'balance', 'utxoCount', 'txCount'],
    description:
      "Only with ?mempool=true: what the node's mempool changes. Confirmed + unconfirmed = what the address holds once the whole mempool is mined. " +
      'Deltas are negative when mempool transactions spend confirmed coins. MWEB-only transactions change nothing; peg-outs count only once mined.',
    properties: {
      balanceSatoshi: {
        type: 'integer',
        minimum: -8_400_000_000_000_000,
        maximum: 8_400_000_000_000_000,
        description: 'Δ balance, smallest unit; may be negative.',
      },
      balance: { type: 'number', description: 'balanceSatoshi / 100,000,000 with exactly 8 decimals; may be negative.' },
      utxoCount: { type: 'integer', description: 'Δ unspent outputs; may be negative.' },
      txCount: { type: 'integer', minimum: 0, description: 'Mempool transactions paying to or spending from the address.' },
    },
  },
  BatchResult: {
    description: 'Exactly the body the single address route answers for this entry: a summary or its fail body.',
    oneOf: [ref('schemas', 'AddressSuccess'), failSchema(['INVALID_ADDRESS', 'WRONG_NETWORK', 'WRONG_CHAIN', 'UNSUPPORTED_ADDRESS'])],
  },
  BatchSuccess: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'blockHeight', 'blockHash', 'results'],
    properties: {
      chain: { enum: ['BTC', 'LTC'] },
      blockHeight: { type: 'integer', minimum: 0, description: 'The one indexed tip every result is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      results: {
        type: 'array',
        items: ref('schemas', 'BatchResult'),
        description: 'One per input address, in input order (duplicates included).',
      },
    },
  }),
  AddressSuccess: successSchema(ref('schemas', 'AddressSummary')),
  ChainReadiness: {
    type: 'object',
    additionalProperties: false,
    required: [
      'chain',
      'network',
      'configured',
      'ready',
      'indexedHeight',
      'nodeHeight',
      'lag',
      'nodeSeenAt',
      'nodeSeenAgeSeconds',
      'tipTime',
      'tipAgeSeconds',
    ],
    properties: {
      chain: { enum: ['BTC', 'LTC'] },
      network: { enum: ['mainnet', 'testnet', 'regtest'] },
      configured: { type: 'boolean' },
      ready: { type: 'boolean' },
      indexedHeight: { type: ['integer', 'null'], minimum: 0 },
      nodeHeight: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'As last recorded by the indexer; null if it never reached the node.',
      },
      lag: { type: ['integer', 'null'], minimum: 0 },
      nodeSeenAt: { type: ['string', 'null'], format: 'date-time', description: 'When the indexer last heard from its node.' },
      nodeSeenAgeSeconds: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Seconds since nodeSeenAt; over api.staleAfterSeconds the chain is not ready.',
      },
      tipTime: {
        type: ['string', 'null'],
        format: 'date-time',
        description: "The indexed tip block's header time (null until a block is applied by this version).",
      },
      tipAgeSeconds: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Seconds since tipTime; over api.maxTipAgeSeconds (when set) the chain is not ready.',
      },
      reason: { type: 'string', description: 'Why the chain does not answer; absent when ready.' },
    },
  },
  Heights: {
    type: 'object',
    additionalProperties: false,
    required: ['indexedHeight', 'nodeHeight'],
    properties: { indexedHeight: { type: ['integer', 'null'], minimum: 0 }, nodeHeight: { type: ['integer', 'null'], minimum: 0 } },
  },
};

const internalError = response(
  'Unexpected failure; details are only in the server log under the request id.',
  errorSchema(['INTERNAL']),
  headers([], ['Cache-Control']),
);
const notAllowed = response(
  'Method not allowed (only GET and HEAD are served).',
  failSchema(['METHOD_NOT_ALLOWED']),
  headers(['Allow'], ['Cache-Control']),
);
const badRequest = response(
  'Malformed request (URL percent-encoding, HTTP syntax).',
  failSchema(['BAD_REQUEST']),
  headers([], ['Cache-Control']),
);

/** POST /api/v1/{chain}/addresses; every other method answers 405 with `Allow: POST`. */
function batchPathItem(): Json {
  const base = { tags: ['address'], security: [{ ApiKey: [] }, {}] };
  const notPost = response(
    'Method not allowed (this path serves POST only).',
    failSchema(['METHOD_NOT_ALLOWED']),
    headers(['Allow'], ['Cache-Control']),
  );
  const item: Json = {
    post: {
      ...base,
      operationId: 'getAddressSummaries',
      summary: 'Many address summaries in one read',
      description:
        "Checks, in order: chain, key, body, limits (one request of the caller's limit per address; a malformed body costs one), index state; " +
        "then one read for all addresses. A batch larger than the tier's burst never fits (429).",
      parameters: [
        { name: 'chain', in: 'path', required: true, description: 'BTC or LTC; lower case accepted.', schema: { type: 'string' } },
        {
          name: 'mempool',
          in: 'query',
          required: false,
          description: 'true adds `unconfirmed` to every summary.',
          schema: { enum: ['true', 'false', '1', '0'] },
        },
      ],
      requestBody: {
        required: true,
        description: 'Any content type is read as JSON. Size cap: max(64 KiB, 512 B × api.batchMaxAddresses).',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['addresses'],
              properties: {
                addresses: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 100,
                  items: { type: 'string' },
                  description: '1 to api.batchMaxAddresses (default 100) addresses.',
                },
              },
            },
          },
        },
      },
      responses: {
        200: response(
          'One result per input address, all at one tip.',
          ref('schemas', 'BatchSuccess'),
          headers([...LIMITS, 'Cache-Control']),
        ),
        400: response(
          'INVALID_JSON (not JSON), BODY_TOO_LARGE (over the size cap), INVALID_BATCH (not {"addresses": [1..max strings]}), BAD_REQUEST (mempool parameter, URL).',
          failSchema(['INVALID_JSON', 'INVALID_BATCH', 'BODY_TOO_LARGE', 'BAD_REQUEST']),
          headers([], [...LIMITS, 'Cache-Control']),
        ),
        401: response(
          'MISSING_API_KEY or INVALID_API_KEY.',
          failSchema(codesWithStatus(401)),
          headers(['WWW-Authenticate'], ['Cache-Control']),
        ),
        404: response(
          'UNKNOWN_CHAIN: the chain segment is not BTC or LTC (any case).',
          failSchema(['UNKNOWN_CHAIN']),
          headers([], ['Cache-Control']),
        ),
        429: response(
          "The batch does not fit in the caller's bucket (one token per address).",
          failSchema(['RATE_LIMITED']),
          headers(['Retry-After', ...LIMITS], ['Cache-Control']),
        ),
        500: internalError,
        503: response(
          'CHAIN_SYNCING (data: indexed and node heights) or CHAIN_UNAVAILABLE.',
          { oneOf: [errorSchema(['CHAIN_SYNCING'], ref('schemas', 'Heights')), errorSchema(['CHAIN_UNAVAILABLE'])] },
          headers(['Retry-After', ...LIMITS], ['Cache-Control']),
        ),
      },
    },
  };
  for (const method of ['get', 'head', 'put', 'delete', 'options', 'patch', 'trace']) {
    const r = method === 'head' ? { description: String(notPost.description), headers: notPost.headers } : notPost;
    item[method] = { ...base, summary: 'Not allowed', operationId: `getAddressSummaries_${method}`, responses: { 405: r } };
  }
  return item;
}

function addressResponses(): Json {
  const addressCodes: ErrorCode[] = ['INVALID_ADDRESS', 'WRONG_NETWORK', 'WRONG_CHAIN', 'UNSUPPORTED_ADDRESS', 'BAD_REQUEST'];
  return {
    200: response(
      'The address summary at the indexed tip (zeros for a valid address never seen).',
      ref('schemas', 'AddressSuccess'),
      headers(['ETag', ...LIMITS, 'Cache-Control'], ['X-Index-Age', 'X-Tip-Age']),
    ),
    304: response('Not modified: If-None-Match matched the current ETag. No body.', null, headers(['ETag', ...LIMITS], ['Cache-Control'])),
    400: response(
      'Not an address of this chain and network (code says which way), or a malformed URL.',
      failSchema(addressCodes),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    401: response(
      'MISSING_API_KEY (no x-api-key and anonymous access off) or INVALID_API_KEY (unknown, malformed or revoked).',
      failSchema(codesWithStatus(401)),
      headers(['WWW-Authenticate'], ['Cache-Control']),
    ),
    404: response(
      'UNKNOWN_CHAIN: the chain segment is not BTC or LTC (any case). NOT_FOUND: the address segment is empty.',
      failSchema(['UNKNOWN_CHAIN', 'NOT_FOUND']),
      headers([], ['Cache-Control']),
    ),
    429: response(
      "Over the tier's limit, or too many wrong keys from this client address (IPv6: its /64).",
      failSchema(['RATE_LIMITED']),
      headers(['Retry-After', ...LIMITS], ['Cache-Control']),
    ),
    500: internalError,
    503: response(
      'CHAIN_SYNCING (data: indexed and node heights); CHAIN_UNAVAILABLE (chain not configured, index not created yet, or not fresh: ' +
        'the indexer has not heard from its node within api.staleAfterSeconds, data then carries the ages); INDEX_DAMAGED (the index ' +
        'file cannot be read: restore it or re-index; answers resume without a restart); KEYS_UNAVAILABLE (keys.sqlite cannot be read); ' +
        'LIMITS_UNAVAILABLE (Redis unreachable with fail-closed limits). KEYS_UNAVAILABLE and LIMITS_UNAVAILABLE come before any bucket ' +
        'was read, so they have no RateLimit headers.',
      {
        oneOf: [
          errorSchema(['CHAIN_SYNCING'], ref('schemas', 'Heights')),
          errorSchema(['CHAIN_UNAVAILABLE', 'INDEX_DAMAGED', 'KEYS_UNAVAILABLE', 'LIMITS_UNAVAILABLE']),
        ],
      },
      headers(['Retry-After'], [...LIMITS, 'Cache-Control']),
    ),
  };
}

/** HEAD answers: the GET responses without bodies. */
function withoutBodies(responses: Json): Json {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const { content: _content, ...rest } = r as Json;
      return [status, rest];
    }),
  );
}

function pathItem(tag: string, summary: string, get: Json, security?: Json[]): Json {
  const base = security ? { tags: [tag], security } : { tags: [tag], security: [] };
  const responses = get.responses as Json;
  const item: Json = {
    get: { ...base, summary, ...get },
    head: {
      ...base,
      summary: `${summary} (headers only)`,
      ...get,
      operationId: `${String(get.operationId)}Head`,
      responses: withoutBodies(responses),
    },
  };
  for (const method of OTHER_METHODS) {
    item[method] = { ...base, summary: 'Not allowed', operationId: `${String(get.operationId)}_${method}`, responses: { 405: notAllowed } };
  }
  return item;
}

function opsResponses(ok: Json, extra: Json = {}): Json {
  return { 200: ok, ...extra, 500: internalError };
}

export function openApiDocument(): Json {
  const readyList = { type: 'array', items: ref('schemas', 'ChainReadiness') };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'addrsum',
      version: '1.0.0',
      description:
        'Balance and UTXO count of a Bitcoin or Litecoin address from a self-hosted index. Responses are JSend: ' +
        '`fail` ({status, data: {code, message}}) for 4xx, `error` ({status, code, message, data?}) for 5xx. ' +
        'Any path not listed answers 404 NOT_FOUND (components/responses/NotFound); a request the HTTP parser ' +
        'refuses answers 400 BAD_REQUEST, 408 REQUEST_TIMEOUT or 431 HEADERS_TOO_LARGE with the same envelope. ' +
        'API keys start with the fixed prefix `asum_`.',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'address' }, { name: 'operations' }],
    paths: {
      '/api/v1/{chain}/address/{address}': pathItem(
        'address',
        'Address summary',
        {
          operationId: 'getAddressSummary',
          description: 'Checks, in order: method, chain, key, limits, address, index state; then one indexed read.',
          parameters: [
            { name: 'chain', in: 'path', required: true, description: 'BTC or LTC; lower case accepted.', schema: { type: 'string' } },
            {
              name: 'address',
              in: 'path',
              required: true,
              description: 'An address of that chain (Litecoin 3… and M… name the same script).',
              schema: { type: 'string' },
            },
            {
              name: 'If-None-Match',
              in: 'header',
              required: false,
              description: 'An ETag from an earlier answer.',
              schema: { type: 'string' },
            },
            {
              name: 'mempool',
              in: 'query',
              required: false,
              description:
                "true (or 1) adds `unconfirmed` (the node's mempool, as followed by the indexer); the ETag then also covers it. Absent or false: the confirmed answer, unchanged. Anything else: 400 BAD_REQUEST.",
              schema: { enum: ['true', 'false', '1', '0'] },
            },
          ],
          responses: addressResponses(),
        },
        [{ ApiKey: [] }, {}],
      ),
      '/api/v1/{chain}/addresses': batchPathItem(),
      '/health': pathItem('operations', 'Process is alive', {
        operationId: 'health',
        responses: opsResponses(
          response(
            'Alive.',
            successSchema({
              type: 'object',
              additionalProperties: false,
              required: ['status', 'uptimeSeconds'],
              properties: { status: { const: 'ok' }, uptimeSeconds: { type: 'integer', minimum: 0 } },
            }),
            headers([], ['Cache-Control']),
          ),
        ),
      }),
      '/ready': pathItem('operations', 'Every configured chain answers', {
        operationId: 'ready',
        responses: opsResponses(
          response(
            'All configured chains answer.',
            successSchema({
              type: 'object',
              additionalProperties: false,
              required: ['ready', 'chains'],
              properties: { ready: { const: true }, chains: readyList },
            }),
            headers([], ['Cache-Control']),
          ),
          {
            503: response(
              'Some configured chain does not answer, or none is configured.',
              errorSchema(['NOT_READY'], {
                type: 'object',
                additionalProperties: false,
                required: ['ready', 'chains'],
                properties: { ready: { const: false }, chains: readyList },
              }),
              headers([], ['Cache-Control']),
            ),
          },
        ),
      }),
      '/metrics': pathItem('operations', 'Prometheus metrics', {
        operationId: 'metrics',
        responses: opsResponses({
          description: 'Prometheus text exposition format.',
          headers: headers([], ['Cache-Control']),
          content: { 'text/plain': { schema: { type: 'string' } } },
        }),
      }),
      '/openapi.json': pathItem('operations', 'This document', {
        operationId: 'openapi',
        responses: opsResponses(
          response('OpenAPI 3.1 document.', { type: 'object', required: ['openapi', 'paths'] }, headers([], ['Cache-Control'])),
        ),
      }),
    },
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'A key from `npm run keys -- create`: `asum_` + 43 base62 characters. Optional only when anonymous access is enabled.',
        },
      },
      schemas: SCHEMAS,
      headers: HEADERS,
      responses: {
        NotFound: response('No such path.', failSchema(['NOT_FOUND']), headers([], ['Cache-Control'])),
        BadRequest: badRequest,
        RequestTimeout: response('The request was not received in time.', failSchema(['REQUEST_TIMEOUT']), headers([])),
        HeadersTooLarge: response("Request line or headers exceed the server's limit.", failSchema(['HEADERS_TOO_LARGE']), headers([])),
        MethodNotAllowed: notAllowed,
        InternalError: internalError,
      },
    },
  };
}
