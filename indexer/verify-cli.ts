/**
 * `npm run verify -- --chain BTC|LTC`: recomputes every aggregate from the UTXO table and checks the
 * chain bookkeeping, on one read snapshot (safe while the indexer runs). Exit 0: consistent; 1: any
 * difference (listed); 2: the database cannot be read.
 */
import { Command, Option } from 'commander';
import { CHAIN_CODES, type ChainCode } from '../src/chain/params.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openReaderDb } from '../src/store/db.js';
import { chainDbPath } from '../src/store/paths.js';
import { verifyAggregates, verifyChain } from '../src/store/verify.js';

const program = new Command('verify')
  .description("Recompute every aggregate of a chain's index and report differences")
  .addOption(new Option('--chain <chain>', 'chain to verify').choices([...CHAIN_CODES]).makeOptionMandatory())
  .option('--db <file>', 'database file (default: <dataDir>/<chain>.sqlite)')
  .showHelpAfterError();
program.parse();
const opts = program.opts<{ chain: ChainCode; db?: string }>();

function main(): number {
  let file = opts.db;
  if (file === undefined) {
    try {
      file = chainDbPath(loadConfig().dataDir, opts.chain);
    } catch (err) {
      if (err instanceof ConfigError) {
        process.stderr.write(`addrsum verify: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  }
  const db = openReaderDb(file);
  try {
    const started = Date.now();
    const report = verifyAggregates(db);
    const problems = verifyChain(db);
    for (const d of report.differences) {
      process.stdout.write(`difference script_key=${d.scriptKey} stored=${JSON.stringify(d.stored)} computed=${JSON.stringify(d.computed)}\n`);
    }
    for (const p of problems) process.stdout.write(`problem ${p}\n`);
    process.stdout.write(
      `${opts.chain} ${file}: ${report.utxos} UTXOs, ${report.amount} sat, ${report.scripts} scripts; ` +
        `${report.differenceCount} aggregate differences, ${problems.length} chain problems ` +
        `(${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    return report.differenceCount === 0 && problems.length === 0 ? 0 : 1;
  } finally {
    db.close();
  }
}

try {
  process.exitCode = main();
} catch (err) {
  const e = err as { code?: string; message?: string };
  process.stderr.write(`addrsum verify: ${e.code ?? 'ERROR'}: ${e.message ?? String(err)}\n`);
  process.exitCode = 2;
}
