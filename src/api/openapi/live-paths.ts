/**
 * The live paths: GET /api/v1/{chain}/address/{address}/events (Server-Sent Events) and the WebSocket
 * /api/v1/ws (its messages are in docs/api.md; OpenAPI describes only the upgrade's HTTP answers).
 */
import { ADDRESS_ANSWER, summaryResponses } from './address-paths.js';
import { codesWithStatus, failSchema, headers, internalError, response, type Json } from './build.js';

export function eventsPathItem(): Json {
  const { 200: _ok, 304: _notModified, 429: _limited, ...errors } = summaryResponses(ADDRESS_ANSWER) as Record<string, Json>;
  return {
    get: {
      tags: ['address'],
      security: [{ ApiKey: [] }, {}],
      summary: 'Address summary as Server-Sent Events',
      operationId: 'getAddressEvents',
      description:
        'The checks of the address route, answered before the stream starts; then `event: summary` frames whose data is the ' +
        "address route's body `data`, at once and whenever the summary changes (a block, a reorg, with mempool=true a mempool " +
        "change). Each frame's `id` is the change-feed position; Last-Event-ID resumes (no first frame when nothing changed).",
      parameters: [
        { name: 'chain', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'address', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'mempool', in: 'query', required: false, schema: { enum: ['true', 'false', '1', '0'] } },
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+$' } },
      ],
      responses: {
        200: { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errors,
        429: response(
          "RATE_LIMITED: over the tier's request limit; TOO_MANY_SUBSCRIPTIONS: past the tier's live subscriptions per key (api.live).",
          failSchema(['RATE_LIMITED', 'TOO_MANY_SUBSCRIPTIONS']),
          headers(['Retry-After'], ['Cache-Control']),
        ),
      },
    },
  };
}

export function wsPathItem(): Json {
  return {
    get: {
      tags: ['address'],
      security: [{ ApiKey: [] }, {}],
      summary: 'WebSocket of live address, scripthash and wallet summaries and tips',
      operationId: 'liveWebSocket',
      description:
        'Upgrade to a WebSocket (docs/api.md: auth, subscribe and unsubscribe ops, summary and tip events, close codes). ' +
        'A subscribe lists `addresses`, `scripthashes` (Electrum) and `xpubs` ({"key","range"} or a bare key); each ' +
        "`summary` event's data is the matching GET route's answer (the xpub route's without details). A wallet counts " +
        'one subscription per 200 derived scripts against the per-connection and per-key caps, checked before anything is ' +
        "derived; a subscribe's wallets are then charged to the caller's token bucket as the xpub route charges them. " +
        'A key in x-api-key is checked before the upgrade; without one, send {"op":"auth","key":…} within 10 s.',
      responses: {
        101: { description: 'Switching protocols.' },
        401: response(
          'INVALID_API_KEY: the x-api-key sent is unknown, malformed or revoked.',
          failSchema(codesWithStatus(401)),
          headers([], []),
        ),
        403: response(
          'ORIGIN_NOT_ALLOWED: a browser page from an origin not in api.corsOrigins.',
          failSchema(['ORIGIN_NOT_ALLOWED']),
          headers([], []),
        ),
        429: response(
          'RATE_LIMITED: too many wrong keys from this client address.',
          failSchema(['RATE_LIMITED']),
          headers(['Retry-After'], []),
        ),
        500: internalError,
      },
    },
  };
}
