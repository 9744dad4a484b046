/**
 * The transaction and block paths (routes/tx.ts, routes/blocks.ts) and the schemas of their answers.
 */
import { CHAIN_CODES } from '../../chain/params.js';
import type { ErrorCode } from '../../serving/errors.js';
import { CHAIN_PATH_PARAM, notReady, UNKNOWN_CHAIN_TEXT } from './address-paths.js';
import {
  codesWithStatus,
  errorSchema,
  failSchema,
  headers,
  internalError,
  LIMITS,
  pathItem,
  ref,
  response,
  successSchema,
  type Json,
} from './build.js';

const HEX = { type: 'string', pattern: '^([0-9a-f]{2})*$' };
const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const SATS = { type: 'integer', minimum: 0 };
const COINS = { type: 'number', minimum: 0, description: 'The same amount in coins, written with exactly 8 decimals.' };
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const chainMember = { enum: CHAIN_CODES };

const TXID_PARAM: Json = { name: 'txid', in: 'path', required: true, description: 'A txid, 64 hex digits.', schema: { type: 'string' } };
const BLOCK_ID_PARAM: Json = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'A block height (decimal) or a block hash (64 hex digits) of the indexed chain.',
  schema: { type: 'string' },
};

const OUTPUT_FACTS: Json = {
  valueSatoshi: SATS,
  value: COINS,
  scriptPubKey: HEX,
  type: {
    type: 'string',
    description:
      "Core's name for the script (decoderawtransaction's scriptPubKey.type): pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_keyhash, witness_v0_scripthash, witness_v1_taproot, witness_unknown, nonstandard; on Litecoin also witness_mweb_hogaddr (the HogEx's MWEB supply) and witness_mweb_pegin (a peg-in).",
  },
  address: {
    ...nullable({ type: 'string' }),
    description: 'null where the script has no address of its own: P2PK, bare multisig, OP_RETURN, nonstandard, MWEB programs.',
  },
  scripthash: { ...HASH, description: 'Electrum scripthash of the script.' },
};
const OUTPUT_REQUIRED = ['valueSatoshi', 'value', 'scriptPubKey', 'type', 'address', 'scripthash'];
const outputSchema = (extra: Json, required: string[]): Json => ({
  type: 'object',
  additionalProperties: false,
  required: [...required, ...OUTPUT_REQUIRED],
  properties: { ...extra, ...OUTPUT_FACTS },
});

const OUTSPEND: Json = {
  ...nullable({
    type: 'object',
    additionalProperties: false,
    required: ['txid', 'vin', 'height'],
    properties: {
      txid: { ...nullable(HASH), description: 'The spending transaction; null (with vin) when it was spent before the index kept spends.' },
      vin: nullable({ type: 'integer', minimum: 0 }),
      height: {
        ...nullable({ type: 'integer', minimum: 0 }),
        description: "The spending transaction's block; null while it is in the mempool.",
      },
    },
  }),
  description: 'What spent the output (history’s spend index); null while it is unspent or when it can never be spent.',
};

