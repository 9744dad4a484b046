/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [<name> …]` runs the named ones.
 *
 * Each benchmark rewrites its own section of BENCHMARKS.md and says whether its goal is met. The order
 * matters only for `disk`, which measures the database `node` leaves behind (it builds one if absent).
 * Benchmarks never fail the process for a missed goal: they are measurements, not tests. A benchmark
 * that cannot run (an exception) is reported and makes the exit code 1.
 */
import { runBatchBench } from './batch.js';
import { runDiskBench } from './disk.js';
import { runElectrumBench } from './electrum.js';
import { runEnginePortsBench } from './engine-ports.js';
import { runEsploraBench } from './esplora.js';
import { runHeavyBench } from './heavy.js';
import { runHistoryBench } from './history.js';
import { runHistoryBuildBench, runHistoryPagesBench } from './history-build.js';
import { runNodeBench } from './node.js';
import { runMempoolFollowBench } from './mempool-follow.js';
import { runParseBench } from './parse.js';
import { runPushBench } from './push.js';
import { runRequestBench } from './request.js';
import { runScaleBench } from './scale.js';
import { runScaleOutBench } from './scale-out.js';
import { runTipBench } from './tip.js';
import { runTxViewsBench } from './tx-views.js';
import { runXpubBench } from './xpub.js';
import { runUtxosBench } from './utxos.js';
import { runUtxosScaleBench } from './utxos-scale.js';
import { runWalletFairnessBench } from './wallet-fairness.js';

interface Outcome {
  goalMet: boolean;
}

const BENCHES: Record<string, () => Outcome | Promise<Outcome>> = {
  parse: () => runParseBench(),
  request: () => runRequestBench(),
  heavy: () => runHeavyBench(),
  node: () => runNodeBench(),
  disk: () => runDiskBench(),
  tip: () => runTipBench(),
  batch: () => runBatchBench(),
  'mempool-follow': () => runMempoolFollowBench(),
  scale: () => runScaleBench(),
  history: () => runHistoryBench(),
  'history-build': () => Promise.resolve(runHistoryBuildBench()),
  'history-pages': () => runHistoryPagesBench(),
  xpub: () => runXpubBench(),
  push: () => runPushBench(),
  utxos: () => runUtxosBench(),
  'utxos-scale': () => runUtxosScaleBench(),
  'wallet-fairness': () => runWalletFairnessBench(),
  'engine-ports': () => runEnginePortsBench(),
  'scale-out': () => runScaleOutBench(),
  electrum: () => runElectrumBench(),
  'tx-views': () => runTxViewsBench(),
  esplora: () => runEsploraBench(),
};

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(name in BENCHES));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  const names = asked.length > 0 ? asked : Object.keys(BENCHES);
  const lines: string[] = [];
  let failed = false;
  for (const name of names) {
    const started = performance.now();
    process.stdout.write(`\n=== bench ${name} ===\n`);
    try {
      const { goalMet } = await BENCHES[name]!();
      lines.push(`${name.padEnd(8)} goal ${goalMet ? 'met    ' : 'NOT met'}  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    } catch (err) {
      failed = true;
      lines.push(`${name.padEnd(8)} FAILED to run: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  process.stdout.write(`\nsummary (figures in BENCHMARKS.md):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  process.exit(failed ? 1 : 0);
}

await main();
