/**
 * The address paths: GET /api/v1/{chain}/address/{address} and POST /api/v1/{chain}/addresses, with
 * every answer they can give. The chain list in the texts is the registry's.
 */
import { CHAIN_CODES } from '../../chain/params.js';
import type { ErrorCode } from '../../serving/errors.js';
import { codesWithStatus, errorSchema, failSchema, headers, internalError, LIMITS, pathItem, ref, response, type Json } from './build.js';

export const CHAIN_PARAM_TEXT = `${CHAIN_CODES.join(' or ')}; lower case accepted.`;

/** The `{chain}` segment every chain route starts with. */
export const CHAIN_PATH_PARAM: Json = {
  name: 'chain',
  in: 'path',
  required: true,
  description: CHAIN_PARAM_TEXT,
  schema: { type: 'string' },
};
export const UNKNOWN_CHAIN_TEXT = `UNKNOWN_CHAIN: the chain segment is not ${CHAIN_CODES.join(' or ')} (any case).`;

/** The 503 of a route that reads an index: `description` says which codes it gives and when. */
export function notReady(description: string, more: readonly ErrorCode[] = [], variants: readonly Json[] = []): Json {
  return response(
    description,
    {
      oneOf: [
        errorSchema(['CHAIN_SYNCING'], ref('schemas', 'Heights')),
        errorSchema(['CHAIN_UNAVAILABLE', 'INDEX_DAMAGED', 'KEYS_UNAVAILABLE', 'LIMITS_UNAVAILABLE', ...more]),
        ...variants,
      ],
    },
    headers(['Retry-After'], [...LIMITS, 'Cache-Control']),
  );
}

/** The 405 of a POST-only path (every other method, with `Allow: POST`). */
export const POST_ONLY: Json = response(
  'Method not allowed (this path serves POST only).',
  failSchema(['METHOD_NOT_ALLOWED']),
  headers(['Allow'], ['Cache-Control']),
);

/** A path that serves POST only: `post` (its operationId names the 405s too), and 405 with `Allow: POST` for every other method. */
export function postOnlyPathItem(tag: string, post: Json): Json {
  const base = { tags: [tag], security: [{ ApiKey: [] }, {}] };
  const item: Json = { post: { ...base, ...post } };
  for (const method of ['get', 'head', 'put', 'delete', 'options', 'patch', 'trace']) {
    const r = method === 'head' ? { description: String(POST_ONLY.description), headers: POST_ONLY.headers } : POST_ONLY;
    item[method] = { ...base, summary: 'Not allowed', operationId: `${String(post.operationId)}_${method}`, responses: { 405: r } };
  }
  return item;
}

/** The 401 and 404 answers of every keyed chain route. */
export const KEY_AND_CHAIN_FAILURES: Json = {
  401: response('MISSING_API_KEY or INVALID_API_KEY.', failSchema(codesWithStatus(401)), headers(['WWW-Authenticate'], ['Cache-Control'])),
  404: response(UNKNOWN_CHAIN_TEXT, failSchema(['UNKNOWN_CHAIN']), headers([], ['Cache-Control'])),
};

/** POST /api/v1/{chain}/addresses; every other method answers 405 with `Allow: POST`. */
export function batchPathItem(): Json {
  return postOnlyPathItem('address', {
    operationId: 'getAddressSummaries',
    summary: 'Many address summaries in one read',
    description:
      "Checks, in order: chain, key, body, limits (one request of the caller's limit per address; a malformed body costs one), index state; " +
      "then one read for all addresses. A batch larger than the tier's burst never fits (429).",
    parameters: [
      CHAIN_PATH_PARAM,
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
      200: response('One result per input address, all at one tip.', ref('schemas', 'BatchSuccess'), headers([...LIMITS, 'Cache-Control'])),
      400: response(
        'INVALID_JSON (not JSON), BODY_TOO_LARGE (over the size cap), INVALID_BATCH (not {"addresses": [1..max strings]}), BAD_REQUEST (mempool parameter, URL).',
        failSchema(['INVALID_JSON', 'INVALID_BATCH', 'BODY_TOO_LARGE', 'BAD_REQUEST']),
        headers([], [...LIMITS, 'Cache-Control']),
      ),
      ...KEY_AND_CHAIN_FAILURES,
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
  });
}

export const IF_NONE_MATCH_PARAM: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier answer.',
  schema: { type: 'string' },
};

