/**
 * Block parser for Bitcoin and Litecoin (MWEB included), working on the raw block bytes without
 * copying them: header, every transaction's txid, prevouts and outputs.
 *
 * Layout (Litecoin Core's CBlock serialization): header(80), CompactSize tx count, transactions, then
 * — only when there are at least two transactions and the last is a HogEx — the MWEB extension block.
 * Transparent effects are all in the transaction list, so parsing stops after the last transaction;
 * the extension block is neither read nor checked. Without a final HogEx, any byte after the last
 * transaction is an error.
 *
 * The merkle root is recomputed from the txids and must equal the header's: every byte that feeds a
 * txid is thereby checked against the block hash, so a parse never silently yields a different block.
 */
import { HEADER_SIZE, readHeader, type BlockHeader } from './block-header.js';
import { ByteReader, ParseError } from './byte-reader.js';
import { computeMerkle } from './merkle.js';
import { readTransaction, type ParsedTx } from './tx-parser.js';

export { ParseError, type ParseErrorCode } from './byte-reader.js';
export { HEADER_SIZE, type BlockHeader } from './block-header.js';
export { merkleRoot } from './merkle.js';
export { parseTransaction, type ParsedTx, type TxInput, type TxOutput } from './tx-parser.js';

export interface ParsedBlock {
  header: BlockHeader;
  txs: ParsedTx[];
  /** Length of the buffer parsed, extension block included. */
  size: number;
}

/** version(4) + empty vin(1) + empty vout(1) + locktime(4). */
const MIN_TX_SIZE = 10;
const MERKLE_ROOT_OFFSET = 36;

export function parseBlock(buf: Buffer): ParsedBlock {
  const header = readHeader(buf);
  const r = new ByteReader(buf, HEADER_SIZE);
  const count = r.compactSize(MIN_TX_SIZE);
  if (count === 0) throw new ParseError('MALFORMED', HEADER_SIZE, 'block without transactions');

  const txs: ParsedTx[] = new Array<ParsedTx>(count);
  const txids: Buffer[] = new Array<Buffer>(count);
  for (let i = 0; i < count; i++) {
    const tx = readTransaction(r);
    txs[i] = tx;
    txids[i] = tx.txid;
  }

  // CBlock's deserializer reads the extension block only when vtx.size() >= 2 && vtx.back()->IsHogEx().
  const hasExtension = count >= 2 && txs[count - 1]!.hogEx;
  if (!hasExtension && r.pos !== buf.length) {
    throw new ParseError('MALFORMED', r.pos, `${buf.length - r.pos} trailing bytes after the last transaction`);
  }

  const { root, mutated } = computeMerkle(txids);
  if (mutated) {
    throw new ParseError('MERKLE_MISMATCH', MERKLE_ROOT_OFFSET, 'duplicate transactions mutate the merkle tree');
  }
  if (!root.equals(header.merkleRoot)) {
    throw new ParseError('MERKLE_MISMATCH', MERKLE_ROOT_OFFSET, 'merkle root of the transactions differs from the header');
  }
  return { header, txs, size: buf.length };
}
