/**
 * The writer side of the mempool-follow benchmark: the indexer's own mempool path (ChainStore +
 * MempoolFollower + the ZMQ rawtx/sequence subscription) on a prepared index, with a node stand-in that
 * reports the index's tip and an empty mempool (the reconcile timer is set past the run, so ZMQ is the
 * only source). Prints one JSON line a second: held transactions and resident memory.
 *
 *   node --import tsx bench/mempool-follow-writer.ts <db> <zmq endpoint>
 */
import { toDisplayHex } from '../src/chain/hash.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../src/store/sqlite/engine.js';
import { MempoolFollower } from '../indexer/mempool-follow.js';
import { followMempoolEvents } from '../indexer/zmq-mempool.js';

const [dbPath, endpoint] = process.argv.slice(2);
if (!dbPath || !endpoint) throw new Error('usage: mempool-follow-writer <db> <endpoint>');
const store = ChainStore.open(dbPath, { chain: 'LTC', network: 'mainnet' });
const tip = toDisplayHex(store.tip()!.hash);
const log = { info: () => undefined, warn: (o: object, m: string) => process.stderr.write(`${m} ${JSON.stringify(o)}\n`) };
const source = {
  bestBlockHash: () => Promise.resolve(tip),
  mempoolTxids: () => Promise.resolve([...store.mempool.txids()].map(toDisplayHex)),
  rawTransactions: (txids: readonly string[]) => Promise.resolve(txids.map(() => null)),
};
const writer = new SqliteIndexWriter(store, 'LTC', 'mainnet');
const follower = new MempoolFollower(writer.mempool, () => writer.tip(), source, { pollIntervalMs: 3_600_000 }, log);
const controller = new AbortController();
process.on('SIGTERM', () => controller.abort());
let peakRss = 0;
const timer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  process.stdout.write(`${JSON.stringify({ held: store.mempool.size, rss: process.memoryUsage().rss, peakRss })}\n`);
}, 1000);
void followMempoolEvents(endpoint, follower, log, controller.signal);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await follower.run(controller.signal);
clearInterval(timer);
store.close();
