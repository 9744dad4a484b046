/**
 * `addrsum-verify`'s check of the stored block headers (header-chain.ts), fed row by row in height order
 * by each engine's verifier: every header is 80 bytes, hashes to its block's hash where a blocks row
 * exists, names the header below it as its parent, and the run has no gap and ends at the tip. Headers
 * missing below the lowest are not a problem: the backfill fills them.
 */
import { HEADER_SIZE, headerPrevHash } from '../chain/block-header.js';
import { sha256d } from '../chain/hash.js';
import type { Tip } from './index-model.js';

/** Problems named one by one; past these, only counted. */
const MAX_NAMED = 20;

export class HeaderChecker {
  private readonly named: string[] = [];
  private problems = 0;
  private last: Tip | null = null;

  /** The next row, in ascending height; `blockHash` null where no blocks row exists (below a snapshot's base). */
  add(height: number, header: Buffer, blockHash: Buffer | null): void {
    if (header.length !== HEADER_SIZE) {
      this.problem(`header ${height} is ${header.length} bytes, not ${HEADER_SIZE}`);
      this.last = null;
      return;
    }
    const hash = sha256d(header);
    if (blockHash && !hash.equals(blockHash)) this.problem(`header ${height} does not hash to the hash of block ${height}`);
    if (this.last && height !== this.last.height + 1) this.problem(`headers ${this.last.height + 1}..${height - 1} are missing`);
    else if (this.last && !headerPrevHash(header).equals(this.last.hash))
      this.problem(`header ${height} does not name header ${height - 1} as its parent`);
    this.last = { height, hash };
  }

  /** The problems found, the run's end checked against the tip. */
  finish(tip: Tip | null): string[] {
    if (this.last && (!tip || this.last.height !== tip.height))
      this.problem(`the stored headers end at ${this.last.height}, not at the tip ${tip?.height ?? '(none)'}`);
    const more = this.problems - this.named.length;
    return more > 0 ? [...this.named, `… and ${more} more header problems`] : [...this.named];
  }

  private problem(line: string): void {
    this.problems++;
    if (this.named.length < MAX_NAMED) this.named.push(line);
  }
}
