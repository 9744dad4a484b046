/**
 * Block assembly for the regtest chain builder: genesis, coinbase (BIP34 height, BIP141 witness
 * commitment), header with merkle root and a nonce ground to the regtest target.
 */
import { Block, script as bscript, Transaction } from 'bitcoinjs-lib';

/** Regtest's nBits (Bitcoin Core chainparams.cpp, CRegTestParams: powLimit 7fffff…). */
export const REGTEST_BITS = 0x207fffff;
/** Bitcoin Core's COINBASE_MATURITY: a coinbase output is spendable 100 blocks later. */
export const COINBASE_MATURITY = 100;
/** Regtest's consensus.nSubsidyHalvingInterval. */
const HALVING_INTERVAL = 150;
const INITIAL_SUBSIDY = 50 * 100_000_000;
/** BIP9 version bits top value, what Core's miner writes (ComputeBlockVersion with nothing signalling). */
const BLOCK_VERSION = 0x20000000;
/** BIP141 witness commitment header: OP_RETURN, push 36, 0xaa21a9ed. */
const WITNESS_COMMITMENT_HEADER = Uint8Array.from([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]);
const ZERO_HASH = new Uint8Array(32);

/** Bitcoin Core's GetBlockSubsidy, in satoshis. */
export function blockSubsidy(height: number): number {
  const halvings = Math.floor(height / HALVING_INTERVAL);
  return halvings >= 64 ? 0 : Math.floor(INITIAL_SUBSIDY / 2 ** halvings);
}

/**
 * The regtest genesis block exactly as Bitcoin Core's CreateGenesisBlock builds it (chainparams.cpp):
 * the "The Times" coinbase paying 50 BTC to Satoshi's P2PK key, time 1296688602, nonce 2. Its
 * coinbase never enters the UTXO set (Core never connects the genesis block's transactions).
 */
export function genesisBlock(): Block {
  const tx = new Transaction();
  tx.version = 1;
  const timestamp = Buffer.from('The Times 03/Jan/2009 Chancellor on brink of second bailout for banks');
  // Raw bytes, not bscript.compile: Core pushes CScriptNum(4) as data (01 04), which compile would
  // "minimise" into OP_4 and so change the genesis hash.
  const scriptSig = Buffer.concat([
    Buffer.from('04ffff001d0104', 'hex'), // push 486604799 (0x1d00ffff), push CScriptNum(4)
    Buffer.from([timestamp.length]),
    timestamp,
  ]);
  tx.addInput(ZERO_HASH, 0xffffffff, 0xffffffff, scriptSig);
  const satoshiKey = Buffer.from(
    '04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61de' +
      'b649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f',
    'hex',
  );
  tx.addOutput(bscript.compile([satoshiKey, bscript.OPS.OP_CHECKSIG]), BigInt(INITIAL_SUBSIDY));
  const block = new Block();
  block.version = 1;
  block.prevHash = ZERO_HASH;
  block.timestamp = 1296688602;
  block.bits = REGTEST_BITS;
  block.nonce = 2;
  block.transactions = [tx];
  block.merkleRoot = Block.calculateMerkleRoot([tx]);
  return block;
}

/**
 * A coinbase for `height`: scriptSig starts with the height as a minimal script number (BIP34, checked
 * by Core's ContextualCheckBlock) followed by an extra-nonce push that makes replacement blocks at the
 * same height differ. Outputs are added by the caller.
 */
export function coinbaseTx(height: number, extraNonce: number): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  const extra = new Uint8Array(4);
  new DataView(extra.buffer).setUint32(0, extraNonce, true);
  tx.addInput(ZERO_HASH, 0xffffffff, 0xffffffff, bscript.compile([bscript.number.encode(height), extra]));
  return tx;
}

export interface AssembleInput {
  prevHash: Uint8Array;
  timestamp: number;
  /** Coinbase first, with its outputs; the witness commitment is appended here when needed. */
  transactions: Transaction[];
}

/**
 * Finishes a block: when any transaction carries witness data, the coinbase gets the 32-byte zero
 * witness reserved value and an OP_RETURN commitment to hash256(witness root ‖ reserved) (BIP141,
 * Core's GenerateCoinbaseCommitment); then the merkle root; then the nonce is ground until the header
 * hash meets the regtest target (about two tries on average).
 */
export function assembleBlock({ prevHash, timestamp, transactions }: AssembleInput): Block {
  const coinbase = transactions[0];
  if (!coinbase?.isCoinbase()) throw new Error('first transaction must be the coinbase');
  if (transactions.slice(1).some((tx) => tx.hasWitnesses())) {
    coinbase.setWitness(0, [new Uint8Array(32)]);
    const commitment = Block.calculateMerkleRoot(transactions, true);
    const script = new Uint8Array(38);
    script.set(WITNESS_COMMITMENT_HEADER, 0);
    script.set(commitment, 6);
    coinbase.addOutput(script, 0n);
  }
  const block = new Block();
  block.version = BLOCK_VERSION;
  block.prevHash = prevHash;
  block.timestamp = timestamp;
  block.bits = REGTEST_BITS;
  block.transactions = transactions;
  block.merkleRoot = Block.calculateMerkleRoot(transactions);
  block.nonce = 0;
  while (!block.checkProofOfWork()) block.nonce++;
  return block;
}
