/**
 * Checkpoint proofs of blockchain.block.header(s) with cp_height > 0: the branch from a height's block
 * hash to the root of the tree over heights 0..cp_height (header-merkle.ts), from the stored headers.
 *
 * A proof reads one run of 2048 headers and needs the root of every other run below cp_height. Runs that
 * end deeper below the tip than the chain's undo window (chains.<C>.undoDepth: the index cannot roll back
 * that far) never change, so their roots are kept in memory (32 bytes per 2048 blocks); a wallet asks at
 * its one hard-coded checkpoint, so after the first proof (which reads every header up to it once) each
 * costs one read of 2048 headers.
 */
import { toDisplayHex } from '../../chain/hash.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';
import { climb, depthOf, headerHash, SUBTREE_LEAVES, SUBTREE_LEVELS } from './header-merkle.js';

export interface CheckpointProof {
  /** Sibling hashes from the leaf up, display (byte-reversed) hex as the protocol has them. */
  readonly branch: string[];
  readonly root: string;
}

export class CheckpointProofs {
  private readonly roots = new Map<number, Buffer>();

  constructor(private readonly undoDepth: number) {}

  /** The proof of `height` under `cpHeight`; error 1 unless height ≤ cpHeight ≤ tip with every header stored. */
  async prove(index: ElectrumIndex, height: number, cpHeight: number): Promise<CheckpointProof> {
    if (height > cpHeight) throw new RpcError('BAD_REQUEST', `height ${height} is above cp_height ${cpHeight}`);
    const status = await index.status();
    if (status === null) throw notIndexed();
    if (cpHeight > status.tipHeight) throw new RpcError('BAD_REQUEST', `cp_height ${cpHeight} is above the tip (${status.tipHeight})`);
    if (status.headersFrom !== undefined && status.headersFrom > 0) {
      throw new RpcError(
        'BAD_REQUEST',
        `checkpoint proofs need every header, and those below ${status.headersFrom} are still being backfilled; retry later`,
      );
    }
    const leaves = cpHeight + 1;
    const depth = depthOf(leaves);
    if (leaves <= SUBTREE_LEAVES) return shown(climb(await this.hashes(index, 0, leaves), height, depth));
    const run = Math.floor(height / SUBTREE_LEAVES);
    const lower = climb(await this.runHashes(index, run, leaves), height - run * SUBTREE_LEAVES, SUBTREE_LEVELS);
    this.keep(run, leaves, status.tipHeight, lower.root);
    const runs = Math.ceil(leaves / SUBTREE_LEAVES);
    const roots: Buffer[] = [];
    for (let j = 0; j < runs; j++) roots.push(j === run ? lower.root : await this.runRoot(index, j, leaves, status.tipHeight));
    const upper = climb(roots, run, depth - SUBTREE_LEVELS);
    return shown({ root: upper.root, branch: [...lower.branch, ...upper.branch] });
  }

  /** The root of run `j` of a tree over `leaves` leaves; kept when the run is whole and below the undo window. */
  private async runRoot(index: ElectrumIndex, j: number, leaves: number, tipHeight: number): Promise<Buffer> {
    const kept = (j + 1) * SUBTREE_LEAVES <= leaves ? this.roots.get(j) : undefined;
    if (kept) return kept;
    const { root } = climb(await this.runHashes(index, j, leaves), 0, SUBTREE_LEVELS);
    this.keep(j, leaves, tipHeight, root);
    return root;
  }

  /** Keeps run `j`'s root when the run is whole in this tree and deeper than any rollback can reach. */
  private keep(j: number, leaves: number, tipHeight: number, root: Buffer): void {
    const end = (j + 1) * SUBTREE_LEAVES - 1;
    if (end < leaves && end <= tipHeight - this.undoDepth) this.roots.set(j, root);
  }

  private runHashes(index: ElectrumIndex, j: number, leaves: number): Promise<Buffer[]> {
    const from = j * SUBTREE_LEAVES;
    return this.hashes(index, from, Math.min(SUBTREE_LEAVES, leaves - from));
  }

  /** Block hashes of `count` heights from `from`, all stored (else the backfill error). */
  private async hashes(index: ElectrumIndex, from: number, count: number): Promise<Buffer[]> {
    const range = await index.headers(from, count);
    if (range === null) throw notIndexed();
    if (range.headers.length !== count) {
      throw new RpcError('BAD_REQUEST', `headers ${from}..${from + count - 1} are not all stored (the tip moved?); retry`);
    }
    return range.headers.map(headerHash);
  }
}

function shown(proof: { root: Buffer; branch: Buffer[] }): CheckpointProof {
  return { branch: proof.branch.map(toDisplayHex), root: toDisplayHex(proof.root) };
}
