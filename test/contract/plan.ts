/**
 * The deterministic work of a child writer (writer-child.ts), rebuilt from its seed by the child and by
 * the test that watches it: ops of one commit each, applying a batch of blocks or rolling back the tip,
 * with reorgs of up to REORG_DEPTH blocks onto new branches. Every block hash is new, so a tip names its
 * whole chain and, through ChainModel.ofTip, the UTXO set the index must hold at it.
 */
import type { BlockToApply, Tip } from '../../src/store/index-model.js';
import { Rng } from '../support/blocks.js';
import { extend, scriptPool } from './chain-gen.js';
import { ChainModel } from './model.js';

export type Op = { readonly kind: 'apply'; readonly blocks: readonly BlockToApply[] } | { readonly kind: 'rollback' };

export interface PlanOptions {
  readonly seed: number;
  /** Apply ops before the reorgs' extra ops. */
  readonly batches: number;
  readonly undoDepth: number;
  /** Most spending transactions per block: more makes each commit longer, so a kill lands inside more of them. */
  readonly txs: number;
}

export interface Plan {
  readonly ops: readonly Op[];
  /** The tip after each op. */
  readonly tips: readonly Tip[];
  /** Every block of every branch, by hex of its hash. */
  readonly blocks: ReadonlyMap<string, BlockToApply>;
  /** The scripts the blocks pay, and one they never pay. */
  readonly scripts: readonly Buffer[];
}

export const REORG_DEPTH = 6;

export function makePlan(opts: PlanOptions): Plan {
  if (opts.undoDepth < REORG_DEPTH) throw new Error('plan: the undo window must hold the deepest reorg');
  const rng = new Rng(opts.seed);
  const pool = scriptPool(rng);
  const scripts = [...pool, Buffer.concat([Buffer.from([0x00, 0x14]), rng.bytes(20)])];
  const model = new ChainModel();
  const ops: Op[] = [];
  const tips: Tip[] = [];
  const blocks = new Map<string, BlockToApply>();
  /** Records an op and the tip it leaves: its last block's, or the model's after a rollback. */
  const push = (op: Op): void => {
    if (op.kind === 'apply') for (const b of op.blocks) blocks.set(b.hash.toString('hex'), b);
    const last = op.kind === 'apply' ? op.blocks[op.blocks.length - 1]! : model.tip!;
    ops.push(op);
    tips.push({ height: last.height, hash: last.hash });
  };
  const gen = { txs: opts.txs };
  for (let i = 0; i < opts.batches; i++) {
    const tip = model.tip;
    // A reorg only right after an apply: the undo window is full then, so REORG_DEPTH ≤ undoDepth suffices.
    if (tip && tip.height >= REORG_DEPTH && ops[ops.length - 1]?.kind === 'apply' && rng.chance(25)) {
      const depth = 1 + rng.int(REORG_DEPTH);
      for (let k = 0; k < depth; k++) {
        model.rollback();
        push({ kind: 'rollback' });
      }
      // The new branch outgrows the old one, in one or two commits.
      const branch = extend(rng, model, pool, depth + 1 + rng.int(2), gen);
      const cut = rng.int(branch.length);
      if (cut > 0) push({ kind: 'apply', blocks: branch.slice(0, cut) });
      push({ kind: 'apply', blocks: branch.slice(cut) });
    } else {
      push({ kind: 'apply', blocks: extend(rng, model, pool, 1 + rng.int(5), gen) });
    }
  }
  return { ops, tips, blocks, scripts };
}

/**
 * Where to go on from an index at `tip`: the last op after which the plan is at that tip (its state is
 * the same whichever of them it was), -1 for an empty index. Throws when the plan never reaches it.
 */
export function resumeAfter(plan: Plan, tip: Tip | null): number {
  if (tip === null) return -1;
  for (let i = plan.tips.length - 1; i >= 0; i--) if (plan.tips[i]!.hash.equals(tip.hash)) return i;
  throw new Error(`the index is at ${tip.height} ${tip.hash.toString('hex')}, a tip the plan never reaches`);
}

export async function runOp(
  writer: { applyBlocks(b: readonly BlockToApply[]): Promise<void>; rollbackTip(): Promise<unknown> },
  op: Op,
): Promise<void> {
  if (op.kind === 'apply') await writer.applyBlocks(op.blocks);
  else await writer.rollbackTip();
}