export const CHAIN_OBJECT_SCHEMAS: Record<string, Json> = {
  Transaction: successSchema({
    type: 'object',
    additionalProperties: false,
    required: [
      'chain',
      'txid',
      'wtxid',
      'version',
      'locktime',
      'size',
      'vsize',
      'weight',
      'coinbase',
      'feeSatoshi',
      'fee',
      'feePerKvbSatoshi',
      'feePerKvb',
      'inputs',
      'outputs',
      'status',
    ],
    properties: {
      chain: chainMember,
      txid: HASH,
      wtxid: HASH,
      version: { type: 'integer' },
      locktime: { type: 'integer', minimum: 0 },
      size: { type: 'integer', minimum: 0, description: 'Bytes of the raw form (Litecoin: its MWEB part included).' },
      vsize: { type: 'integer', minimum: 0, description: 'Virtual bytes (weight / 4, rounded up; Litecoin: without the MWEB part).' },
      weight: { type: 'integer', minimum: 0 },
      coinbase: { type: 'boolean' },
      mweb: {
        type: 'object',
        additionalProperties: false,
        required: ['hogEx', 'body'],
        description:
          'Litecoin only. hogEx: the HogEx that ends an MWEB block; body: the transaction carries an MWEB body (its transparent side is not all it moves).',
        properties: { hogEx: { type: 'boolean' }, body: { type: 'boolean' } },
      },
      feeSatoshi: { ...nullable(SATS), description: 'Transparent inputs minus outputs; null for a coinbase or when a prevout is unknown.' },
      fee: nullable(COINS),
      feePerKvbSatoshi: { ...nullable(SATS), description: "Satoshis per 1,000 virtual bytes, rounded down (Core's CFeeRate)." },
      feePerKvb: nullable(COINS),
      inputs: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['txid', 'vout', 'scriptSig', 'sequence', 'witness', 'prevout'],
          properties: {
            txid: { ...nullable(HASH), description: 'The spent output’s transaction; null for a coinbase’s input.' },
            vout: nullable({ type: 'integer', minimum: 0 }),
            scriptSig: { ...HEX, description: 'The scriptSig (a coinbase’s: its coinbase script).' },
            sequence: { type: 'integer', minimum: 0 },
            witness: { type: 'array', items: HEX },
            prevout: {
              ...nullable(outputSchema({}, [])),
              description: 'The output spent, from its funding transaction; null for a coinbase.',
            },
          },
        },
      },
      outputs: { type: 'array', items: outputSchema({ n: { type: 'integer', minimum: 0 }, spent: OUTSPEND }, ['n', 'spent']) },
      status: {
        oneOf: [
          { type: 'object', additionalProperties: false, required: ['confirmed'], properties: { confirmed: { const: false } } },
          {
            type: 'object',
            additionalProperties: false,
            required: ['confirmed', 'height', 'blockHash', 'blockTime', 'position', 'confirmations'],
            properties: {
              confirmed: { const: true },
              height: { type: 'integer', minimum: 0 },
              blockHash: HASH,
              blockTime: nullable({ type: 'integer', minimum: 0 }),
              position: { type: 'integer', minimum: 0, description: 'Place in the block (0: the coinbase).' },
              confirmations: { type: 'integer', minimum: 0 },
            },
          },
        ],
      },
    },
  }),
  TransactionHex: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'txid', 'hex'],
    properties: {
      chain: chainMember,
      txid: HASH,
      hex: { ...HEX, description: 'The raw transaction as the node holds it (Litecoin: with its MWEB part).' },
    },
  }),
  Outspends: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'txid', 'outspends'],
    properties: { chain: chainMember, txid: HASH, outspends: { type: 'array', items: OUTSPEND, description: 'One per output, in order.' } },
  }),
  MerkleProof: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'txid', 'blockHeight', 'blockHash', 'position', 'merkle'],
    properties: {
      chain: chainMember,
      txid: HASH,
      blockHeight: { type: 'integer', minimum: 0 },
      blockHash: HASH,
      position: { type: 'integer', minimum: 0 },
      merkle: {
        type: 'array',
        items: HASH,
        description: 'The branch from the txid up to the merkle root, lowest first (display hex, as Electrum’s get_merkle).',
      },
    },
  }),
  Block: successSchema({
    type: 'object',
    additionalProperties: false,
    required: [
      'chain',
      'hash',
      'height',
      'version',
      'time',
      'medianTime',
      'bits',
      'nonce',
      'difficulty',
      'merkleRoot',
      'previousBlockHash',
      'nextBlockHash',
      'confirmations',
      'txCount',
      'size',
      'strippedSize',
      'weight',
    ],
    properties: {
      chain: chainMember,
      hash: HASH,
      height: { type: 'integer', minimum: 0 },
      version: { type: 'integer' },
      time: { type: 'integer', minimum: 0 },
      medianTime: {
        ...nullable({ type: 'integer', minimum: 0 }),
        description: 'Median time past; null while the headers below are not all stored yet.',
      },
      bits: { type: 'string', pattern: '^[0-9a-f]{8}$' },
      nonce: { type: 'integer', minimum: 0 },
      difficulty: { type: 'number' },
      merkleRoot: HASH,
      previousBlockHash: nullable(HASH),
      nextBlockHash: { ...nullable(HASH), description: 'The next block of the indexed chain; null at its tip.' },
      confirmations: { type: 'integer', minimum: 1 },
      txCount: { type: 'integer', minimum: 1 },
      size: { type: 'integer', minimum: 0 },
      strippedSize: { type: 'integer', minimum: 0 },
      weight: { type: 'integer', minimum: 0 },
    },
  }),
  BlockTxids: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'hash', 'height', 'txCount', 'start', 'txids', 'next'],
    properties: {
      chain: chainMember,
      hash: HASH,
      height: { type: 'integer', minimum: 0 },
      txCount: { type: 'integer', minimum: 1 },
      start: { type: 'integer', minimum: 0 },
      txids: { type: 'array', items: HASH },
      next: { ...nullable({ type: 'integer', minimum: 0 }), description: 'The start of the next page; null on the last.' },
    },
  }),
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
