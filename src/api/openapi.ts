/**
 * OpenAPI 3.1 description of the whole HTTP surface: every path, method, status, header and body the app
 * can produce. The test suite validates every response it sees against this document, so the document
 * and the code cannot drift apart silently. Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect).
 * The parts live in ./openapi/: building blocks, body schemas, the address paths.
 */
import { chainName, CHAIN_CODES } from '../chain/params.js';
import { addressPathItem, batchPathItem } from './openapi/address-paths.js';
import { scripthashPathItem, xpubPathItem, xpubPostPathItem } from './openapi/wallet-paths.js';
import { eventsPathItem, wsPathItem } from './openapi/live-paths.js';
import {
  badRequest,
  errorSchema,
  failSchema,
  HEADERS,
  headers,
  internalError,
  notAllowed,
  opsResponses,
  pathItem,
  ref,
  response,
  successSchema,
  type Json,
} from './openapi/build.js';
import { SCHEMAS } from './openapi/schemas.js';
import { CHAIN_OBJECT_SCHEMAS } from './openapi/chain-object-schemas.js';
import {
  blockPathItem,
  blockTxidsPathItem,
  tipPathItem,
  txHexPathItem,
  txMerklePathItem,
  txOutspendsPathItem,
  txPathItem,
} from './openapi/chain-object-paths.js';
import { addressUtxosPathItem, scripthashUtxosPathItem, UTXO_SCHEMAS, xpubUtxosPathItem } from './openapi/utxo-paths.js';
import {
  addressTransactionsPathItem,
  HISTORY_SCHEMAS,
  scripthashTransactionsPathItem,
  xpubTransactionsPathItem,
  xpubTransactionsPostPathItem,
} from './openapi/history-paths.js';

export function openApiDocument(): Json {
  const readyList = { type: 'array', items: ref('schemas', 'ChainReadiness') };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'addrsum',
      version: '1.0.0',
      description:
        `Balance and UTXO count of a ${CHAIN_CODES.map(chainName).join(' or ')} address from a self-hosted index. Responses are JSend: ` +
        '`fail` ({status, data: {code, message}}) for 4xx, `error` ({status, code, message, data?}) for 5xx. ' +
        'Any path not listed answers 404 NOT_FOUND (components/responses/NotFound); a request the HTTP parser ' +
        'refuses answers 400 BAD_REQUEST, 408 REQUEST_TIMEOUT or 431 HEADERS_TOO_LARGE with the same envelope. ' +
        'API keys start with the fixed prefix `asum_`.',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'address' }, { name: 'wallet' }, { name: 'transactions' }, { name: 'blocks' }, { name: 'operations' }],
    paths: {
      '/api/v1/{chain}/address/{address}': addressPathItem(),
      '/api/v1/{chain}/addresses': batchPathItem(),
      '/api/v1/{chain}/scripthash/{hash}': scripthashPathItem(),
      '/api/v1/{chain}/address/{address}/utxos': addressUtxosPathItem(),
      '/api/v1/{chain}/scripthash/{hash}/utxos': scripthashUtxosPathItem(),
      '/api/v1/{chain}/xpub/{key}/utxos': xpubUtxosPathItem(),
      '/api/v1/{chain}/address/{address}/transactions': addressTransactionsPathItem(),
      '/api/v1/{chain}/scripthash/{hash}/transactions': scripthashTransactionsPathItem(),
      '/api/v1/{chain}/xpub/{key}/transactions': xpubTransactionsPathItem(),
      '/api/v1/{chain}/xpub/transactions': xpubTransactionsPostPathItem(),
      '/api/v1/{chain}/xpub/{key}': xpubPathItem(),
      '/api/v1/{chain}/xpub': xpubPostPathItem(),
      '/api/v1/{chain}/tx/{txid}': txPathItem(),
      '/api/v1/{chain}/tx/{txid}/hex': txHexPathItem(),
      '/api/v1/{chain}/tx/{txid}/merkle-proof': txMerklePathItem(),
      '/api/v1/{chain}/tx/{txid}/outspends': txOutspendsPathItem(),
      '/api/v1/{chain}/block/{id}': blockPathItem(),
      '/api/v1/{chain}/block/{id}/txids': blockTxidsPathItem(),
      '/api/v1/{chain}/blocks/tip': tipPathItem(),
      '/api/v1/{chain}/address/{address}/events': eventsPathItem(),
      '/api/v1/ws': wsPathItem(),
      '/': pathItem('operations', 'Status page (HTML; its script and style are under /status-page/)', {
        operationId: 'statusPage',
        description:
          'Per chain: indexed height and hash, node height, lag, tip age, sync state, mempool size; an address lookup. Sent with a Content-Security-Policy.',
        // 404: a build that did not copy the page's files (tsc alone, not `npm run build`).
        responses: opsResponses(
          { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
          { 404: response('NOT_FOUND: this build has no status page.', failSchema(['NOT_FOUND']), headers([], ['Cache-Control'])) },
        ),
      }),
      '/status/events': {
        get: {
          tags: ['operations'],
          security: [],
          summary: 'Status as Server-Sent Events',
          operationId: 'statusEvents',
          description:
            '`event: status` frames whose data is `{version, chains}` (chains: the /ready rows of the chains served), at once, on every new tip and every 5 s. ' +
            'At most 4 streams per client network (IPv4 address, IPv6 /64) at once.',
          responses: opsResponses(
            { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            {
              429: response(
                'RATE_LIMITED: this client network holds its 4 status streams already.',
                failSchema(['RATE_LIMITED']),
                headers(['Retry-After'], ['Cache-Control']),
              ),
            },
          ),
        },
      },
      '/health': pathItem('operations', 'Process is alive', {
        operationId: 'health',
        responses: opsResponses(
          response(
            'Alive.',
            successSchema({
              type: 'object',
              additionalProperties: false,
              required: ['status', 'uptimeSeconds'],
              properties: {
                status: { const: 'ok' },
                uptimeSeconds: { type: 'integer', minimum: 0 },
                version: { type: 'string', description: 'The addrsum release this process runs.' },
              },
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
              'Some configured chain does not answer, none is configured, or keyed requests cannot be served (keys database unreadable; limits fail-closed and Redis unreachable).',
              errorSchema(['NOT_READY'], {
                type: 'object',
                additionalProperties: false,
                required: ['ready', 'chains'],
                properties: {
                  ready: { const: false },
                  chains: readyList,
                  problems: { type: 'array', items: { type: 'string' }, description: 'Why keyed requests cannot be served now.' },
                },
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
            'A key from `addrsum-keys create` (`npm run keys -- create` in a checkout): `asum_` + 43 base62 characters. Optional only when anonymous access is enabled.',
        },
      },
      schemas: { ...SCHEMAS, ...UTXO_SCHEMAS, ...HISTORY_SCHEMAS, ...CHAIN_OBJECT_SCHEMAS },
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
