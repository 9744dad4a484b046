/**
 * Child process for store tests (run with `node --import tsx`):
 *   hold  <db>                 open for writing, print "ready", wait to be killed
 *   try   <db>                 try to open for writing, print one JSON line {ok} or {code, message}, exit
 *   churn <db> <seed> <blocks> apply the seeded random chain in random batches, with random rollbacks,
 *                              forever (until SIGKILLed); prints "ready" once the store is open
 *   list  <db> [pause]         turn the UTXO listing on, printing a line per event ("building", "shard <k>"
 *                              after shard k commits, "built"), then "done" (even when nothing was built),
 *                              then wait to be killed; with `pause`, block for good (between two shards)
 *                              after printing the pause-th shard line
 */
import { ChainStore, StoreError } from '../../src/store/sqlite/chain-store.js';
import { randomChain } from './blocks.js';
import { CHURN_UNDO_DEPTH, churnChainOptions } from './store-child-run.js';

const OPTS = { chain: 'LTC', network: 'regtest' } as const;

function main(): void {
  const [mode, path, seedArg, blocksArg] = process.argv.slice(2);
  if (!path) throw new Error('usage: store-child.ts hold|try|churn <db> [seed blocks]');
  if (mode === 'hold') {
    // Kept reachable: a collected store would close its connections and release the lock it holds.
    const held = ChainStore.open(path, OPTS);
    process.stdout.write('ready\n');
    setInterval(() => held.tip(), 1 << 30);
  } else if (mode === 'try') {
    try {
      ChainStore.open(path, OPTS).close();
      process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      process.stdout.write(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
    }
  } else if (mode === 'list') {
    const store = ChainStore.open(path, { ...OPTS, cacheMiB: 8 });
    const pause = seedArg === undefined ? Infinity : Number(seedArg);
    let shards = 0;
    // stdout on a pipe is synchronous on Linux: each line is out before the next shard starts.
    store.setUtxoList(true, (e) => {
      process.stdout.write(e.kind === 'shard' ? `shard ${e.shard}\n` : `${e.kind}\n`);
      // Blocks the thread for good: the shard is committed, the next one not begun.
      if (e.kind === 'shard' && ++shards === pause) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    });
    process.stdout.write('done\n');
    setInterval(() => store.tip(), 1 << 30);
  } else if (mode === 'churn') {
    churn(path, Number(seedArg), Number(blocksArg));
  } else {
    throw new Error(`unknown mode ${String(mode)}`);
  }
}

function churn(path: string, seed: number, blocks: number): void {
  const chain = randomChain(seed, churnChainOptions(blocks));
  const store = ChainStore.open(path, { ...OPTS, undoDepth: CHURN_UNDO_DEPTH, cacheMiB: 8 });
  process.stdout.write('ready\n');
  const rand = (n: number): number => Math.floor(Math.random() * n);
  for (;;) {
    const tip = store.tip();
    const next = tip ? tip.height + 1 : 0;
    if (tip && !chain[tip.height]!.hash.equals(tip.hash)) throw new Error(`tip ${tip.height} is not on the chain`);
    if (tip && (next >= chain.length || rand(5) === 0)) {
      // Roll back a few blocks (never past the undo window) and let the loop re-apply them.
      for (let k = 1 + rand(4); k > 0 && store.tip() && store.tip()!.height > 0; k--) store.rollbackTip();
      continue;
    }
    store.applyBlocks(chain.slice(next, next + 1 + rand(8)));
    store.setNodeHeight(chain.length - 1, new Date());
  }
}

main();
