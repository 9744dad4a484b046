/**
 * `addrsum-verify --chain BTC|LTC [--db FILE]` (`npm run verify --`), as a function: recomputes every
 * aggregate from the UTXO table and checks the chain bookkeeping on one read snapshot (safe while the
 * indexer runs), in the chain's SQLite file or in PostgreSQL (`chains.<C>.indexUrl`; --db names a file
 * and wins). Returns 0: consistent; 1: any difference (listed); 2: the database cannot be read.
 */
import { type Command, CommanderError, Option } from 'commander';
import { Sats, stringifyWithCoins } from '../chain/amount.js';
import { CHAIN_CODES, type ChainCode } from '../chain/params.js';
import { ConfigError, type Config } from '../config.js';
import { openSqliteVerifier } from './sqlite/engine.js';
import { openPostgresVerifier } from './postgres/engine.js';
import { describeLocation, indexLocation, type IndexLocation } from './paths.js';
import { newProgram } from '../cli/program.js';
import type { CommandIo } from '../cli/io.js';
import type { AggregateValues } from './index-model.js';

async function check(chain: ChainCode, where: IndexLocation, io: CommandIo): Promise<number> {
  const verifier = where.engine === 'postgres' ? await openPostgresVerifier(where.url, chain) : openSqliteVerifier(where.file);
  try {
    const started = Date.now();
    const report = await verifier.aggregates();
    const problems = await verifier.chain();
    for (const d of report.differences) {
      io.out(`difference script_key=${d.scriptKey} stored=${showValues(d.stored)} computed=${showValues(d.computed)}\n`);
    }
    for (const p of problems) io.out(`problem ${p}\n`);
    io.out(
      `${chain} ${where.engine === 'sqlite' ? where.file : describeLocation(where)}: ${report.utxos} UTXOs, ${report.amount} sat, ${report.scripts} scripts; ` +
        `${report.differenceCount} aggregate differences, ${problems.length} chain problems ` +
        `(${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    return report.differenceCount === 0 && problems.length === 0 ? 0 : 1;
  } finally {
    await verifier.close();
  }
}

/** The command's options and help, apart from running it: the docs test parses the documented command lines with it. */
export function verifyProgram(io: CommandIo): Command {
  return newProgram({
    name: 'addrsum-verify',
    description: "Recompute every aggregate of a chain's index and report differences",
    settings: ['dataDir', ...CHAIN_CODES.map((c) => `chains.${c}.indexUrl`)],
  })
    .addOption(new Option('--chain <chain>', 'chain to verify').choices([...CHAIN_CODES]).makeOptionMandatory())
    .option('--db <file>', "database file (default: the chain's indexUrl, else <dataDir>/<chain>.sqlite); --chain is still required")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
}

/** `config` is read only when no --db is given. */
export async function main(argv: readonly string[], config: () => Config, io: CommandIo): Promise<number> {
  const program = verifyProgram(io);
  try {
    program.parse(argv, { from: 'user' });
    const opts = program.opts<{ chain: ChainCode; db?: string }>();
    const where: IndexLocation =
      opts.db !== undefined
        ? { engine: 'sqlite', file: opts.db }
        : indexLocation(config().dataDir, opts.chain, config().chains[opts.chain].indexUrl);
    return await check(opts.chain, where, io);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const e = err as { code?: string; message?: string };
    io.err(`addrsum verify: ${err instanceof ConfigError ? err.message : `${e.code ?? 'ERROR'}: ${e.message ?? String(err)}`}\n`);
    return 2;
  }
}

/** An aggregate as JSON, the balance with every digit (JSON.stringify refuses a bigint). */
function showValues(v: AggregateValues | null): string {
  return v === null ? 'null' : stringifyWithCoins({ balance: new Sats(v.balance), utxoCount: v.utxoCount });
}
