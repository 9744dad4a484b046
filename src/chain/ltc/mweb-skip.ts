/**
 * Walks over a Litecoin MWEB transaction body without keeping anything.
 *
 * The body sits inside a mempool transaction (after the witnesses, when `mweb_tx_present` is 0x01)
 * and has no length prefix, so the only way past it is to follow its structure. Layout as Litecoin
 * Core (libmw, src/libmw/include/mw/models/tx/*.h) serializes it:
 *
 *   mw::Transaction  kernel_offset(32) stealth_offset(32) TxBody
 *   mw::TxBody       vector<Input> vector<Output> vector<Kernel>          (CompactSize counts)
 *   mw::Input        features(1) output_id(32) commitment(33) output_pubkey(33)
 *                    [features&1: input_pubkey(33)] [features&2: extra_data vector<u8>] signature(64)
 *   mw::Output       commitment(33) sender_pubkey(33) receiver_pubkey(33) OutputMessage
 *                    range_proof(675, fixed, no prefix) signature(64)
 *   OutputMessage    features(1) [features&1: key_exchange_pubkey(33) view_tag(1) masked_value(8)
 *                    masked_nonce(16)] [features&2: extra_data vector<u8>]
 *   mw::Kernel       features(1) [&1 fee VarInt] [&2 pegin VarInt] [&4 vector<PegOutCoin>]
 *                    [&8 lock_height VarInt] [&0x10 stealth_excess(33)] [&0x20 extra_data vector<u8>]
 *                    excess(33) signature(64)
 *   PegOutCoin       amount VarInt, scriptPubKey vector<u8> (Core refuses an empty one)
 *
 * VarInt here is Core's ReadVarInt (NONNEGATIVE_SIGNED), not CompactSize.
 */
import { ByteReader, ParseError } from '../byte-reader.js';

const HASH = 32;
const BLIND = 32;
const COMMIT = 33;
const PUBKEY = 33;
const SIG = 64;
const RANGE_PROOF = 675;

// Smallest encodings, used to refuse counts that cannot fit in the remaining bytes.
const MIN_INPUT = 1 + HASH + COMMIT + PUBKEY + SIG;
const MIN_OUTPUT = COMMIT + PUBKEY + PUBKEY + 1 + RANGE_PROOF + SIG;
const MIN_KERNEL = 1 + COMMIT + SIG;
const MIN_PEGOUT = 1 + 1;

/**
 * Skips an MWEB transaction body at `r.pos`. Returns the byte range of its first kernel (empty when
 * there is none): an MWEB-only transaction's txid is that kernel's hash.
 */
export function skipMwebTxBody(r: ByteReader): { kernelStart: number; kernelEnd: number } {
  r.skip(BLIND + BLIND);
  const inputs = r.compactSize(MIN_INPUT);
  for (let i = 0; i < inputs; i++) skipInput(r);
  const outputs = r.compactSize(MIN_OUTPUT);
  for (let i = 0; i < outputs; i++) skipOutput(r);
  const kernels = r.compactSize(MIN_KERNEL);
  const kernelStart = r.pos;
  let kernelEnd = r.pos;
  for (let i = 0; i < kernels; i++) {
    skipKernel(r);
    if (i === 0) kernelEnd = r.pos;
  }
  return { kernelStart, kernelEnd };
}

function skipBytesVector(r: ByteReader): void {
  r.skip(r.compactSize(1));
}

function skipInput(r: ByteReader): void {
  const features = r.u8();
  r.skip(HASH + COMMIT + PUBKEY);
  if (features & 0x01) r.skip(PUBKEY);
  if (features & 0x02) skipBytesVector(r);
  r.skip(SIG);
}

function skipOutput(r: ByteReader): void {
  r.skip(COMMIT + PUBKEY + PUBKEY);
  const features = r.u8();
  if (features & 0x01) r.skip(PUBKEY + 1 + 8 + 16);
  if (features & 0x02) skipBytesVector(r);
  r.skip(RANGE_PROOF + SIG);
}

function skipKernel(r: ByteReader): void {
  const features = r.u8();
  if (features & 0x01) r.skipVarInt(64);
  if (features & 0x02) r.skipVarInt(64);
  if (features & 0x04) {
    const pegouts = r.compactSize(MIN_PEGOUT);
    for (let i = 0; i < pegouts; i++) {
      r.skipVarInt(64);
      const at = r.pos;
      const len = r.compactSize(1);
      // PegOutCoin's deserializer: "Pegout scriptPubKey must not be empty".
      if (len === 0) throw new ParseError('MALFORMED', at, 'empty peg-out script');
      r.skip(len);
    }
  }
  if (features & 0x08) r.skipVarInt(32);
  if (features & 0x10) r.skip(PUBKEY);
  if (features & 0x20) skipBytesVector(r);
  r.skip(COMMIT + SIG);
}
