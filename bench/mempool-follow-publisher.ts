/**
 * The node side of the mempool-follow benchmark, in its own process so that building and sending
 * messages never delays the measuring client: a real zeromq PUB in bitcoind's rawtx/sequence format.
 * Transactions are prepared before each phase (each spends the next confirmed coin of the benchmark's
 * index to two of its scripts); a phase sends RATE a second in 10 ms slices.
 *
 * stdout: {"endpoint"} once bound, {"connected"} once the writer subscribed, {"published","seconds"}
 * after each phase. stdin: `go <seconds>` per phase.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { toDisplayHex } from '../src/chain/hash.js';
import { parseTransaction } from '../src/chain/tx-parser.js';
import { MempoolPublisher } from '../harness/mempool-publisher.js';
import { followCoin, followScript, RATE, rawTx, SCRIPTS } from './mempool-follow-txs.js';

const publisher = await MempoolPublisher.bind();
process.stdout.write(`${JSON.stringify({ endpoint: publisher.endpoint })}\n`);
void publisher.subscriberConnected().then(() => process.stdout.write(`${JSON.stringify({ connected: true })}\n`));
let next = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const m = /^go (\d+)$/.exec(line.trim());
  if (!m) break;
  const seconds = Number(m[1]);
  const prepared = Array.from({ length: RATE * seconds }, () => {
    const n = next++;
    const coin = followCoin(n);
    const raw = rawTx(coin, [
      { script: followScript((n * 37) % SCRIPTS), value: Math.floor(coin.value / 2) },
      { script: followScript((n * 101) % SCRIPTS), value: Math.floor(coin.value / 2) - 300 },
    ]);
    return { raw, txid: toDisplayHex(parseTransaction(raw).txid) };
  });
  const started = performance.now();
  let sent = 0;
  for (let slice = 0; sent < prepared.length; slice++) {
    for (let k = 0; k < RATE / 100 && sent < prepared.length; k++, sent++) {
      const t = prepared[sent]!;
      await publisher.rawtx(t.raw);
      await publisher.sequence(t.txid, 'A');
    }
    const wait = started + (slice + 1) * 10 - performance.now();
    if (wait > 0) await sleep(wait);
  }
  process.stdout.write(`${JSON.stringify({ published: sent, seconds: (performance.now() - started) / 1000 })}\n`);
}
publisher.close();
