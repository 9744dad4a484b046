/** The indexer's `--bootstrap FILE` flag and the two steps main.ts runs for it (bootstrap.ts). */
import { Option } from 'commander';
import { flushLogSync, type Logger } from '../src/logger.js';
import { loadSnapshot, type BootstrapWriter, type CheckedSnapshot } from './bootstrap.js';

export { checkSnapshot, type CheckedSnapshot } from './bootstrap.js';

/** The load, with its progress lines written as they happen. */
export async function runBootstrap(snapshot: CheckedSnapshot, store: BootstrapWriter, log: Logger): Promise<void> {
  await loadSnapshot(snapshot, store, log, { flush: () => flushLogSync(log) });
}

export function bootstrapOption(): Option {
  return new Option(
    '--bootstrap <file>',
    "fill an empty index from the node's dumptxoutset file (Bitcoin Core >= 28 or Litecoin Core 0.21), then follow the node from its base block",
  );
}
