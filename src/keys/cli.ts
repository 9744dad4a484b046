/**
 * `npm run keys -- create [--tier default|private] [--label TEXT]` — prints the new key once, as the last
 * line of stdout (scripts take `tail -n 1`).
 * `npm run keys -- list [--json]` — ids, tiers, labels, dates; never secrets (only digests exist).
 * `npm run keys -- revoke <id>` — running APIs refuse the key from their next request on.
 * The file is <dataDir>/keys.sqlite (ADDRSUM_DATA_DIR / config), created on first use.
 */
import { Command, Option } from 'commander';
import { keysDbPath, loadConfigOrExit } from '../config.js';
import { KeyStore, type KeyRecord } from './key-store.js';
import { TIER_NAMES, type Tier } from './tier.js';

const MAX_LABEL = 200;

function withStore<T>(fn: (store: KeyStore) => T): T {
  const store = KeyStore.open(keysDbPath(loadConfigOrExit()));
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

function table(records: readonly KeyRecord[]): string {
  const rows = records.map((r) => [r.id, r.tier, r.revokedAt ? `revoked ${r.revokedAt}` : 'active', r.createdAt, r.label]);
  const head = ['ID', 'TIER', 'STATUS', 'CREATED', 'LABEL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

const program = new Command()
  .name('keys')
  .description('Manage addrsum API keys (stored as SHA-256 digests in keys.sqlite)')
  .showHelpAfterError();

program
  .command('create')
  .description('create a key and print it once (last line of stdout)')
  .addOption(new Option('--tier <tier>', 'limit tier').choices(TIER_NAMES).default('private'))
  .option('--label <text>', 'free text to recognise the key by', '')
  .action((opts: { tier: Tier; label: string }) => {
    if (opts.label.length > MAX_LABEL || [...opts.label].some((c) => c < ' ' || c === '\u007f')) {
      program.error(`error: --label must be at most ${MAX_LABEL} printable characters`);
    }
    const { key, record } = withStore((store) => store.create(opts.tier, opts.label));
    const label = record.label ? `, label ${JSON.stringify(record.label)}` : '';
    process.stdout.write(`Created key ${record.id} (tier ${record.tier}${label}).\n`);
    process.stdout.write('Store it now: it cannot be shown again. Send it in the x-api-key header.\n');
    process.stdout.write(`${key}\n`);
  });

program
  .command('list')
  .description('list keys (ids, tiers, labels, dates; no secrets)')
  .option('--json', 'print JSON instead of a table')
  .action((opts: { json?: boolean }) => {
    const records = withStore((store) => store.list());
    if (opts.json) process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
    else process.stdout.write(records.length ? `${table(records)}\n` : 'No keys yet. Create one: npm run keys -- create\n');
  });

program
  .command('revoke')
  .description('revoke a key by id; running APIs refuse it from their next request on')
  .argument('<id>', 'key id as shown by list')
  .action((id: string) => {
    const result = withStore((store) => store.revoke(id));
    if (result.outcome === 'unknown') {
      process.stderr.write(`keys: no key with id ${JSON.stringify(id)} (see: npm run keys -- list)\n`);
      process.exitCode = 1;
    } else if (result.outcome === 'already') {
      process.stdout.write(`Key ${id} was already revoked at ${result.at}.\n`);
    } else {
      process.stdout.write(`Revoked key ${id} at ${result.at}.\n`);
    }
  });

program.parse(process.argv);
