/**
 * The contract every index engine passes (in the manner of electrs' shared backend tests): the same
 * cases, through the ports only (src/store/ports.ts), with expected values from independent models.
 * An engine's test file calls engineContract with its EngineFactory (engine.ts).
 */
import { afterAll, describe } from 'vitest';
import { applyAndRollback } from './cases/apply-rollback.js';
import { bootstraps } from './cases/bootstrap.js';
import { feed } from './cases/feed.js';
import { historyBuilds } from './cases/history-build.js';
import { kills } from './cases/kill.js';
import { listing } from './cases/listing.js';
import { mempool } from './cases/mempool.js';
import { reorgs } from './cases/reorg.js';
import { snapshots } from './cases/snapshot.js';
import { ALL_FEATURES, type EngineFactory } from './engine.js';

export type { EngineFactory } from './engine.js';

export function engineContract(name: string, engine: EngineFactory): void {
  describe(`index engine contract: ${name}`, () => {
    afterAll(() => engine.dispose());
    // The core cases (one snapshot per read among them) adapt to the features; the others need theirs.
    const has = engine.features ?? ALL_FEATURES;
    applyAndRollback(engine, has);
    reorgs(engine, has);
    if (has.utxoList) listing(engine);
    if (has.mempool) mempool(engine, has);
    feed(engine, has);
    snapshots(engine, has);
    if (has.snapshot) bootstraps(engine);
    if (has.history) historyBuilds(engine);
    kills(engine, has);
  });
}
