/**
 * A writer in its own process, for the kill and snapshot cases: `node --import tsx writer-child.ts <json>`
 * with ChildArgs. Opens the engine's writer (ChildWriterSpec), optionally turns the UTXO listing on,
 * goes on with the plan (plan.ts) from wherever the index stands, and prints one line per commit:
 * `ready <op>` (the last op the index already holds, -1: none), `op <i>` after op i commits, `done`.
 * Then it waits to be killed, so that a kill never races its own exit.
 */
import { pathToFileURL } from 'node:url';
import type { ChildEngineModule, ChildWriterSpec, WriterOptions } from './engine.js';
import { makePlan, resumeAfter, runOp, type PlanOptions } from './plan.js';

export interface ChildArgs {
  readonly spec: ChildWriterSpec;
  readonly writer: WriterOptions;
  readonly plan: PlanOptions;
  readonly utxoList: boolean;
  /** Keep history (asked for at every start: a no-op once the index keeps it). */
  readonly history?: boolean;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '') as ChildArgs;
  const engine = (await import(pathToFileURL(args.spec.module).href)) as ChildEngineModule;
  const writer = await engine.openWriter(args.spec.location, args.writer);
  if (args.utxoList) await writer.setUtxoList(true);
  if (args.history) await writer.setHistory(true);
  const plan = makePlan(args.plan);
  const from = resumeAfter(plan, await writer.tip());
  // stdout on a pipe is synchronous on Linux: a line is out before the next commit starts.
  process.stdout.write(`ready ${from}\n`);
  for (let i = from + 1; i < plan.ops.length; i++) {
    await runOp(writer, plan.ops[i]!);
    process.stdout.write(`op ${i}\n`);
  }
  process.stdout.write('done\n');
  setInterval(() => undefined, 1 << 30);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
