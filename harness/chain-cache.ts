/**
 * Regtest chains built once per test run and copied for each suite that needs one.
 *
 * Building the varied chain takes a node tens of seconds of wallet work, and a dozen suites used to do it
 * each on its own node. A chain here is built by the first process that asks for it, on a node of its
 * own, stopped cleanly and kept as a datadir template beside a JSON copy of what the builder returned.
 * Every asker then starts litecoind on a fresh copy (startLitecoind's `from`), so suites still never
 * share a running node or see each other's changes. Processes (vitest workers) take turns by a lock
 * directory; a holder that died is noticed by its pid and the lock taken over.
 *
 * A template is named by the caller's name and a digest of the chain builders' sources, so a changed
 * builder never serves an old chain; one built on another (a recipe's base) is named after it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLitecoind, type Litecoind } from './litecoind.js';
import { buildVariedChain, type BuildOptions, type ChainManifest } from './regtest-chain.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE_DIR = join(tmpdir(), 'addrsum-chain-cache');
/** A build that takes longer than this is taken as stuck by the processes waiting on it. */
const WAIT_MS = 15 * 60_000;
/** Templates of other builder versions are removed once this old. */
const STALE_MS = 24 * 3600_000;

export interface CachedChain<T> {
  /** What the chain was asked as, with the builders' digest. */
  name: string;
  /** A stopped node's datadir; pass it as startLitecoind's `from`, never start a node on it. */
  template: string;
  value: T;
}

export interface ChainRecipe {
  /** Build on a copy of this chain instead of a fresh node. */
  base?: CachedChain<unknown>;
  /** Further files (repo-relative) the builder's result depends on. */
  sources?: readonly string[];
}

/** The chain `asked`, built by `build` on a fresh node the first time any process of this run asks. */
export async function cachedChain<T>(
  asked: string,
  build: (node: Litecoind) => Promise<T>,
  recipe: ChainRecipe = {},
): Promise<CachedChain<T>> {
  const name = `${asked}-${buildersDigest(recipe.sources ?? [])}${recipe.base === undefined ? '' : `-on-${recipe.base.name}`}`;
  const dir = join(CACHE_DIR, name);
  const found = (value: T): CachedChain<T> => ({ name, template: join(dir, 'datadir'), value });
  const done = join(dir, 'value.json');
  const lock = `${dir}.lock`;
  await mkdir(CACHE_DIR, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await readValue<T>(done);
    if (value !== undefined) return found(value);
    if (await takeLock(lock)) break;
    if (Date.now() > deadline) throw new Error(`chain ${name}: another process has been building it for ${WAIT_MS} ms (${lock})`);
    await sleep(250);
  }
  try {
    const value = await readValue<T>(done);
    if (value !== undefined) return found(value);
    const building = `${dir}.building`;
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    if (recipe.base !== undefined) await cp(recipe.base.template, join(building, 'datadir'), { recursive: true });
    const node = await startLitecoind({ datadir: join(building, 'datadir') });
    let built: T;
    try {
      built = await build(node);
    } finally {
      await node.stop();
    }
    await writeFile(join(building, 'value.json'), JSON.stringify(built, encode));
    await rm(dir, { recursive: true, force: true });
    await rename(building, dir);
    await pruneStale();
    return found(built);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** The varied chain (regtest-chain.ts) for these options, built once per run. */
export function cachedVariedChain(opts: Omit<BuildOptions, 'onStep'> = {}): Promise<CachedChain<ChainManifest>> {
  return cachedChain(`varied-${opts.seed ?? 1}-${Math.max(opts.perKind ?? 40, 24)}`, (node) => buildVariedChain(node, opts));
}

async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    await writeFile(join(lock, 'pid'), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => 'NaN'));
  // A lock without a pid yet is being taken right now; one whose process is gone is abandoned.
  if (Number.isInteger(holder) && !alive(holder)) await rm(lock, { recursive: true, force: true });
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readValue<T>(file: string): Promise<T | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text, decode) as T);
}

async function pruneStale(): Promise<void> {
  const now = Date.now();
  for (const entry of readdirSync(CACHE_DIR)) {
    const path = join(CACHE_DIR, entry);
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_MS) await rm(path, { recursive: true, force: true });
  }
}

/** Every harness source plus the caller's extra files: a builder edit makes a new template. */
function buildersDigest(sources: readonly string[]): string {
  const hash = createHash('sha256');
  const files = [
    ...readdirSync(HERE)
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => join(HERE, f)),
    ...sources.map((f) => join(HERE, '..', f)),
  ];
  for (const f of files) hash.update(f).update(readFileSync(f));
  return hash.digest('hex').slice(0, 16);
}

// Manifests hold Maps and bigints, which JSON has no form for.
function encode(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value instanceof Map) return { $map: [...value.entries()] };
  return value;
}

function decode(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object') {
    if ('$bigint' in value && typeof value.$bigint === 'string') return BigInt(value.$bigint);
    if ('$map' in value && Array.isArray(value.$map)) return new Map(value.$map as [unknown, unknown][]);
  }
  return value;
}
