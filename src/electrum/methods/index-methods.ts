/**
 * The index-backed methods: block headers (blockchain.headers.subscribe, blockchain.block.header(s))
 * and scripthashes (blockchain.scripthash.*), answered from the chain's index only, never the node.
 *
 * Priced by work: a fixed cost before the handler runs (registry.ts), and for a history longer than
 * FREE_ENTRIES one more unit per ENTRIES_PER_TOKEN, charged once read (session.charge); a list of
 * unspent outputs by its count, before it is read (unspent.ts);
 * a checkpoint proof (cp_height > 0, checkpoint.ts) PROOF_TOKENS more.
 */
import type { ChainCode } from '../../chain/params.js';
import { notIndexed, type IndexAccess } from '../index/access.js';
import type { CheckpointProofs } from '../index/checkpoint.js';
import { headerAt, headerRun, MAX_HEADERS } from '../index/headers.js';
import { heightParam, scripthashParam } from '../index/params.js';
import type { ScripthashSubscriptions } from '../index/scripthash-subscriptions.js';
import type { ScriptHistories } from '../index/script-histories.js';
import type { TipSubscriptions } from '../index/tip-subscriptions.js';
import { readUnspent } from '../index/unspent.js';
import type PQueue from 'p-queue';
import { speaksAtLeast } from '../version.js';
import { JsonText, RpcError } from '../wire.js';
import type { ElectrumSession, MethodSpec } from './registry.js';

/** Half a keyless HTTP request: one indexed read of a few rows. */
const LIGHT = 0.5;
/** A keyless HTTP request: one script's read. */
const READ = 1;
/** Entries of a history or UTXO list the fixed cost covers. */
export const FREE_ENTRIES = 1000;
export const ENTRIES_PER_TOKEN = 1000;

export interface IndexMethodDeps {
  readonly chain: ChainCode;
  readonly index: IndexAccess;
  readonly tips: TipSubscriptions;
  readonly scripthashes: ScripthashSubscriptions;
  readonly checkpoints: CheckpointProofs;
  /** Script histories, read or kept (script-history.ts). */
  readonly histories: ScriptHistories;
  /** electrum.maxHistory */
  readonly maxHistory: number;
  /** The chain's heavy reads, one at a time (unspent.ts). */
  readonly heavy: PQueue;
}

/** What a list of `n` entries costs beyond the fixed cost. */
export function extraTokens(n: number): number {
  return n > FREE_ENTRIES ? (n - FREE_ENTRIES) / ENTRIES_PER_TOKEN : 0;
}

/** What a checkpoint proof costs beyond the fixed cost: it reads a run of 2048 headers. */
const PROOF_TOKENS = 1;

async function charged<T extends readonly unknown[]>(session: ElectrumSession, list: T): Promise<T> {
  await session.charge(extraTokens(list.length));
  return list;
}

export function indexMethods(deps: IndexMethodDeps): Record<string, MethodSpec> {
  const { index, maxHistory } = deps;
  const method = (cost: number, params: readonly string[], handler: MethodSpec['handler']): MethodSpec => ({ cost, params, handler });
  return {
    'blockchain.headers.subscribe': method(LIGHT, [], async (_params, session) => deps.tips.subscribe(session)),
    'blockchain.block.header': method(LIGHT, ['height', 'cp_height'], async ([height, cpHeight], session) => {
      const h = heightParam(height, 'height');
      const cp = heightParam(cpHeight, 'cp_height', 0);
      const at = index();
      if (cp === 0) return headerAt(at, h);
      const proof = await deps.checkpoints.prove(at, h, cp);
      const header = await headerAt(at, h);
      await session.charge(PROOF_TOKENS);
      return { branch: proof.branch, header, root: proof.root };
    }),
    'blockchain.block.headers': method(READ, ['start_height', 'count', 'cp_height'], async ([start, count, cpHeight], session) => {
      const from = heightParam(start, 'start_height');
      const n = heightParam(count, 'count');
      const cp = heightParam(cpHeight, 'cp_height', 0);
      const at = index();
      if (cp > 0 && n > 0 && from + Math.min(n, MAX_HEADERS) - 1 > cp) {
        throw new RpcError('BAD_REQUEST', `start_height + count - 1 must not pass cp_height ${cp}`);
      }
      const run = await headerRun(at, from, Math.min(n, MAX_HEADERS), speaksAtLeast(session.protocol, '1.6'));
      if (cp === 0 || run.count === 0) return run;
      const proof = await deps.checkpoints.prove(at, from + run.count - 1, cp);
      await session.charge(PROOF_TOKENS);
      return { ...run, branch: proof.branch, root: proof.root };
    }),
    'blockchain.scripthash.get_balance': method(READ, ['scripthash'], async ([scripthash]) => {
      const { key } = scripthashParam(scripthash);
      const views = await index().keyViews([key], true);
      if (views === null) throw notIndexed();
      const view = views.items[0]!;
      return { confirmed: Number(view.balanceSats), unconfirmed: Number(view.unconfirmed?.balanceSats ?? 0n) };
    }),
    'blockchain.scripthash.get_history': method(READ, ['scripthash'], async ([scripthash], session) => {
      const { key } = scripthashParam(scripthash);
      const { json, length } = await deps.histories(index(), key);
      await session.charge(extraTokens(length));
      return new JsonText(json);
    }),
    'blockchain.scripthash.get_mempool': method(READ, ['scripthash'], async ([scripthash], session) => {
      const { key } = scripthashParam(scripthash);
      const { mempool } = await deps.histories(index(), key);
      return charged(
        session,
        mempool.map((e) => ({ tx_hash: e.txHash, height: e.height, fee: e.fee })),
      );
    }),
    'blockchain.scripthash.listunspent': method(READ, ['scripthash'], async ([scripthash], session) => {
      const { key } = scripthashParam(scripthash);
      return readUnspent({
        index: index(),
        chain: deps.chain,
        key,
        max: maxHistory,
        queue: deps.heavy,
        pay: (cost) => session.charge(cost),
      });
    }),
    'blockchain.scripthash.subscribe': method(READ, ['scripthash'], async ([scripthash], session) => {
      const { hash, key } = scripthashParam(scripthash);
      const { status, length } = await deps.scripthashes.subscribe(session, hash, key);
      await session.charge(extraTokens(length));
      return status;
    }),
    'blockchain.scripthash.unsubscribe': method(LIGHT, ['scripthash'], async ([scripthash], session) => {
      const { key } = scripthashParam(scripthash);
      return deps.scripthashes.unsubscribe(session, key);
    }),
  };
}
