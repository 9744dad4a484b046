/**
 * `addrsum-keys` (`npm run keys --`), as a function of its arguments:
 *   create [--tier default|private] [--label TEXT]  prints the new key once, as the last line of stdout
 *   list [--json]                                    ids, tiers, labels, dates; never secrets (only digests exist)
 *   revoke <id>                                      running APIs refuse the key from their next request on
 * The store is <dataDir>/keys.sqlite, or PostgreSQL when keysUrl (ADDRSUM_KEYS_URL) is set; the first
 * `create` creates the file or schema (list and revoke never do).
 * Returns the exit code.
 */
import { existsSync } from 'node:fs';
import { CommanderError, Option } from 'commander';
import { ownCommand } from '../command-hint.js';
import { keysDbPath, type Config } from '../config.js';
import { openSqliteKeyStore } from '../store/sqlite/engine.js';
import { openPostgresKeyStore } from '../store/postgres/engine.js';
import { redactUrl } from '../redact.js';
import { StoreError } from '../store/errors.js';
import { TIER_NAMES, type Tier } from '../store/keys/tier.js';
import { newProgram } from '../cli/program.js';
import type { CommandIo } from '../cli/io.js';
import type { KeyRecord, KeyStore } from '../store/ports.js';

const MAX_LABEL = 200;

function table(records: readonly KeyRecord[]): string {
  const rows = records.map((r) => [r.id, r.tier, r.revokedAt ? `revoked ${r.revokedAt}` : 'active', r.createdAt, r.label]);
  const head = ['ID', 'TIER', 'STATUS', 'CREATED', 'LABEL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `config` is read only when a subcommand runs, so `--help` and `--version` work with a broken one. */
export async function main(argv: readonly string[], config: () => Config, io: CommandIo): Promise<number> {
  let code = 0;
  const keysFile = () => keysDbPath(config());
  const keysUrl = () => config().keysUrl;
  /** Where the keys are, for messages: the file, or the database without its password. */
  const where = () => {
    const url = keysUrl();
    return url === undefined ? keysFile() : `PostgreSQL ${redactUrl(url)}`;
  };
  /** A file not created yet holds no keys (a database's missing schema is the store's own case). */
  const stored = () => keysUrl() !== undefined || existsSync(keysFile());
  const createHint = () => ownCommand('keys', 'create');
  const withStore = async <T>(fn: (store: KeyStore) => Promise<T>): Promise<T> => {
    const url = keysUrl();
    const store = url === undefined ? openSqliteKeyStore(keysFile()) : openPostgresKeyStore(url);
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  };
  const program = newProgram({
    name: 'addrsum-keys',
    description: 'Manage addrsum API keys (stored as SHA-256 digests in keys.sqlite, or in PostgreSQL with ADDRSUM_KEYS_URL)',
    settings: ['dataDir', 'keysUrl'],
  })
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('create')
    .description('create a key and print it once (last line of stdout)')
    .addOption(new Option('--tier <tier>', 'limit tier').choices(TIER_NAMES).default('private'))
    .option('--label <text>', 'free text to recognise the key by', '')
    .action(async (opts: { tier: Tier; label: string }) => {
      if (opts.label.length > MAX_LABEL || [...opts.label].some((c) => c < ' ' || c === '\u007f')) {
        program.error(`error: --label must be at most ${MAX_LABEL} printable characters`);
      }
      const { key, record } = await withStore((store) => store.create(opts.tier, opts.label));
      const label = record.label ? `, label ${JSON.stringify(record.label)}` : '';
      io.out(`Created key ${record.id} (tier ${record.tier}${label}) in ${where()}.\n`);
      io.out('Store it now: it cannot be shown again. Send it in the x-api-key header.\n');
      io.out(`${key}\n`);
    });

  program
    .command('list')
    .description('list keys (ids, tiers, labels, dates; no secrets)')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean }) => {
      const records = stored() ? await withStore((store) => store.list()) : [];
      if (opts.json) io.out(`${JSON.stringify(records, null, 2)}\n`);
      else io.out(records.length ? `${table(records)}\n` : `No keys yet in ${where()}. Create one: ${createHint()}\n`);
    });

  program
    .command('revoke')
    .description('revoke a key by id; running APIs refuse it from their next request on')
    .argument('<id>', 'key id as shown by list')
    .action(async (id: string) => {
      const result = stored() ? await withStore((store) => store.revoke(id)) : { outcome: 'unknown' as const };
      if (result.outcome === 'unknown') {
        io.err(`keys: no key with id ${JSON.stringify(id)} in ${where()} (see: ${ownCommand('keys', 'list')})\n`);
        code = 1;
      } else if (result.outcome === 'already') {
        io.out(`Key ${id} was already revoked at ${result.at}.\n`);
      } else {
        io.out(`Revoked key ${id} at ${result.at}.\n`);
      }
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const why = storageProblem(err);
    if (why === null) throw err;
    io.err(`error: cannot use ${where()}: ${why}\n`);
    return 1;
  }
  return code;
}

/** A store's refusal, or a file-system, SQLite or PostgreSQL failure an operator can act on, in words; null for anything else (a bug). */
function storageProblem(err: unknown): string | null {
  if (err instanceof StoreError) return `${err.message} (${err.code})`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return `the disk is full (${code}); free space and try again`;
  if (code.startsWith('SQLITE_') || /^E[A-Z]+$/.test(code)) return `${message} (${code})`;
  if (/^[0-9A-Z]{5}$/.test(code)) return `${message} (SQLSTATE ${code})`;
  return null;
}
