/**
 * The history paths: GET /api/v1/{chain}/address/{address}/transactions and …/scripthash/{hash}/transactions
 * (routes/transactions.ts), …/xpub/{key}/transactions (routes/xpub-transactions.ts), and the schemas of
 * their pages.
 */
import { CHAIN_CODES } from '../../chain/params.js';
import { WALLET_ERROR_CODES } from '../../wallet/errors.js';
import type { ErrorCode } from '../../serving/errors.js';
import { CHAIN_PATH_PARAM, postOnlyPathItem } from './address-paths.js';
import { ADDRESS_CODES, ADDRESS_PARAM, HASH_PARAM, PAGE_CODES, pagedResponses, type PagedText } from './paged-responses.js';
import { errorSchema, pathItem, successSchema, type Json } from './build.js';
import { WALLET_PAGE_PARAMS } from './utxo-paths.js';
import { WALLET_BODY } from './wallet-paths.js';

/** `?mempool=`: what comes first is `whose` mempool transactions (the script's, the wallet's). */
const mempoolParam = (whose: string): Json => ({
  name: 'mempool',
  in: 'query',
  required: false,
  description: `true (or 1): ${whose} mempool transactions first (height null, the latest the index learned of first, a child before its parent), then the confirmed ones. Paging stays in one order while the mempool changes: a transaction that arrives after the first page is not listed by the later ones, one that leaves is not listed again. Anything but true/false/1/0: 400 BAD_REQUEST.`,
  schema: { enum: ['true', 'false', '1', '0'] },
});

const PAGE_QUERY: Json[] = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Transactions per page: 1 … 1000 (default 25). Anything else: 400 INVALID_LIMIT.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description:
      'The `next` of the previous page, unchanged (with the same mempool flag: another is CURSOR_FOREIGN). It is bound to this history and to the block it was taken at: after a new block, 409 CURSOR_STALE (start again).',
    schema: { type: 'string' },
  },
];

const SCRIPT_QUERY = [...PAGE_QUERY, mempoolParam("the script's")];
const WALLET_QUERY = [...PAGE_QUERY, mempoolParam("the wallet's")];

const HISTORY_TEXT: PagedText = {
  page: 'One page, newest first (with mempool=true the unconfirmed transactions first; then height descending, then position in the block descending), true at blockHeight.',
  kind: 'history',
  extra400: ', BAD_REQUEST (a mempool parameter other than true/false/1/0, a parameter given twice)',
  disabled: 'HISTORY_DISABLED',
  disabledText: 'the index keeps no history (chains.<C>.history, ADDRSUM_HISTORY).',
  items: 'transactions',
  extra503: {
    text: 'HISTORY_BUILDING while history is being built for an index that had none (data: builtHeight, tipHeight, percent); balances are served meanwhile.',
    variant: errorSchema(['HISTORY_BUILDING'], {
      type: 'object',
      additionalProperties: false,
      required: ['builtHeight', 'tipHeight', 'percent'],
      properties: {
        builtHeight: { type: 'integer', minimum: -1, description: 'The last height whose history is built (−1: none yet).' },
        tipHeight: { type: 'integer', minimum: 0, description: 'The index’s tip: the build is done when it reaches it.' },
        percent: { type: 'number', minimum: 0, maximum: 100, description: 'Share of the heights built.' },
      },
    }),
  },
};

const responses = (success: string, codes: ErrorCode[], busy: ErrorCode[] = []): Json => pagedResponses(HISTORY_TEXT, success, codes, busy);

export function addressTransactionsPathItem(): Json {
  return pathItem(
    'address',
    'Transactions of an address, newest first (mempool ones first when asked for), page by page',
    {
      operationId: 'getAddressTransactions',
      description:
        'Needs history kept (chains.<C>.history). Checks, in order: method, chain, key, limits, address, limit, cursor, mempool, index state. Keyset paging: every page costs the same at any depth. The mempool part and the confirmed part are read in one snapshot.',
      parameters: [CHAIN_PATH_PARAM, ADDRESS_PARAM, ...SCRIPT_QUERY],
      responses: responses('AddressTransactionsSuccess', [...PAGE_CODES, ...ADDRESS_CODES]),
    },
    [{ ApiKey: [] }, {}],
  );
}

export function scripthashTransactionsPathItem(): Json {
  return pathItem(
    'address',
    'Transactions of a script by Electrum scripthash, newest first (mempool ones first when asked for), page by page',
    {
      operationId: 'getScripthashTransactions',
      description: 'The address history for a script named by its Electrum scripthash, with `scripthash` in place of `address`.',
      parameters: [CHAIN_PATH_PARAM, HASH_PARAM, ...SCRIPT_QUERY],
      responses: responses('ScripthashTransactionsSuccess', [...PAGE_CODES, 'INVALID_SCRIPTHASH']),
    },
    [{ ApiKey: [] }, {}],
  );
}

