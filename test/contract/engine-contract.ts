/**
 * The contract every index engine passes (in the manner of electrs' shared backend tests): the same
 * cases, through the ports only (src/store/ports.ts), with expected values from independent models.
 * An engine's test file calls engineContract with its EngineFactory (engine.ts).
 */
import { afterAll, describe } from 'vitest';
import { applyAndRollback } from './cases/apply-rollback.js';
import { feed } from './cases/feed.js';
import { historyBuilds } from './cases/history-build.js';
import { kills } from './cases/kill.js';
import { listing } from './cases/listing.js';
import { mempool } from './cases/mempool.js';
import { reorgs } from './cases/reorg.js';
import { snapshots } from './cases/snapshot.js';
import type { EngineFactory } from './engine.js';

export type { EngineFactory } from './engine.js';

export function engineContract(name: string, engine: EngineFactory): void {
  describe(`index engine contract: ${name}`, () => {
    afterAll(() => engine.dispose());
    applyAndRollback(engine);
    reorgs(engine);
    listing(engine);
    mempool(engine);
    feed(engine);
    snapshots(engine);
    historyBuilds(engine);
    kills(engine);
  });
}
