/**
 * The wallet paths: GET /api/v1/{chain}/scripthash/{hash} (one script by its Electrum scripthash) and
 * the xpub routes (a wallet's derived scripts summed in one read).
 */
import { CHAIN_PARAM_TEXT, MEMPOOL_PARAM, summaryResponses } from './address-paths.js';
import { pathItem, type Json } from './build.js';

/** GET (and HEAD) /api/v1/{chain}/scripthash/{hash}; other methods answer 405. */
export function scripthashPathItem(): Json {
  return pathItem(
    'address',
    'Script summary by Electrum scripthash',
    {
      operationId: 'getScripthashSummary',
      description:
        "The address route's answer for a script named by its Electrum scripthash, with `scripthash` in place of `address`: " +
        'how P2PK, bare multisig and non-standard outputs are asked for. Checks, in order: method, chain, key, limits, hash, index state.',
      parameters: [
        { name: 'chain', in: 'path', required: true, description: CHAIN_PARAM_TEXT, schema: { type: 'string' } },
        {
          name: 'hash',
          in: 'path',
          required: true,
          description: 'SHA-256 of the scriptPubKey, byte-reversed, as 64 hex digits (Electrum protocol).',
          schema: { type: 'string' },
        },
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An ETag from an earlier answer.',
          schema: { type: 'string' },
        },
        MEMPOOL_PARAM,
      ],
      responses: summaryResponses({
        success: 'ScripthashSuccess',
        summary: 'The script summary at the indexed tip (zeros for a script never seen).',
        codes: ['INVALID_SCRIPTHASH', 'BAD_REQUEST'],
        badRequest: 'INVALID_SCRIPTHASH (not 64 hex digits), BAD_REQUEST (mempool parameter, URL).',
        segment: 'hash',
      }),
    },
    [{ ApiKey: [] }, {}],
  );
}
