/**
 * Litecoin transactions in the form Electrum wallets parse. litecoind serializes a transaction with MWEB
 * data (flag bit 0x08: the HogEx that ends every block after MWEB activation, or a peg-in relayed with its
 * MWEB body) as version, marker 0x00, flags, vin, vout, the witnesses when flags&1, then the MWEB part
 * (a present byte and, when it is 1, the body), then the lock time. Electrum 4.3.4 knows only the witness
 * flag and drops the server on anything else, so a wallet paid by a peg-out could never sync.
 *
 * Dropping the MWEB flag bit and the MWEB part leaves the legacy or segwit form of the same transparent
 * transaction, whose txid is unchanged: a transaction's txid (tx-parser.ts legacyTxid) covers version,
 * vin, vout and lock time only. An MWEB-only transaction (no transparent input or output) has a txid
 * that hashes its MWEB kernel, so it has no such form: refused.
 */
import { ByteReader, ParseError } from '../byte-reader.js';
import { parseTransaction } from '../tx-parser.js';

const FLAG_WITNESS = 0x01;
const FLAG_MWEB = 0x08;

/**
 * `raw` with its MWEB part removed (see above), or `raw` itself when it has none. Throws ParseError
 * for bytes that are not one transaction, and MALFORMED for an MWEB-only transaction.
 */
export function withoutMweb(raw: Buffer): Buffer {
  const tx = parseTransaction(raw);
  // Extended form: an empty vin (0x00) then a non-zero flags byte.
  if (raw.length < 10 || raw[4] !== 0x00 || raw[5] === 0x00) return raw;
  const flags = raw[5]!;
  if ((flags & FLAG_MWEB) === 0) return raw;
  if (tx.inputs.length === 0 && tx.outputs.length === 0)
    throw new ParseError('MALFORMED', 5, 'an MWEB-only transaction has no form without its MWEB part');
  const r = new ByteReader(raw, 6);
  const inCount = r.compactSize(1);
  for (let i = 0; i < inCount; i++) {
    r.skip(36);
    r.skip(r.compactSize(1));
    r.skip(4);
  }
  const outCount = r.compactSize(1);
  for (let i = 0; i < outCount; i++) {
    r.skip(8);
    r.skip(r.compactSize(1));
  }
  if (flags & FLAG_WITNESS)
    for (let i = 0; i < inCount; i++) {
      const items = r.compactSize(1);
      for (let j = 0; j < items; j++) r.skip(r.compactSize(1));
    }
  const mwebAt = r.pos;
  const rest = flags & ~FLAG_MWEB;
  const stripped = Buffer.concat([
    raw.subarray(0, 4),
    // No flag left: no marker either (the legacy form), as Core writes a transaction without witnesses.
    rest === 0 ? Buffer.alloc(0) : Buffer.from([0x00, rest]),
    raw.subarray(6, mwebAt),
    raw.subarray(raw.length - 4),
  ]);
  // The promise made to the wallet: the same transaction. Cheap next to the node's round trip.
  if (!parseTransaction(stripped).txid.equals(tx.txid))
    throw new ParseError('MALFORMED', mwebAt, 'stripping the MWEB part changed the txid');
  return stripped;
}
