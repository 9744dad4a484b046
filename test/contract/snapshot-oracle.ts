/**
 * Judges reads taken while a writer commits: each answer names its tip, and its items must be what the
 * model says at exactly that tip (not at the one before or after). Tips are looked up among every block
 * the writer may have applied; a tip outside them fails the read.
 */
import { expect } from 'vitest';
import type { BlockToApply, ChainStatus, ScriptViews, UtxoListing } from '../../src/store/index-model.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import { expectedViews } from './expect-index.js';
import { ChainModel, displayHex, keyHex, outId } from './model.js';

export class SnapshotOracle {
  private readonly models = new Map<string, ChainModel>();
  /** Display hex of every tip a read stated. */
  readonly tipsSeen = new Set<string>();
  reads = 0;

  constructor(
    private readonly blocks: ReadonlyMap<string, BlockToApply>,
    private readonly scripts: readonly Buffer[],
  ) {}

  /** The model at the tip a read stated; null when the read says nothing is indexed. */
  at(status: Pick<ChainStatus, 'tipHash'> | null): ChainModel | null {
    this.reads++;
    if (status === null) {
      this.tipsSeen.add('none');
      return null;
    }
    this.tipsSeen.add(status.tipHash);
    let model = this.models.get(status.tipHash);
    if (!model) {
      model = ChainModel.ofTip(Buffer.from(status.tipHash, 'hex').reverse(), this.blocks);
      this.models.set(status.tipHash, model);
    }
    return model;
  }

  views(answer: ScriptViews | null, withMempool: boolean): void {
    const model = this.at(answer);
    if (model) expect(answer!.items).toEqual(expectedViews(model, this.scripts, null, withMempool));
  }

  summary(answer: (ChainStatus & { balanceSats: bigint; utxoCount: number }) | null, script: Buffer): void {
    const model = this.at(answer);
    const sum = model?.sums().get(keyHex(script)) ?? { balance: 0n, count: 0 };
    if (model) expect([answer!.balanceSats, answer!.utxoCount]).toEqual([sum.balance, sum.count]);
  }

  /** A one-page listing of every script, and the tip the page's check saw. */
  page(answer: UtxoListing | null, checked: number[]): void {
    const model = this.at(answer);
    if (!model) return;
    const listing = answer!.listing;
    if (listing.kind !== 'page') throw new Error(`the listing answered ${listing.kind} at ${answer!.tipHeight}`);
    expect({ tip: displayHex(listing.tipHash), checked, more: listing.next }).toEqual({
      tip: answer!.tipHash,
      checked: [answer!.tipHeight],
      more: null,
    });
    const keys = this.scripts.map(keyHex);
    const got = listing.rows.map((r) => {
      const { txid, vout } = decodeOutpoint(r.outpoint);
      return `${keys[r.script]} ${outId(txid, vout)} ${r.valueSats} ${r.height}`;
    });
    const want = [...model.coins].filter(([, c]) => keys.includes(c.key)).map(([id, c]) => `${c.key} ${id} ${c.value} ${c.height}`);
    expect(got.sort()).toEqual(want.sort());
  }
}
