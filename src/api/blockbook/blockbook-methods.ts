/**
 * The Blockbook WebSocket API's request methods (the subscriptions are the connection's own,
 * blockbook-socket.ts): each reads its params as Blockbook's Go server unmarshals them into its request
 * struct, and answers through the same functions as the REST routes. A method Blockbook has and we do
 * not serve (fiat rates, filters, contract calls) is refused in Blockbook's error shape by the caller.
 */
import { BlockbookError } from './blockbook-answers.js';
import type { BlockbookAsk } from './blockbook-ask.js';
import { addressAnswer, addressQuery, utxoAnswer } from './blockbook-address.js';
import { blockAnswer, blockHashAnswer } from './blockbook-blocks.js';
import { balanceHistoryAnswer, DEFAULT_GROUP_BY } from './blockbook-history.js';
import { feeRate, infoAnswer, relayAnswer } from './blockbook-node.js';
import { txAnswer, txSpecificAnswer } from './blockbook-txs.js';

/** Blockbook's bound on the targets of one estimateFee. */
const MAX_FEE_BLOCKS = 32;
/** Blockbook's txsOnPage: an account page's default size on the WebSocket. */
const WS_PAGE_SIZE = 25;

type Json = Record<string, unknown>;

/** Go's name for a JSON value's kind, as json.Unmarshal words a mismatch. */
function goKind(v: unknown): string {
  if (typeof v === 'number') return `number ${String(v)}`;
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return v === null ? 'null' : typeof v;
}

/** A method's params as one of Blockbook's request structs (`struct`: its Go name, for the texts). */
export class Params {
  private readonly fields: Json;

  constructor(
    raw: unknown,
    private readonly struct: string,
  ) {
    if (raw === undefined || raw === null) this.fields = {};
    else if (typeof raw === 'object' && !Array.isArray(raw)) this.fields = raw as Json;
    else throw new BlockbookError(400, `json: cannot unmarshal ${goKind(raw)} into Go value of type server.${this.struct}`);
  }

  private mismatch(name: string, v: unknown, goType: string): BlockbookError {
    return new BlockbookError(400, `json: cannot unmarshal ${goKind(v)} into Go struct field ${this.struct}.${name} of type ${goType}`);
  }

  string(name: string): string {
    const v = this.fields[name];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw this.mismatch(name, v, 'string');
    return v;
  }

  int(name: string): number {
    const v = this.fields[name];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw this.mismatch(name, v, 'int');
    return v;
  }

  bool(name: string): boolean {
    const v = this.fields[name];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw this.mismatch(name, v, 'bool');
    return v;
  }

  ints(name: string): number[] {
    const v = this.fields[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw this.mismatch(name, v, '[]int');
    return v.map((n) => {
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw this.mismatch(name, n, 'int');
      return n;
    });
  }

  strings(name: string): string[] {
    const v = this.fields[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw this.mismatch(name, v, '[]string');
    return v.map((s) => {
      if (typeof s !== 'string') throw this.mismatch(name, s, 'string');
      return s;
    });
  }

  object(name: string): Json {
    const v = this.fields[name];
    if (v === undefined || v === null) return {};
    if (typeof v !== 'object' || Array.isArray(v)) throw this.mismatch(name, v, 'map[string]interface {}');
    return v as Json;
  }
}

type Method = (ask: BlockbookAsk, params: unknown) => Promise<unknown>;

/** estimateFee: per target, satoshis per kB (`feePerUnit`) and, given `specific.txsize`, per transaction. */
async function estimateFee(ask: BlockbookAsk, raw: unknown): Promise<unknown> {
  const p = new Params(raw, 'WsEstimateFeeReq');
  const blocks = p.ints('blocks');
  if (blocks.length > MAX_FEE_BLOCKS) throw new BlockbookError(400, `blocks max ${MAX_FEE_BLOCKS}`);
  const specific = p.object('specific');
  const conservative = typeof specific.conservative === 'boolean' ? specific.conservative : true;
  const txSize = typeof specific.txsize === 'number' ? Math.trunc(specific.txsize) : 0;
  const out: Json[] = [];
  for (const target of blocks) {
    const fee = await feeRate(ask.route, target, conservative);
    out.push({
      ...(txSize > 0 && { feePerTx: String((fee * BigInt(txSize) + 500n) / 1000n) }),
      feePerUnit: String(fee),
    });
  }
  return out;
}

export const METHODS: Readonly<Record<string, Method>> = {
  getInfo: (ask) => infoAnswer(ask),
  getBlockHash: async (ask, raw) => ({ hash: await blockHashAnswer(ask, new Params(raw, 'WsBlockHashReq').int('height')) }),
  getBlock: (ask, raw) => {
    const p = new Params(raw, 'WsBlockReq');
    return blockAnswer(ask, p.string('id'), Math.max(1, p.int('page')));
  },
  getAccountInfo: (ask, raw) => {
    const p = new Params(raw, 'WsAccountInfoReq');
    const query = addressQuery(p.string('details'), p.int('page'), p.int('pageSize'), p.int('from'), p.int('to'), 'basic', WS_PAGE_SIZE);
    return addressAnswer(ask, p.string('descriptor'), query);
  },
  getAccountUtxo: (ask, raw) => utxoAnswer(ask, new Params(raw, 'WsAccountUtxoReq').string('descriptor'), false),
  getBalanceHistory: (ask, raw) => {
    const p = new Params(raw, 'WsBalanceHistoryReq');
    const groupBy = p.int('groupBy');
    return balanceHistoryAnswer(ask, p.string('descriptor'), {
      from: Math.max(0, p.int('from')),
      to: Math.max(0, p.int('to')),
      groupBy: groupBy > 0 ? groupBy : DEFAULT_GROUP_BY,
    });
  },
  getTransaction: (ask, raw) => txAnswer(ask, new Params(raw, 'WsTransactionReq').string('txid')),
  getTransactionSpecific: (ask, raw) => txSpecificAnswer(ask, new Params(raw, 'WsTransactionSpecificReq').string('txid')),
  estimateFee,
  sendTransaction: (ask, raw) => relayAnswer(ask, new Params(raw, 'WsSendTransactionReq').string('hex')),
  ping: () => Promise.resolve({}),
};
