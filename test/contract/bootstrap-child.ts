/**
 * A snapshot load in its own process, for the bootstrap case's kill: `node --import tsx bootstrap-child.ts
 * <json>` with BootstrapChildArgs. Opens the engine's writer (ChildWriterSpec), prints `ready`, loads the
 * snapshot of makeSnapshot(seed, height) `chunk` coins per commit with its sums, and when the load asks
 * for coin `stallAt` (or, with 'sums', for the first script sum: every coin read) prints `stall <n>` and
 * blocks the process there (the chunks before it committed, the one it is in open), to be killed.
 */
import { pathToFileURL } from 'node:url';
import type { ChildEngineModule, ChildWriterSpec, WriterOptions } from './engine.js';
import { makeSnapshot } from './snapshot-gen.js';

export interface BootstrapChildArgs {
  readonly spec: ChildWriterSpec;
  readonly writer: WriterOptions;
  readonly seed: number;
  readonly height: number;
  readonly chunk: number;
  readonly stallAt: number | 'sums';
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '') as BootstrapChildArgs;
  const engine = (await import(pathToFileURL(args.spec.module).href)) as ChildEngineModule;
  const writer = await engine.openWriter(args.spec.location, args.writer);
  const snap = makeSnapshot(args.seed, args.height);
  process.stdout.write('ready\n');
  const stall = (what: string): void => {
    // stdout on a pipe is synchronous on Linux: the line is out before the thread stops.
    process.stdout.write(`stall ${what}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };
  function* rows(): Generator<unknown[]> {
    for (let i = 0; i < snap.rows.length; i++) {
      if (i === args.stallAt) stall(String(i));
      yield snap.rows[i]!;
    }
  }
  function* sums(): Generator<unknown[]> {
    if (args.stallAt === 'sums') stall('sums');
    yield* snap.sums;
  }
  await writer.loadSnapshot(rows, snap.base, { chunkCoins: args.chunk, totalCoins: snap.rows.length, sums });
  process.stdout.write('done\n');
  setInterval(() => undefined, 1 << 30);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
