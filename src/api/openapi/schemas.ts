/**
 * The bodies' schemas (components/schemas). Chain codes, network names and amount bounds come from the
 * chain registry, so a new chain or network shows up here without an edit.
 */
import { MAX_SATS as MAX_SATS_BIG } from '../../chain/amount.js';
import { ALL_NETWORK_NAMES, CHAIN_CODES } from '../../chain/params.js';
import { failSchema, ref, successSchema, type Json } from './build.js';
import { LOAD_PHASES } from '../../store/index-model.js';

/** JSON Schema bounds are numbers: exact, as every chain's supply is below 2^53 (amount.ts checks). */
const MAX_SATS = Number(MAX_SATS_BIG);

/** Present while the index keeps history (chains.<C>.history): lifetime sums, which may pass 2^53 (no maximum). */
const HISTORY_FIELDS: Json = {
  txCount: {
    type: 'integer',
    minimum: 0,
    description: 'Only with history kept: distinct confirmed transactions paying to or spending from the script.',
  },
  receivedSatoshi: {
    type: 'integer',
    minimum: 0,
    description: 'Only with history kept: confirmed outputs paid to the script, in the smallest unit, all digits.',
  },
  received: { type: 'number', minimum: 0, description: 'receivedSatoshi / 100,000,000 with exactly 8 decimals.' },
  sentSatoshi: {
    type: 'integer',
    minimum: 0,
    description: 'Only with history kept: confirmed coins of the script spent; balance = received − sent.',
  },
  sent: { type: 'number', minimum: 0, description: 'sentSatoshi / 100,000,000 with exactly 8 decimals.' },
};

/** Present in `unconfirmed` while the index keeps history: the mempool's gross figures (received − sent = the Δ balance). */
const UNCONFIRMED_GROSS: Json = {
  receivedSatoshi: {
    type: 'integer',
    minimum: 0,
    description: 'Only with history kept: what mempool transactions pay to the script(s), smallest unit, all digits.',
  },
  received: { type: 'number', minimum: 0, description: 'receivedSatoshi / 100,000,000 with exactly 8 decimals.' },
  sentSatoshi: {
    type: 'integer',
    minimum: 0,
    description: 'Only with history kept: the value of the script(s)’ coins mempool transactions spend; balanceSatoshi = received − sent.',
  },
  sent: { type: 'number', minimum: 0, description: 'sentSatoshi / 100,000,000 with exactly 8 decimals.' },
};

