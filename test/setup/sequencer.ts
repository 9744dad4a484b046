/**
 * Starts the suites that take longest first. With two workers, a one-minute suite that starts last (vitest
 * orders files it has no timings for by size, and the contract suites are small files) leaves one worker
 * alone with it at the end of the run. The list is of suites that took 15 s or more in a CI run, longest
 * first (seconds, rounded), the PostgreSQL ones kept apart; the rest follow in vitest's own order. A
 * listed file that is gone fails the run, so the list cannot rot silently.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const HEAVY_SUITES: readonly (readonly [string, number])[] = [
  ['test/contract/postgres.test.ts', 165],
  ['test/integration/postgres-ltc.test.ts', 110],
  ['test/integration/bootstrap-btc.test.ts', 75],
  ['test/integration/blockbook-ltc.test.ts', 70],
  ['test/integration/history-ltc.test.ts', 64],
  ['test/integration/operational-ltc.test.ts', 53],
  ['test/integration/electrum-postgres-ltc.test.ts', 48],
  ['test/integration/indexer-ltc.test.ts', 42],
  ['test/integration/tx-block-ltc.test.ts', 40],
  ['test/integration/esplora-sync-ltc.test.ts', 40],
  ['test/integration/electrum-wire-ltc.test.ts', 38],
  ['test/integration/electrum-client-ltc.test.ts', 37],
  ['test/integration/demo.test.ts', 35],
  ['test/integration/bootstrap-ltc.test.ts', 28],
  ['test/integration/blockbook-socket-ltc.test.ts', 28],
  ['test/contract/sqlite.test.ts', 27],
  ['test/integration/esplora-ltc.test.ts', 28],
  ['test/integration/electrum-node-ltc.test.ts', 26],
  ['test/integration/indexer-btc.test.ts', 26],
  ['test/integration/utxos-ltc.test.ts', 24],
  ['test/unit/utxo-list-kill.test.ts', 23],
  ['test/integration/wallet-ltc.test.ts', 18],
  ['test/integration/status-page-refusals.test.ts', 18],
  ['test/integration/mempool-ltc.test.ts', 18],
  ['test/integration/keys-postgres.test.ts', 18],
  ['test/unit/shared-limits.test.ts', 17],
  ['test/integration/electrum-index-ltc.test.ts', 17],
  ['test/integration/dist.test.ts', 17],
  ['test/integration/status-page-ltc.test.ts', 17],
  ['test/integration/live-guards-ltc.test.ts', 16],
];

export default class HeaviestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const gone = HEAVY_SUITES.filter(([f]) => !existsSync(join(root, f)));
    if (gone.length > 0) throw new Error(`test/setup/sequencer.ts lists suites that are gone: ${gone.map(([f]) => f).join(', ')}`);
    const seconds = new Map(HEAVY_SUITES);
    const weight = (s: TestSpecification): number => seconds.get(relative(root, s.moduleId)) ?? 0;
    const base = await super.sort(files);
    // Array.prototype.sort is stable: unlisted suites keep vitest's order among themselves.
    return apartFromEachOther(
      base.sort((a, b) => weight(b) - weight(a)),
      (s) => weight(s) > 0 && relative(root, s.moduleId).includes('postgres'),
    );
  }
}

/**
 * Picks a suite marked `together` waits for after another. Two workers start neighbours at about the same
 * time, and two PostgreSQL suites at once contend for the disk's fsyncs (each took twice as long). Two
 * picks were not enough: contract/postgres ran 150–230 s in CI, while the other worker went through two
 * suites of about a minute and started postgres-ltc beside it. Four picks are about two suites a worker.
 */
export const PICKS_APART = 4;

/** The same order, except that a suite marked `together` waits while one of the PICKS_APART picks before it is one too. */
export function apartFromEachOther<T>(ordered: readonly T[], together: (t: T) => boolean): T[] {
  const left = [...ordered];
  const out: T[] = [];
  while (left.length > 0) {
    const recent = out.slice(-PICKS_APART).some(together);
    const i = recent ? left.findIndex((t) => !together(t)) : 0;
    out.push(...left.splice(i < 0 ? 0 : i, 1));
  }
  return out;
}
