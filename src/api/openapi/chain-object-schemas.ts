/**
 * The schemas of the transaction and block routes' answers (routes/tx.ts, routes/blocks.ts), their
 * paths being chain-object-paths.ts's.
 */
import { CHAIN_CODES } from '../../chain/params.js';
import { successSchema, type Json } from './build.js';

export const HEX = { type: 'string', pattern: '^([0-9a-f]{2})*$' };
export const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const SATS = { type: 'integer', minimum: 0 };
const COINS = { type: 'number', minimum: 0, description: 'The same amount in coins, written with exactly 8 decimals.' };
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const chainMember = { enum: CHAIN_CODES };

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
