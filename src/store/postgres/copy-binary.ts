/**
 * PostgreSQL's binary COPY format (the COPY reference, "Binary Format"): a signature header, then per
 * row a 16-bit field count and each field as a 32-bit length (−1: NULL) and its bytes, then a −1
 * trailer. Pure: it turns rows into Buffers, pg-copy.ts sends them.
 *
 * Binary, not text: on 1M snapshot rows (outpoint, script_key, value, height) into an unlogged table
 * it took 1.6–1.7 s against 2.1–3.7 s for text COPY with hex bytea (a bytea in text is twice as long and
 * parsed digit by digit on the server; here it is copied as is).
 */

/** How each column is sent: bytea as is (Buffer, or null), int8 (number or bigint), int4 (number). */
export type CopyColumn = 'bytea' | 'int8' | 'int4';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** The signature, the flags field (no OIDs) and the header extension length (none). */
const HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** Bytes per Buffer handed on: large enough that a socket write carries many rows. */
const BATCH_BYTES = 1 << 18;

/**
 * A COPY ... (FORMAT binary) stream of `rows` (each row's first `columns.length` fields, in order): the
 * header, batches of about BATCH_BYTES, the trailer. Lazy: a row is read when its batch is asked for.
 */
export function* binaryCopy(columns: readonly CopyColumn[], rows: Iterable<readonly unknown[]>): Generator<Buffer> {
  yield HEADER;
  let buf = Buffer.allocUnsafe(BATCH_BYTES);
  let at = 0;
  for (const row of rows) {
    const need = rowBytes(columns, row);
    if (at + need > buf.length) {
      if (at > 0) yield buf.subarray(0, at);
      buf = Buffer.allocUnsafe(Math.max(BATCH_BYTES, need));
      at = 0;
    }
    at = writeRow(buf, at, columns, row);
  }
  if (at > 0) yield buf.subarray(0, at);
  yield TRAILER;
}

function rowBytes(columns: readonly CopyColumn[], row: readonly unknown[]): number {
  let n = 2;
  for (let i = 0; i < columns.length; i++) {
    const col = columns[i]!;
    n += 4 + (col === 'int8' ? 8 : col === 'int4' ? 4 : ((row[i] as Buffer | null)?.length ?? 0));
  }
  return n;
}

function writeRow(buf: Buffer, start: number, columns: readonly CopyColumn[], row: readonly unknown[]): number {
  let at = buf.writeInt16BE(columns.length, start);
  for (let i = 0; i < columns.length; i++) {
    const value = row[i];
    switch (columns[i]!) {
      case 'bytea':
        if (value === null || value === undefined) at = buf.writeInt32BE(-1, at);
        else {
          const bytes = value as Buffer;
          at = buf.writeInt32BE(bytes.length, at);
          at += bytes.copy(buf, at);
        }
        break;
      case 'int8':
        at = buf.writeInt32BE(8, at);
        at = buf.writeBigInt64BE(typeof value === 'bigint' ? value : BigInt(value as number), at);
        break;
      case 'int4':
        at = buf.writeInt32BE(4, at);
        at = buf.writeInt32BE(value as number, at);
        break;
    }
  }
  return at;
}
