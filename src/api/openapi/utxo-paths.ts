/**
 * The UTXO listing paths: GET /api/v1/{chain}/address/{address}/utxos and …/scripthash/{hash}/utxos
 * (routes/utxos.ts), and the schemas of their pages.
 */
import { MAX_SATS as MAX_SATS_BIG } from '../../chain/amount.js';
import { CHAIN_CODES } from '../../chain/params.js';
import { WALLET_ERROR_CODES } from '../../wallet/errors.js';
import type { ErrorCode } from '../../serving/errors.js';
import { CHAIN_PATH_PARAM } from './address-paths.js';
import { ADDRESS_CODES, ADDRESS_PARAM, HASH_PARAM, PAGE_CODES, pagedResponses, type PagedText } from './paged-responses.js';
import { pathItem, successSchema, type Json } from './build.js';

/** JSON Schema bounds are numbers: exact, as every chain's supply is below 2^53 (amount.ts checks). */
const MAX_SATS = Number(MAX_SATS_BIG);

const PAGE_QUERY: Json[] = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Outputs per page: 1 … 1000 (default 100). Anything else: 400 INVALID_LIMIT.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'The `next` of the previous page, unchanged. It is bound to this listing and to the block it was taken at: after a new block, 409 CURSOR_STALE (start again).',
    schema: { type: 'string' },
  },
  {
    name: 'mempool',
    in: 'query',
    required: false,
    description:
      'true (or 1): each output says whether it is unconfirmed and whether a mempool transaction spends it; the unconfirmed outputs follow the confirmed ones.',
    schema: { enum: ['true', 'false', '1', '0'] },
  },
];

const UTXO_TEXT: PagedText = {
  page: 'One page, oldest first (height, then txid in internal byte order, then vout: docs/api.md), true at blockHeight.',
  kind: 'listing',
  extra400: '',
  disabled: 'UTXO_LIST_DISABLED',
  disabledText: 'the index keeps no UTXO listing (chains.<C>.utxoList, ADDRSUM_UTXO_LIST).',
  items: 'outputs',
};

const pageResponses = (success: string, codes: ErrorCode[], busy: ErrorCode[] = []): Json =>
  pagedResponses(UTXO_TEXT, success, codes, busy);

export function addressUtxosPathItem(): Json {
  return pathItem(
    'address',
    'Unspent outputs of an address, page by page',
    {
      operationId: 'getAddressUtxos',
      description:
        'Needs the opt-in listing (chains.<C>.utxoList). Checks, in order: method, chain, key, limits, address, limit, cursor, index state. Keyset paging: every page costs the same.',
      parameters: [CHAIN_PATH_PARAM, ADDRESS_PARAM, ...PAGE_QUERY],
      responses: pageResponses('AddressUtxosSuccess', [...PAGE_CODES, ...ADDRESS_CODES]),
    },
    [{ ApiKey: [] }, {}],
  );
}

export function scripthashUtxosPathItem(): Json {
  return pathItem(
    'address',
    'Unspent outputs of a script by Electrum scripthash, page by page',
    {
      operationId: 'getScripthashUtxos',
      description: 'The address listing for a script named by its Electrum scripthash, with `scripthash` in place of `address`.',
      parameters: [CHAIN_PATH_PARAM, HASH_PARAM, ...PAGE_QUERY],
      responses: pageResponses('ScripthashUtxosSuccess', [...PAGE_CODES, 'INVALID_SCRIPTHASH']),
    },
    [{ ApiKey: [] }, {}],
  );
}

/** The wallet a wallet page (…/xpub/{key}/utxos, …/transactions) names: the key in the path, and the range. */
export const WALLET_PAGE_PARAMS: Json[] = [
  {
    name: 'key',
    in: 'path',
    required: true,
    description: 'An extended public key or URL-encoded output descriptor.',
    schema: { type: 'string' },
  },
  {
    name: 'range',
    in: 'query',
    required: false,
    description: 'Indices 0 … range-1 of every branch (default 1000, at most api.xpubMaxRange).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
];

export function xpubUtxosPathItem(): Json {
  return pathItem(
    'wallet',
    'Unspent outputs of a wallet, page by page',
    {
      operationId: 'getWalletUtxos',
      description:
        'Every script derived from the key or descriptor (indices 0 … range-1 of every branch, as the wallet summary), merged oldest first; ' +
        'each item adds its `path` and `address`. The cursor is bound to the wallet and range. Takes the wallet summary’s tokens plus the page’s.',
      parameters: [CHAIN_PATH_PARAM, ...WALLET_PAGE_PARAMS, ...PAGE_QUERY],
      responses: pageResponses('WalletUtxosSuccess', [...PAGE_CODES, ...WALLET_ERROR_CODES], ['WALLETS_BUSY']),
    },
    [{ ApiKey: [] }, {}],
  );
}

const UTXO_ITEM: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['txid', 'vout', 'valueSatoshi', 'value', 'height', 'coinbase'],
  properties: {
    txid: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Display (byte-reversed) hex, as Core prints it.' },
    vout: { type: 'integer', minimum: 0 },
    valueSatoshi: { type: 'integer', minimum: 0, maximum: MAX_SATS },
    value: { type: 'number', minimum: 0, description: 'valueSatoshi / 100,000,000 with exactly 8 decimals.' },
    height: { type: ['integer', 'null'], minimum: 0, description: 'The block that created it; null: unconfirmed (mempool=true only).' },
    coinbase: {
      type: ['boolean', 'null'],
      description:
        'A coinbase output (spendable 100 blocks after `height`); null: unknown (blocks indexed before 0.x, or loaded from a snapshot by an earlier bootstrap) or unconfirmed.',
    },
    unconfirmed: { type: 'boolean', description: 'mempool=true only: created by a mempool transaction.' },
    spentInMempool: { type: 'boolean', description: 'mempool=true only: a mempool transaction spends it.' },
    path: {
      type: ['string', 'null'],
      description: 'Wallet listings only: the derivation path (null: the descriptor has no extended key).',
    },
    address: { type: ['string', 'null'], description: 'Wallet listings only: the address (null: the script has none, as bare multisig).' },
  },
};

function page(named: Json, name: string): Json {
  return successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', name, 'utxos', 'next', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: [...CHAIN_CODES] },
      [name]: named,
      utxos: { type: 'array', items: UTXO_ITEM },
      next: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' },
      blockHeight: { type: 'integer', minimum: 0, description: 'The tip every page of this listing is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  });
}

export const UTXO_SCHEMAS: Json = {
  AddressUtxosSuccess: page({ type: 'string' }, 'address'),
  ScripthashUtxosSuccess: page({ type: 'string', pattern: '^[0-9a-f]{64}$' }, 'scripthash'),
  WalletUtxosSuccess: page({ type: 'integer', minimum: 1, description: 'The range the wallet was derived over.' }, 'range'),
};
