/**
 * Streams the coins of a `dumptxoutset` file in bounded memory: a window of the file is read with
 * readSync, records are decoded from it (src/chain/snapshot-format.ts), and a record that runs past the
 * window is retried after a refill (the window grows only for a record larger than itself).
 *
 * Yields index rows exactly as block sync writes them: the outpoint key, the script key, value and
 * height; unspendable outputs (CScript::IsUnspendable, the rule block sync uses) are counted and skipped.
 * The file must hold exactly the header's coin count and nothing after it. loadSource() yields
 * the same rows decoded on a worker thread (snapshot-stream.ts), which is how a bootstrap reads them.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ByteReader, ParseError } from '../src/chain/byte-reader.js';
import type { ChainCode, NetworkName } from '../src/chain/params.js';
import { isUnspendable } from '../src/chain/script.js';
import {
  CORE_HEADER_BYTES,
  parseSnapshotHeader,
  readRecord,
  SnapshotError,
  type SnapshotHeader,
  type SnapshotOutput,
} from '../src/chain/snapshot-format.js';
import { outpointKey } from '../src/store/outpoint.js';
import { scriptKey } from '../src/store/script-key.js';
import { WorkerStream, type CoinRow, type ReadStats, type ScriptSumRow } from './snapshot-stream.js';

const WINDOW = 8 << 20;

export class SnapshotFile {
  readonly stats: ReadStats;

  private constructor(
    readonly path: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
    readonly header: SnapshotHeader,
    fileBytes: number,
  ) {
    this.stats = { coins: 0, skipped: 0, bytes: header.dataOffset, fileBytes };
  }

  /** Reads and checks the header; throws SnapshotError (UNREADABLE, BAD_MAGIC, BAD_VERSION, WRONG_NETWORK, TRUNCATED). */
  static open(path: string, chain: ChainCode, network: NetworkName): SnapshotFile {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      throw new SnapshotError('UNREADABLE', `cannot read snapshot ${path}: ${(err as Error).message}`);
    }
    try {
      const head = Buffer.alloc(CORE_HEADER_BYTES);
      const n = readSync(fd, head, 0, head.length, 0);
      const header = parseSnapshotHeader(head.subarray(0, n), chain, network);
      return new SnapshotFile(path, chain, network, header, fstatSync(fd).size);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The bulk load's input (src/store/sqlite/bulk-load.ts), decoded on a worker thread while the caller inserts
   * (snapshot-stream.ts): each rows() reads the file anew (the sorting path reads it twice), sums() gives
   * the per-script sums of the rows read last, coinbases() the coinbase txids of their heights. close() stops the worker.
   */
  loadSource(): {
    rows(): Generator<CoinRow>;
    sums(): Iterable<ScriptSumRow> | null;
    coinbases(): Iterable<[number, Buffer | null]> | null;
    close(): void;
  } {
    let stream: WorkerStream | null = null;
    const close = (): void => stream?.close();
    return {
      rows: (): Generator<CoinRow> => {
        close();
        stream = new WorkerStream({ path: this.path, chain: this.chain, network: this.network }, this.stats);
        return stream.rows();
      },
      sums: () => stream?.sums() ?? null,
      coinbases: () => stream?.coinbases() ?? null,
      close,
    };
  }

  /** Every spendable coin in file order. Throws SnapshotError on a truncated, malformed or miscounted file. `windowBytes`: the initial read window (tests make it tiny). */
  *rows(windowBytes = WINDOW): Generator<CoinRow> {
    for (const outs of this.records(windowBytes)) {
      for (const o of outs) yield [outpointKey(o.txid, o.vout), scriptKey(o.coin.script), o.coin.value, o.coin.height];
    }
  }

  /** The spendable coins of each record in file order (a txid group, or one Litecoin coin), with the errors of rows(). */
  *records(windowBytes = WINDOW): Generator<SnapshotOutput[]> {
    const { kind, coinCount, dataOffset } = this.header;
    const stats = this.stats;
    stats.coins = 0;
    stats.skipped = 0;
    const fd = openSync(this.path, 'r');
    try {
      let buf = Buffer.allocUnsafe(windowBytes);
      let filePos = dataOffset;
      let start = 0;
      let end = 0;
      let eof = false;
      const refill = (): void => {
        // Keep the unread tail, grow only when one record fills the whole window.
        const tail = end - start;
        if (tail === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, start, end);
          buf = bigger;
        } else {
          buf.copy(buf, 0, start, end);
        }
        start = 0;
        end = tail;
        const n = readSync(fd, buf, end, buf.length - end, filePos);
        filePos += n;
        end += n;
        if (n === 0) eof = true;
      };
      refill();
      while (stats.coins < coinCount) {
        const r = new ByteReader(buf, start, end);
        let outs;
        try {
          outs = readRecord(r, kind, coinCount - stats.coins);
        } catch (err) {
          if (err instanceof ParseError && err.code === 'TRUNCATED') {
            if (eof) {
              throw new SnapshotError(
                'TRUNCATED',
                `snapshot truncated: the file ends after ${stats.coins} of the ${coinCount} coins its header announces`,
              );
            }
            refill();
            continue;
          }
          if (err instanceof ParseError)
            throw new SnapshotError('MALFORMED', `snapshot malformed after ${stats.coins} coins: ${err.message}`);
          throw err;
        }
        stats.bytes += r.pos - start;
        start = r.pos;
        stats.coins += outs.length;
        // A loop, not filter(): under tsx each closure created costs a naming call, once per record here.
        const spendable: SnapshotOutput[] = [];
        for (const o of outs) if (!isUnspendable(o.coin.script)) spendable.push(o);
        stats.skipped += outs.length - spendable.length;
        if (spendable.length > 0) yield spendable;
      }
      if (end > start || readSync(fd, Buffer.alloc(1), 0, 1, filePos) > 0) {
        throw new SnapshotError('COUNT_MISMATCH', `coin count mismatch: data continues after the ${coinCount} coins the header announces`);
      }
    } finally {
      closeSync(fd);
    }
  }
}