export const SCHEMAS: Json = {
  AddressSummary: {
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'address', 'balanceSatoshi', 'balance', 'utxoCount', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: [...CHAIN_CODES], description: 'The chain in the path, upper case.' },
      address: { type: 'string', description: 'Canonical spelling: Litecoin P2SH as M…/Q…, bech32 lower case.' },
      balanceSatoshi: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_SATS,
        description: 'Confirmed balance at the indexed tip, in the smallest unit.',
      },
      balance: {
        type: 'number',
        minimum: 0,
        description: 'balanceSatoshi / 100,000,000, written with exactly 8 decimals (e.g. 0.00000123).',
      },
      utxoCount: { type: 'integer', minimum: 0 },
      ...(HISTORY_FIELDS as object),
      unconfirmed: ref('schemas', 'Unconfirmed'),
      blockHeight: { type: 'integer', minimum: 0, description: 'Height of the indexed tip the answer is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  },
  ScripthashSummary: {
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'scripthash', 'balanceSatoshi', 'balance', 'utxoCount', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: [...CHAIN_CODES], description: 'The chain in the path, upper case.' },
      scripthash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The scripthash asked for, lower case.' },
      balanceSatoshi: { type: 'integer', minimum: 0, maximum: MAX_SATS },
      balance: { type: 'number', minimum: 0, description: 'balanceSatoshi / 100,000,000 with exactly 8 decimals.' },
      utxoCount: { type: 'integer', minimum: 0 },
      ...(HISTORY_FIELDS as object),
      unconfirmed: ref('schemas', 'Unconfirmed'),
      blockHeight: { type: 'integer', minimum: 0 },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  },
  WalletSummary: {
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'balanceSatoshi', 'balance', 'utxoCount', 'fundedAddresses', 'range', 'descriptors', 'blockHeight', 'blockHash'],
    properties: {
      chain: { enum: [...CHAIN_CODES] },
      balanceSatoshi: { type: 'integer', minimum: 0, maximum: MAX_SATS, description: 'Sum over every derived script.' },
      balance: { type: 'number', minimum: 0, description: 'balanceSatoshi / 100,000,000 with exactly 8 decimals.' },
      utxoCount: { type: 'integer', minimum: 0 },
      ...(HISTORY_FIELDS as object),
      txCount: {
        type: 'integer',
        minimum: 0,
        description:
          'Only with history kept: distinct confirmed transactions paying to or spending from any derived script (one touching several counts once); received and sent are summed over the scripts.',
      },
      fundedAddresses: { type: 'integer', minimum: 0, description: 'Derived scripts holding at least one confirmed coin.' },
      unconfirmed: {
        type: 'object',
        additionalProperties: false,
        required: ['balanceSatoshi', 'balance', 'utxoCount'],
        description:
          'Only with ?mempool=true: the sums of the scripts’ mempool deltas (no txCount: one transaction may touch several). With history kept, received and sent are sums over the scripts too: a payment from one derived script to another counts in both.',
        properties: {
          balanceSatoshi: { type: 'integer', minimum: -MAX_SATS, maximum: MAX_SATS },
          balance: { type: 'number' },
          utxoCount: { type: 'integer' },
          ...(UNCONFIRMED_GROSS as object),
        },
      },
      range: { type: 'integer', minimum: 1, description: 'Indices 0 … range-1 of every branch were read.' },
      descriptors: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description: 'The canonical descriptors read, one per branch, each with its BIP380 checksum (as getdescriptorinfo prints them).',
      },
      addresses: {
        type: 'array',
        description: 'Only with ?details=funded: every derived script holding coins, in derivation order.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'address', 'scripthash', 'balanceSatoshi', 'balance', 'utxoCount'],
          properties: {
            path: {
              type: ['string', 'null'],
              description: 'Derivation path of the first key (m/… with a key origin); null without an extended key.',
            },
            address: { type: ['string', 'null'], description: 'null for scripts with no address form (bare multisig, P2PK).' },
            scripthash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Electrum scripthash (…/scripthash/{hash}).' },
            balanceSatoshi: { type: 'integer', minimum: 0, maximum: MAX_SATS },
            balance: { type: 'number', minimum: 0 },
            utxoCount: { type: 'integer', minimum: 0 },
            ...(HISTORY_FIELDS as object),
            unconfirmed: ref('schemas', 'Unconfirmed'),
          },
        },
      },
      blockHeight: { type: 'integer', minimum: 0, description: 'The one indexed tip every script was read at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  },
  Unconfirmed: {
    type: 'object',
    additionalProperties: false,
    required: ['balanceSatoshi', 'balance', 'utxoCount', 'txCount'],
    description:
      "Only with ?mempool=true: what the node's mempool changes. Confirmed + unconfirmed = what the address holds once the whole mempool is mined. " +
      'Deltas are negative when mempool transactions spend confirmed coins. MWEB-only transactions change nothing; peg-outs count only once mined.',
    properties: {
      balanceSatoshi: {
        type: 'integer',
        minimum: -MAX_SATS,
        maximum: MAX_SATS,
        description: 'Δ balance, smallest unit; may be negative.',
      },
      balance: { type: 'number', description: 'balanceSatoshi / 100,000,000 with exactly 8 decimals; may be negative.' },
      utxoCount: { type: 'integer', description: 'Δ unspent outputs; may be negative.' },
      txCount: { type: 'integer', minimum: 0, description: 'Mempool transactions paying to or spending from the address.' },
      ...(UNCONFIRMED_GROSS as object),
    },
  },
  BatchResult: {
    description: 'Exactly the body the single address route answers for this entry: a summary or its fail body.',
    oneOf: [ref('schemas', 'AddressSuccess'), failSchema(['INVALID_ADDRESS', 'WRONG_NETWORK', 'WRONG_CHAIN', 'UNSUPPORTED_ADDRESS'])],
  },
  BatchSuccess: successSchema({
    type: 'object',
    additionalProperties: false,
    required: ['chain', 'blockHeight', 'blockHash', 'results'],
    properties: {
      chain: { enum: [...CHAIN_CODES] },
      blockHeight: { type: 'integer', minimum: 0, description: 'The one indexed tip every result is true at.' },
      blockHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      results: {
        type: 'array',
        items: ref('schemas', 'BatchResult'),
        description: 'One per input address, in input order (duplicates included).',
      },
    },
  }),
  AddressSuccess: successSchema(ref('schemas', 'AddressSummary')),
  ScripthashSuccess: successSchema(ref('schemas', 'ScripthashSummary')),
  WalletSuccess: successSchema(ref('schemas', 'WalletSummary')),
  ChainReadiness: {
    type: 'object',
    additionalProperties: false,
    required: [
      'chain',
      'network',
      'configured',
      'ready',
      'indexedHeight',
      'nodeHeight',
      'lag',
      'nodeSeenAt',
      'nodeSeenAgeSeconds',
      'tipTime',
      'tipAgeSeconds',
    ],
    properties: {
      chain: { enum: [...CHAIN_CODES] },
      network: { enum: [...ALL_NETWORK_NAMES] },
      configured: { type: 'boolean' },
      ready: { type: 'boolean' },
      indexedHeight: { type: ['integer', 'null'], minimum: 0 },
      indexedHash: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$', description: "The indexed tip's block hash." },
      mempoolTxs: { type: ['integer', 'null'], minimum: 0, description: "Transactions of the node's mempool the index holds." },
      history: {
        enum: ['off', 'building', 'on'],
        description: 'Address history (chains.<C>.history): kept, being built from the node’s blocks, or off.',
      },
      historyBuiltHeight: {
        type: 'integer',
        minimum: -1,
        description: 'While history is being built: the last height built (−1: none yet); the build ends at indexedHeight.',
      },
      standbyReplayLagSeconds: {
        type: 'number',
        minimum: 0,
        description:
          'Only for an index read from a PostgreSQL streaming standby: seconds its replay is behind the WAL it received (0: caught up). Its answers are at its replayed tip.',
      },
      bootstrap: {
        type: 'object',
        additionalProperties: false,
        required: ['phase', 'coins', 'total'],
        description: "Present while a UTXO snapshot is being loaded (nothing indexed yet), as of the load's last committed chunk.",
        properties: {
          phase: { enum: [...LOAD_PHASES] },
          coins: { type: 'integer', minimum: 0, description: "The file's coins read so far." },
          total: { type: ['integer', 'null'], minimum: 0, description: 'Coins in the snapshot file.' },
        },
      },
      nodeHeight: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'As last recorded by the indexer; null if it never reached the node.',
      },
      lag: { type: ['integer', 'null'], minimum: 0 },
      nodeSeenAt: { type: ['string', 'null'], format: 'date-time', description: 'When the indexer last heard from its node.' },
      nodeSeenAgeSeconds: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Seconds since nodeSeenAt; over api.staleAfterSeconds the chain is not ready.',
      },
      tipTime: {
        type: ['string', 'null'],
        format: 'date-time',
        description: "The indexed tip block's header time (null until a block is applied by this version).",
      },
      tipAgeSeconds: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Seconds since tipTime; over api.maxTipAgeSeconds (unset: the network default; 0: off) the chain is not ready.',
      },
      reason: { type: 'string', description: 'Why the chain does not answer; absent when ready.' },
    },
  },
  Heights: {
    type: 'object',
    additionalProperties: false,
    required: ['indexedHeight', 'nodeHeight'],
    properties: { indexedHeight: { type: ['integer', 'null'], minimum: 0 }, nodeHeight: { type: ['integer', 'null'], minimum: 0 } },
  },
};
