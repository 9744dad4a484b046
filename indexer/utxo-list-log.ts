/** The indexer's log lines for the UTXO listing's build or removal (src/store/sqlite/utxo-list.ts's events). */
import type { LogSink } from '../src/logger.js';
import { hms } from './bootstrap.js';
import type { UtxoListEvent } from '../src/store/index-model.js';

export function logUtxoListEvent(log: Pick<LogSink, 'info'>, e: UtxoListEvent): void {
  switch (e.kind) {
    case 'building':
      // One part (PostgreSQL's single index) is built in one transaction: a kill keeps nothing of it.
      log.info(
        { utxos: e.utxos, shards: e.shards, of: e.of },
        e.of === 1
          ? `building the UTXO listing index over ${e.utxos} UTXOs (in one transaction: a kill starts it again)`
          : `building the UTXO listing index: ${e.shards} of its ${e.of} shards over ${e.utxos} UTXOs (a kill keeps the shards already built)`,
      );
      return;
    case 'shard':
      log.info(
        {
          shard: e.shard,
          built: e.built,
          of: e.of,
          utxos: e.utxos,
          total: e.total,
          seconds: round1(e.seconds),
          etaSeconds: Math.round(e.etaSeconds),
        },
        `UTXO listing index: shard ${e.shard.toString(16)} built (${e.built}/${e.of}), ${e.utxos}/${e.total} UTXOs, ${hms(e.seconds)} so far, ETA ${hms(e.etaSeconds)}`,
      );
      return;
    case 'built':
      log.info({ utxos: e.utxos, seconds: round1(e.seconds), indexBytes: e.indexBytes }, 'UTXO listing index built');
      return;
    case 'removed':
      log.info({}, 'UTXO listing index removed (utxoList is off)');
  }
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