export const MEMPOOL_PARAM: Json = {
  name: 'mempool',
  in: 'query',
  required: false,
  description:
    "true (or 1) adds `unconfirmed` (the node's mempool, as followed by the indexer); the ETag then also covers it. Absent or false: the confirmed answer, unchanged. Anything else: 400 BAD_REQUEST.",
  schema: { enum: ['true', 'false', '1', '0'] },
};

export interface SummaryAnswer {
  readonly success: string;
  readonly summary: string;
  readonly codes: ErrorCode[];
  readonly badRequest: string;
  readonly segment: string;
}

export const ADDRESS_ANSWER: SummaryAnswer = {
  success: 'AddressSuccess',
  summary: 'The address summary at the indexed tip (zeros for a valid address never seen).',
  codes: ['INVALID_ADDRESS', 'WRONG_NETWORK', 'WRONG_CHAIN', 'UNSUPPORTED_ADDRESS', 'BAD_REQUEST'],
  badRequest: 'Not an address of this chain and network (code says which way), or a malformed URL.',
  segment: 'address',
};

/** The answers of a one-script GET route: the address route's, or the scripthash route's (`answer` says which). */
export function summaryResponses(answer: SummaryAnswer): Json {
  return {
    200: response(
      answer.summary,
      ref('schemas', answer.success),
      headers(['ETag', ...LIMITS, 'Cache-Control'], ['X-Index-Age', 'X-Tip-Age']),
    ),
    304: response('Not modified: If-None-Match matched the current ETag. No body.', null, headers(['ETag', ...LIMITS], ['Cache-Control'])),
    400: response(answer.badRequest, failSchema(answer.codes), headers([], [...LIMITS, 'Cache-Control'])),
    401: response(
      'MISSING_API_KEY (no x-api-key and anonymous access off) or INVALID_API_KEY (unknown, malformed or revoked).',
      failSchema(codesWithStatus(401)),
      headers(['WWW-Authenticate'], ['Cache-Control']),
    ),
    404: response(
      `${UNKNOWN_CHAIN_TEXT} NOT_FOUND: the ${answer.segment} segment is empty.`,
      failSchema(['UNKNOWN_CHAIN', 'NOT_FOUND']),
      headers([], ['Cache-Control']),
    ),
    429: response(
      "Over the tier's limit, or too many wrong keys from this client address (IPv6: its /64).",
      failSchema(['RATE_LIMITED']),
      headers(['Retry-After', ...LIMITS], ['Cache-Control']),
    ),
    500: internalError,
    503: notReady(
      'CHAIN_SYNCING (data: indexed and node heights); CHAIN_UNAVAILABLE (chain not configured, index not created yet, or not fresh: ' +
        'the indexer has not heard from its node within api.staleAfterSeconds, data then carries the ages); INDEX_DAMAGED (the index ' +
        'file cannot be read: restore it or re-index; answers resume without a restart); KEYS_UNAVAILABLE (keys.sqlite cannot be read); ' +
        'LIMITS_UNAVAILABLE (Redis unreachable with fail-closed limits). KEYS_UNAVAILABLE and LIMITS_UNAVAILABLE come before any bucket ' +
        'was read, so they have no RateLimit headers.',
    ),
  };
}

/** GET (and HEAD) /api/v1/{chain}/address/{address}; other methods answer 405. */
export function addressPathItem(): Json {
  return pathItem(
    'address',
    'Address summary',
    {
      operationId: 'getAddressSummary',
      description: 'Checks, in order: method, chain, key, limits, address, index state; then one indexed read.',
      parameters: [
        CHAIN_PATH_PARAM,
        {
          name: 'address',
          in: 'path',
          required: true,
          description: 'An address of that chain (Litecoin 3… and M… name the same script).',
          schema: { type: 'string' },
        },
        IF_NONE_MATCH_PARAM,
        MEMPOOL_PARAM,
      ],
      responses: summaryResponses(ADDRESS_ANSWER),
    },
    [{ ApiKey: [] }, {}],
  );
}