export function xpubTransactionsPathItem(): Json {
  return pathItem(
    'wallet',
    'Transactions of a wallet, newest first (mempool ones first when asked for), page by page',
    {
      operationId: 'getWalletTransactions',
      description:
        'Needs history kept (chains.<C>.history). Every script derived from the key or descriptor (indices 0 … range-1 of every branch, as the wallet summary), ' +
        'their histories merged newest first, each transaction once: its amounts summed over the wallet’s scripts it touched, and `addresses` naming those ' +
        'scripts in derivation order with their own amounts; with mempool=true the wallet’s mempool transactions first, merged the same way, read in one ' +
        'snapshot with the confirmed part. The cursor is bound to the wallet, range and mempool flag. Takes the wallet summary’s tokens plus the page’s.',
      parameters: [CHAIN_PATH_PARAM, ...WALLET_PAGE_PARAMS, ...WALLET_QUERY],
      responses: responses('WalletTransactionsSuccess', [...PAGE_CODES, ...WALLET_ERROR_CODES], ['WALLETS_BUSY']),
    },
    [{ ApiKey: [] }, {}],
  );
}

/** POST /api/v1/{chain}/xpub/transactions: the key (and range) in the body; every other method answers 405. */
export function xpubTransactionsPostPathItem(): Json {
  return postOnlyPathItem('wallet', {
    operationId: 'postWalletTransactions',
    summary: 'Transactions of a wallet, the key in the body',
    description:
      'As GET /api/v1/{chain}/xpub/{key}/transactions, with the key (and optionally the range) in a JSON body; `limit`, `cursor` and `mempool` stay in the query.',
    parameters: [CHAIN_PATH_PARAM, ...WALLET_PAGE_PARAMS.slice(1), ...WALLET_QUERY],
    requestBody: WALLET_BODY,
    responses: responses(
      'WalletTransactionsSuccess',
      [...PAGE_CODES, ...WALLET_ERROR_CODES, 'INVALID_JSON', 'BODY_TOO_LARGE'],
      ['WALLETS_BUSY'],
    ),
  });
}

const AMOUNTS = {
  receivedSatoshi: { type: 'integer', minimum: 0, description: 'What its outputs paid to the script (a wallet: to its scripts).' },
  received: { type: 'number', minimum: 0, description: 'receivedSatoshi / 100,000,000 with exactly 8 decimals.' },
  sentSatoshi: { type: 'integer', minimum: 0, description: 'The value of the script’s coins (a wallet: its scripts’) its inputs spent.' },
  sent: { type: 'number', minimum: 0, description: 'sentSatoshi / 100,000,000 with exactly 8 decimals.' },
};

const TX_FIELDS = {
  txid: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Display (byte-reversed) hex, as Core prints it.' },
  height: { type: ['integer', 'null'], minimum: 0, description: 'The block that confirmed it; null: in the mempool (mempool=true only).' },
  ...AMOUNTS,
};

const TX_REQUIRED = ['txid', 'height', 'receivedSatoshi', 'received', 'sentSatoshi', 'sent'];

const TX_ITEM: Json = { type: 'object', additionalProperties: false, required: TX_REQUIRED, properties: TX_FIELDS };

const WALLET_TX_ITEM: Json = {
  type: 'object',
  additionalProperties: false,
  required: [...TX_REQUIRED, 'addresses'],
  properties: {
    ...TX_FIELDS,
    addresses: {
      type: 'array',
      minItems: 1,
      description:
        'The wallet’s scripts the transaction touched, in derivation order, each once with what it paid to and spent from that script.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'address', 'receivedSatoshi', 'received', 'sentSatoshi', 'sent'],
        properties: {
          path: { type: ['string', 'null'], description: 'The derivation path (null: the descriptor has no extended key).' },
          address: { type: ['string', 'null'], description: 'The address (null: the script has none, as bare multisig).' },
          ...AMOUNTS,
        },
      },
    },
  },
};

function page(named: Json, name: string, item: Json = TX_ITEM): Json {
  return successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', name, 'transactions', 'next', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: [...CHAIN_CODES] },
      [name]: named,
      transactions: { type: 'array', items: item },
      next: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' },
      blockHeight: { type: 'integer', minimum: 0, description: 'The tip every page of this history is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  });
}

export const HISTORY_SCHEMAS: Json = {
  AddressTransactionsSuccess: page({ type: 'string' }, 'address'),
  ScripthashTransactionsSuccess: page({ type: 'string', pattern: '^[0-9a-f]{64}$' }, 'scripthash'),
  WalletTransactionsSuccess: page(
    { type: 'integer', minimum: 1, description: 'The range the wallet was derived over.' },
    'range',
    WALLET_TX_ITEM,
  ),
};
