/** The indexer's `--bootstrap FILE` flag and the two steps main.ts runs for it (bootstrap.ts). */
import { Option } from 'commander';

export { checkSnapshot, loadSnapshot, type CheckedSnapshot } from './bootstrap.js';

export function bootstrapOption(): Option {
  return new Option(
    '--bootstrap <file>',
    "fill an empty index from the node's dumptxoutset file (Bitcoin Core >= 28 or Litecoin Core 0.21), then follow the node from its base block",
  );
}
