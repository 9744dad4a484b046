/**
 * The transaction and block paths (routes/tx.ts, routes/blocks.ts); their answers' schemas are
 * chain-object-schemas.ts's.
 */
import type { ErrorCode } from '../../serving/errors.js';
import { CHAIN_PATH_PARAM, notReady, UNKNOWN_CHAIN_TEXT } from './address-paths.js';
import { codesWithStatus, errorSchema, failSchema, headers, internalError, LIMITS, pathItem, ref, response, type Json } from './build.js';
import { HASH } from './chain-object-schemas.js';

const TXID_PARAM: Json = { name: 'txid', in: 'path', required: true, description: 'A txid, 64 hex digits.', schema: { type: 'string' } };
const BLOCK_ID_PARAM: Json = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'A block height (decimal) or a block hash (64 hex digits) of the indexed chain.',
  schema: { type: 'string' },
};

/** The responses of every transaction and block route; `codes400` what its path and query fail with. */
function viewResponses(success: string, codes400: ErrorCode[], notFound: ErrorCode[], withHistory: boolean): Json {
  const more503: ErrorCode[] = ['NODE_UNAVAILABLE', 'BLOCK_PRUNED'];
  const history = withHistory
    ? ' HISTORY_DISABLED: the index keeps no history (chains.<C>.history, ADDRSUM_HISTORY), which knows every transaction’s block.'
    : '';
  return {
    200: response(
      'The answer, true at the indexed tip.',
      ref('schemas', success),
      headers([...LIMITS, 'Cache-Control'], ['X-Index-Age', 'X-Tip-Age']),
    ),
    400: response(`${codes400.join(', ')}.`, failSchema(codes400), headers([], [...LIMITS, 'Cache-Control'])),
    401: response(
      'MISSING_API_KEY or INVALID_API_KEY.',
      failSchema(codesWithStatus(401)),
      headers(['WWW-Authenticate'], ['Cache-Control']),
    ),
    404: response(
      `${UNKNOWN_CHAIN_TEXT} ${notFound.join(', ')}: no such thing in the indexed chain (or the node's mempool, for a transaction). NODE_NOT_CONFIGURED: this server has no node for the chain (chains.<C>.rpcUrl).${history}`,
      failSchema([
        'UNKNOWN_CHAIN',
        'NOT_FOUND',
        'NODE_NOT_CONFIGURED',
        ...notFound,
        ...(withHistory ? (['HISTORY_DISABLED'] as ErrorCode[]) : []),
      ]),
      headers([], [...LIMITS, 'Cache-Control']),
    ),
    429: response("Over the tier's limit.", failSchema(['RATE_LIMITED']), headers(['Retry-After', ...LIMITS], ['Cache-Control'])),
    500: internalError,
    503: notReady(
      'CHAIN_SYNCING, CHAIN_UNAVAILABLE or INDEX_DAMAGED, as on the address route; NODE_UNAVAILABLE when the node did not answer; BLOCK_PRUNED (data: blockHash, height) when the node has pruned the block needed' +
        (withHistory ? '; HISTORY_BUILDING while history is being built.' : '.'),
      withHistory ? [...more503, 'HISTORY_BUILDING'] : more503,
      [
        errorSchema(['BLOCK_PRUNED'], {
          type: 'object',
          additionalProperties: false,
          required: ['blockHash', 'height'],
          properties: { blockHash: HASH, height: { type: 'integer', minimum: 0 } },
        }),
        ...(withHistory ? [errorSchema(['HISTORY_BUILDING'], { type: 'object', required: ['builtHeight', 'tipHeight', 'percent'] })] : []),
      ],
    ),
  };
}

const KEYED = [{ ApiKey: [] }, {}];
const TX_TEXT =
  'Read from the node without -txindex: the index knows every confirmed transaction’s block (history), the node’s mempool the others. Checks, in order: method, chain, key, limits, txid, index state, history.';

export function txPathItem(): Json {
  return pathItem(
    'transactions',
    'A transaction, decoded, with the output each input spends and its fee',
    {
      operationId: 'getTransaction',
      description: `${TX_TEXT} Beyond the first 25 funding transactions, one more token per 25, and beyond the first 100 outputs one more per 100, is taken before they are read.`,
      parameters: [CHAIN_PATH_PARAM, TXID_PARAM],
      responses: viewResponses('Transaction', ['INVALID_TXID'], ['TX_NOT_FOUND'], true),
    },
    KEYED,
  );
}

export function txHexPathItem(): Json {
  return pathItem(
    'transactions',
    'A transaction in the raw form the node holds',
    {
      operationId: 'getTransactionHex',
      description: TX_TEXT,
      parameters: [CHAIN_PATH_PARAM, TXID_PARAM],
      responses: viewResponses('TransactionHex', ['INVALID_TXID'], ['TX_NOT_FOUND'], true),
    },
    KEYED,
  );
}

export function txOutspendsPathItem(): Json {
  return pathItem(
    'transactions',
    'What spent each output of a transaction',
    {
      operationId: 'getTransactionOutspends',
      description: `${TX_TEXT} Beyond the first 100 outputs, one more token per 100.`,
      parameters: [CHAIN_PATH_PARAM, TXID_PARAM],
      responses: viewResponses('Outspends', ['INVALID_TXID'], ['TX_NOT_FOUND'], true),
    },
    KEYED,
  );
}

export function txMerklePathItem(): Json {
  return pathItem(
    'transactions',
    'The merkle branch proving a confirmed transaction in its block',
    {
      operationId: 'getTransactionMerkleProof',
      description: `${TX_TEXT} A transaction in the mempool has none: 404 TX_NOT_FOUND.`,
      parameters: [CHAIN_PATH_PARAM, TXID_PARAM],
      responses: viewResponses('MerkleProof', ['INVALID_TXID'], ['TX_NOT_FOUND'], true),
    },
    KEYED,
  );
}

const BLOCK_TEXT =
  'The header fields are the index’s stored headers; transaction count and list, size and weight the node’s. Checks, in order: method, chain, key, limits, block id, index state.';

export function blockPathItem(): Json {
  return pathItem(
    'blocks',
    'A block of the indexed chain, by height or hash',
    {
      operationId: 'getBlock',
      description: BLOCK_TEXT,
      parameters: [CHAIN_PATH_PARAM, BLOCK_ID_PARAM],
      responses: viewResponses('Block', ['INVALID_BLOCK_ID'], ['BLOCK_NOT_FOUND'], false),
    },
    KEYED,
  );
}

export function blockTxidsPathItem(): Json {
  return pathItem(
    'blocks',
    'The txids of a block, in block order, page by page',
    {
      operationId: 'getBlockTxids',
      description: BLOCK_TEXT,
      parameters: [
        CHAIN_PATH_PARAM,
        BLOCK_ID_PARAM,
        {
          name: 'start',
          in: 'query',
          required: false,
          description: 'Position of the first txid listed (default 0).',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'Txids per page: 1 … 1000 (default 100).',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
      ],
      responses: viewResponses('BlockTxids', ['INVALID_BLOCK_ID', 'INVALID_LIMIT', 'BAD_REQUEST'], ['BLOCK_NOT_FOUND'], false),
    },
    KEYED,
  );
}

export function tipPathItem(): Json {
  return pathItem(
    'blocks',
    'The tip block of the indexed chain',
    {
      operationId: 'getTipBlock',
      description: BLOCK_TEXT,
      parameters: [CHAIN_PATH_PARAM],
      responses: viewResponses('Block', ['BAD_REQUEST'], ['BLOCK_NOT_FOUND'], false),
    },
    KEYED,
  );
}
