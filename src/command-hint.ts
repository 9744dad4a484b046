/**
 * The command line a hint should print for one of our own commands, in the install at hand: a checkout
 * running the TypeScript sources has `npm run keys -- …` (tsx is a dev dependency), a production install
 * (`npm ci --omit=dev` + build) has only the compiled entry, reachable as `addrsum-keys` when npm linked
 * it onto PATH, else as `node <its file>`. Decided at run time, so a hint never names a missing tool.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageFile } from './package-root.js';

export type OwnCommand = 'api' | 'indexer' | 'keys' | 'verify';

export interface HintEnv {
  /** Whether this code runs from the TypeScript sources (under tsx) rather than the build. */
  fromSources: boolean;
  /** Whether `npm run <script>` can work here: the script's runner (tsx) is installed. */
  hasTsx: boolean;
  /** The PATH entries searched for `addrsum-<command>`. */
  pathDirs: readonly string[];
  cwd: string;
  /** package.json's `bin` map, relative to the package root. */
  bins: Readonly<Record<string, string>>;
  root: string;
}

function readBins(): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { bin?: Record<string, string> };
    return pkg.bin ?? {};
  } catch {
    return {};
  }
}

export function currentHintEnv(): HintEnv {
  return {
    fromSources: fileURLToPath(import.meta.url).endsWith('.ts'),
    hasTsx: existsSync(packageFile('node_modules', '.bin', 'tsx')),
    pathDirs: (process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    cwd: process.cwd(),
    bins: readBins(),
    root: packageFile(),
  };
}

/** e.g. `ownCommand('keys', 'create')` → `npm run keys -- create` | `addrsum-keys create` | `node dist/…/addrsum-keys.js create`. */
export function ownCommand(command: OwnCommand, args: string, env: HintEnv = currentHintEnv()): string {
  const name = `addrsum-${command}`;
  if (env.fromSources && env.hasTsx) return `npm run ${command} -- ${args}`;
  if (env.pathDirs.some((dir) => existsSync(path.join(dir, name)))) return `${name} ${args}`;
  const bin = env.bins[name];
  if (bin === undefined) return `${name} ${args}`;
  const file = path.join(env.root, bin);
  const rel = path.relative(env.cwd, file);
  return `node ${rel.startsWith('..') || path.isAbsolute(rel) ? file : rel} ${args}`;
}
