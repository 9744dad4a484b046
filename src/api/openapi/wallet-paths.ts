/**
 * The wallet paths: GET /api/v1/{chain}/scripthash/{hash} (one script by its Electrum scripthash) and
 * the xpub routes (a wallet's derived scripts summed in one read).
 */
import { WALLET_ERROR_CODES } from '../../wallet/errors.js';
import type { ErrorCode } from '../../serving/errors.js';
import {
  CHAIN_PATH_PARAM,
  IF_NONE_MATCH_PARAM,
  KEY_AND_CHAIN_FAILURES,
  MEMPOOL_PARAM,
  notReady,
  postOnlyPathItem,
  summaryResponses,
} from './address-paths.js';
import { failSchema, headers, internalError, LIMITS, pathItem, ref, response, type Json } from './build.js';

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
        CHAIN_PATH_PARAM,
        {
          name: 'hash',
          in: 'path',
          required: true,
          description: 'SHA-256 of the scriptPubKey, byte-reversed, as 64 hex digits (Electrum protocol).',
          schema: { type: 'string' },
        },
        IF_NONE_MATCH_PARAM,
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

const WALLET_CODES: ErrorCode[] = [...WALLET_ERROR_CODES, 'BAD_REQUEST'];

const WALLET_QUERY: Json[] = [
  {
    name: 'range',
    in: 'query',
    required: false,
    description:
      'Indices 0 … range-1 of every branch, as in scantxoutset (default 1000, at most api.xpubMaxRange). There is no gap limit: ' +
      'the index holds unspent outputs only, so it cannot tell an emptied address from a never-used one.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'details',
    in: 'query',
    required: false,
    description: 'funded adds `addresses`: every derived script holding coins (with mempool=true also those the mempool touches).',
    schema: { const: 'funded' },
  },
  {
    ...MEMPOOL_PARAM,
    description: 'true adds `unconfirmed`: the sums of the scripts’ mempool deltas (and per entry with details=funded).',
  },
];

function walletResponses(): Json {
  return {
    200: response(
      'The wallet summary at the indexed tip: every derived script read in one snapshot.',
      ref('schemas', 'WalletSuccess'),
      headers([...LIMITS, 'Cache-Control'], ['X-Index-Age', 'X-Tip-Age']),
    ),
    400: response(
      'PRIVATE_KEY_REFUSED (xprv/tprv, WIF or a descriptor holding one; never echoed or logged), BAD_CHECKSUM, WRONG_NETWORK, ' +
        'HARDENED_BELOW_XPUB, RANGE_TOO_LARGE (past api.xpubMaxRange), BAD_RANGE, MALFORMED_DESCRIPTOR; INVALID_JSON and ' +
        'BODY_TOO_LARGE (POST body); BAD_REQUEST (body shape, query parameters, URL). Messages never quote the key.',
      failSchema([...WALLET_CODES, 'INVALID_JSON', 'BODY_TOO_LARGE']),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    ...KEY_AND_CHAIN_FAILURES,
    429: response(
      "Over the tier's limit: a wallet request takes one token per 200 key derivations (keys × scripts, at least one per " +
        'script and one in all), charged before any derivation; a price above the burst is taken from a full bucket and repaid ' +
        "at the tier's rate. Also when the caller's own wallets already queued would make this one wait past api.walletMaxWaitSeconds.",
      failSchema(['RATE_LIMITED']),
      headers(['Retry-After', ...LIMITS], ['Cache-Control']),
    ),
    500: internalError,
    503: notReady(
      'CHAIN_SYNCING (data: indexed and node heights), CHAIN_UNAVAILABLE or INDEX_DAMAGED, as on the address route; ' +
        "WALLETS_BUSY when other callers' queued derivations would make this wallet wait past api.walletMaxWaitSeconds (Retry-After).",
      ['WALLETS_BUSY'],
    ),
  };
}

const XPUB_TEXT =
  'An extended public key (xpub/tpub → pkh, ypub/upub → sh(wpkh), zpub/vpub → wpkh, and the chain’s own prefixes; both branches /0/* and /1/*) ' +
  'or an output descriptor (pkh, wpkh, sh(wpkh), tr key path, sh/wsh with multi/sortedmulti, addr, raw; key origins; multipath <0;1>; ' +
  'a BIP380 checksum is checked when present).';

/** GET (and HEAD) /api/v1/{chain}/xpub/{key}; other methods answer 405. */
export function xpubPathItem(): Json {
  return pathItem(
    'wallet',
    'Wallet summary of an extended key or descriptor',
    {
      operationId: 'getWalletSummary',
      description:
        'Checks, in order: chain, key, wallet input, limits, index state; then one read of every derived script. ' +
        'The POST form keeps the key out of URLs and proxy logs.',
      parameters: [
        CHAIN_PATH_PARAM,
        { name: 'key', in: 'path', required: true, description: `${XPUB_TEXT} URL-encoded.`, schema: { type: 'string' } },
        ...WALLET_QUERY,
      ],
      responses: walletResponses(),
    },
    [{ ApiKey: [] }, {}],
  );
}

/** The JSON body of a wallet POST (the summary's and the wallet pages'): the key, and optionally the range. */
export const WALLET_BODY: Json = {
  required: true,
  description: 'Any content type is read as JSON; at most 16 KiB.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['key'],
        properties: {
          key: { type: 'string', description: XPUB_TEXT },
          range: { type: 'integer', minimum: 1, description: 'As ?range= (default 1000); not both.' },
        },
      },
    },
  },
};

/** POST /api/v1/{chain}/xpub; every other method answers 405 with `Allow: POST`. */
export function xpubPostPathItem(): Json {
  return postOnlyPathItem('wallet', {
    operationId: 'postWalletSummary',
    summary: 'Wallet summary, the key in the body',
    description: 'As GET /api/v1/{chain}/xpub/{key}, with the key (and optionally the range) in a JSON body.',
    parameters: [CHAIN_PATH_PARAM, ...WALLET_QUERY.slice(1)],
    requestBody: WALLET_BODY,
    responses: walletResponses(),
  });
}
