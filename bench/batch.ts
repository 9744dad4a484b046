/**
 * Benchmark "batch": POST /api/v1/LTC/addresses with 100 addresses against one GET of the single route,
 * on the real API process (auth and limits on, a private-tier key with raised limits) over an LTC index
 * written through ChainStore, with a mempool view. One keep-alive client, requests in strict
 * alternation (single, batch, single, batch, …) so both see the same machine state; figures are medians.
 *
 *   npx tsx bench/batch.ts
 *
 * Goal: a batch of 100 (one read for all) answers in ≤ 5× the time of one single request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ParsedTx } from '../src/chain/block-parser.js';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { chainDbPath } from '../src/store/paths.js';
import { startRaisedApi, timedRequest } from './bench-api.js';
import { machineLine, median, percentile, today, writeSection } from './report.js';
import { p2pkh, p2wpkh, sha, SyntheticChain } from './synthetic-chain.js';
import type { BlockToApply } from '../src/store/index-model.js';

const GOAL = 5;
const SCRIPTS = 20_000;
const UTXOS_PER_SCRIPT = 3;
const BATCH = 100;
const ROUNDS = 400;
const WARMUP = 50;

/** An LTC mainnet index: SCRIPTS scripts (half P2WPKH, half P2PKH) of UTXOS_PER_SCRIPT coins, and a mempool touching a tenth of them. */
function buildIndex(dataDir: string): string[] {
  const store = ChainStore.open(chainDbPath(dataDir, 'LTC'), { chain: 'LTC', network: 'mainnet' });
  try {
    const chain = new SyntheticChain('batch-bench');
    const scripts = Array.from({ length: SCRIPTS }, (_, i) => (i % 2 ? p2pkh : p2wpkh)(`batch-bench ${i}`));
    const blocks: BlockToApply[] = [chain.block([chain.tx('genesis', [{ script: scripts[0]!, value: 1 }], true)])];
    const coinbases: ParsedTx[] = [];
    for (let r = 0; r < UTXOS_PER_SCRIPT; r++) {
      for (let i = 0; i < SCRIPTS; i += 1000) {
        const tx = chain.tx(
          `cb ${r} ${i}`,
          scripts.slice(i, i + 1000).map((script, j) => ({ script, value: 10_000 + (((i + j) * 7919) % 1_000_000) })),
          true,
        );
        coinbases.push(tx);
        blocks.push(chain.block([tx]));
      }
    }
    store.applyBlocks(blocks);
    const tip = store.tip()!;
    store.setNodeHeight(tip.height, new Date());
    // Mempool: each of 2,000 transactions spends one confirmed coin and pays two scripts.
    const txs: ParsedTx[] = [];
    for (let n = 0; n < 2_000; n++) {
      const from = coinbases[n % coinbases.length]!;
      const vout = Math.floor(n / coinbases.length);
      const value = Number(from.outputs[vout]!.value);
      txs.push({
        txid: sha(`batch-bench mempool ${n}`),
        inputs: [{ prevTxid: from.txid, vout }],
        outputs: [
          { script: scripts[(n * 37) % SCRIPTS]!, value: BigInt(Math.floor(value / 2)) },
          { script: scripts[(n * 101 + 7) % SCRIPTS]!, value: BigInt(Math.floor(value / 2) - 500) },
        ],
        coinbase: false,
        hogEx: false,
        mweb: false,
      });
    }
    store.mempool.add(txs);
    const params = chainParams('LTC', 'mainnet');
    return scripts.map((s) => scriptToAddress(params, s)!);
  } finally {
    store.close();
  }
}

export interface BatchBenchResult {
  singleMs: number;
  batchMs: number;
  batchMempoolMs: number;
  singleP99: number;
  batchP99: number;
  ratio: number;
  ratioMempool: number;
  goalMet: boolean;
}

export async function runBatchBench(): Promise<BatchBenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bench-batch-'));
  try {
    const built = performance.now();
    const addresses = buildIndex(dir);
    process.stdout.write(
      `index of ${SCRIPTS} scripts and a 2,000-transaction mempool built in ${((performance.now() - built) / 1000).toFixed(1)} s\n`,
    );
    const { api, key } = await startRaisedApi(dir, 'mainnet', 'http://bench:bench@127.0.0.1:9');
    const url = new URL(api.url);
    const headers = { 'x-api-key': key };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const single: number[] = [];
    const batch: number[] = [];
    const batchMempool: number[] = [];
    try {
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        const pick = (i: number) => addresses[(round * 7919 + i * 104_729) % addresses.length]!;
        const send = (pathname: string, body?: string) => timedRequest(agent, url.hostname, url.port, pathname, headers, body);
        const s = await send(`/api/v1/LTC/address/${pick(0)}`);
        const body = JSON.stringify({ addresses: Array.from({ length: BATCH }, (_, i) => pick(i)) });
        const b = await send('/api/v1/LTC/addresses', body);
        const m = await send('/api/v1/LTC/addresses?mempool=true', body);
        for (const r of [s, b, m]) if (r.status !== 200) throw new Error(`batch bench: API answered ${r.status}: ${r.text.slice(0, 200)}`);
        if (round === 0 && (JSON.parse(b.text) as { data: { results: unknown[] } }).data.results.length !== BATCH)
          throw new Error('batch bench: short answer');
        if (round < WARMUP) continue;
        single.push(s.ms);
        batch.push(b.ms);
        batchMempool.push(m.ms);
      }
    } finally {
      agent.destroy();
      await api.stop();
    }
    const singleMs = median(single);
    const batchMs = median(batch);
    const batchMempoolMs = median(batchMempool);
    const result: BatchBenchResult = {
      singleMs,
      batchMs,
      batchMempoolMs,
      singleP99: percentile(
        [...single].sort((a, b) => a - b),
        0.99,
      ),
      batchP99: percentile(
        [...batch].sort((a, b) => a - b),
        0.99,
      ),
      ratio: batchMs / singleMs,
      ratioMempool: batchMempoolMs / singleMs,
      goalMet: batchMs / singleMs <= GOAL && batchMempoolMs / singleMs <= GOAL,
    };
    writeSection('batch', report(result));
    process.stdout.write(`${report(result)}\n`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(r: BatchBenchResult): string {
  const f = (ms: number) => ms.toFixed(3);
  return `## batch: 100 addresses in one request vs one single request

Goal: a batch of ${BATCH} answered in ≤ ${GOAL}× the time of one single request. **${r.goalMet ? 'Met' : 'Not met'}**:
batch ${r.ratio.toFixed(2)}×, batch with \`?mempool=true\` ${r.ratioMempool.toFixed(2)}× (medians of ${ROUNDS} alternating rounds).

| request | median ms | p99 ms |
|---|---|---|
| GET /api/v1/LTC/address/{a} | ${f(r.singleMs)} | ${f(r.singleP99)} |
| POST /api/v1/LTC/addresses, ${BATCH} addresses | ${f(r.batchMs)} | ${f(r.batchP99)} |
| the same with ?mempool=true | ${f(r.batchMempoolMs)} | |

Setup: the real API process (\`src/api-process/addrsum-api.ts\`, key check and limits on, limits raised), an LTC mainnet
index of ${SCRIPTS.toLocaleString('en')} scripts × ${UTXOS_PER_SCRIPT} UTXOs and a 2,000-transaction mempool view,
one keep-alive client sending single, batch and mempool batch in turn (addresses drawn across the index,
half P2WPKH, half P2PKH). Times are from sending the request to the end of the body.
${machineLine()}, ${today()}. Command: \`npm run bench -- batch\`.`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runBatchBench();
}
