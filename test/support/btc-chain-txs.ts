/**
 * Random but deterministic transactions for the regtest chain builder: coin selection (random picks,
 * address sweeps that leave an address empty, spends of outputs made earlier in the same block),
 * outputs to owned scripts of every kind, occasional OP_RETURNs, and the one-off special outputs whose
 * UTXO-set treatment an indexer must get right.
 */
import { script as bscript, Transaction } from 'bitcoinjs-lib';
import type { Coin } from './btc-chain-model.js';
import { signInput, type OwnedScript, type Prevout } from './btc-chain-wallet.js';
import type { SeededRng } from '../../harness/seeded-rng.js';

/** Smallest output we create (above every dust threshold). */
const MIN_OUT = 1_000;
/** Cap on coins gathered by one sweep of an address. */
const SWEEP_MAX = 8;
const OP_NOP = 0x61;
const OP_PUSHDATA2 = 0x4d;

export interface SpendCandidate {
  readonly key: string;
  readonly coin: Coin;
  readonly owner: OwnedScript;
}

export interface SpecialOutput {
  readonly script: Uint8Array;
  readonly value: number;
  /** Whether Core would add it to the UTXO set. */
  readonly entersUtxoSet: boolean;
}

/**
 * Outputs every chain should contain once (Core's rules in brackets):
 * - 10,001-byte script `OP_1 OP_NOP…`: longer than MAX_SCRIPT_SIZE, never in the set, its value burnt
 *   [IsUnspendable, size rule];
 * - exactly 10,000-byte script (one PUSHDATA2): at the limit, so it does enter the set;
 * - empty script and `OP_TRUE`: odd but spendable-looking, they enter the set;
 * - OP_RETURN carrying value: never in the set, value burnt [IsUnspendable, OP_RETURN rule].
 */
export function specialOutputs(): SpecialOutput[] {
  const oversized = new Uint8Array(10_001).fill(OP_NOP);
  oversized[0] = bscript.OPS.OP_1;
  const atLimit = new Uint8Array(10_000).fill(0xab);
  atLimit.set([OP_PUSHDATA2, 9_997 & 0xff, 9_997 >> 8], 0);
  return [
    { script: oversized, value: 10_000, entersUtxoSet: false },
    { script: atLimit, value: 1_000, entersUtxoSet: true },
    { script: new Uint8Array(0), value: 2_000, entersUtxoSet: true },
    { script: Uint8Array.from([bscript.OPS.OP_TRUE]), value: 3_000, entersUtxoSet: true },
    { script: bscript.compile([bscript.OPS.OP_RETURN, Buffer.from('addrsum burn')]), value: 5_000, entersUtxoSet: false },
  ];
}

export interface MakeTxInput {
  /** Coins that may be spent now (mature, owned, unspent). */
  readonly candidates: readonly SpendCandidate[];
  /** Outpoints created earlier in the block being built. */
  readonly createdHere: ReadonlySet<string>;
  /** Must spend one of `createdHere` if any is a candidate. */
  readonly forceSameBlock: boolean;
  /** Special outputs to include if funds allow (empty when already on chain). */
  readonly specials: readonly SpecialOutput[];
  /** Picks the script for each ordinary output. */
  readonly destination: () => OwnedScript;
}

export interface MadeTx {
  readonly tx: Transaction;
  /** Satoshis: inputs minus outputs. */
  readonly fee: number;
  readonly withSpecials: boolean;
}

function chooseInputs(rng: SeededRng, input: MakeTxInput): SpendCandidate[] {
  const { candidates } = input;
  const chosen = new Map<string, SpendCandidate>();
  const add = (c: SpendCandidate): void => void chosen.set(c.key, c);
  const sameBlock = candidates.filter((c) => input.createdHere.has(c.key));
  if (sameBlock.length > 0 && (input.forceSameBlock || rng.chance(15))) add(rng.pick(sameBlock));
  if (rng.chance(25)) {
    // Sweep: spend every coin of one script, so that script's balance drops to zero.
    const script = rng.pick(candidates).coin.script;
    candidates
      .filter((c) => c.coin.script === script)
      .slice(0, SWEEP_MAX)
      .forEach(add);
  } else {
    const n = rng.range(1, 3);
    for (let i = 0; i < n; i++) add(rng.pick(candidates));
  }
  return [...chosen.values()];
}

/** Splits `total` into `n` integer parts, each at least MIN_OUT. */
function split(rng: SeededRng, total: number, n: number): number[] {
  const spare = total - n * MIN_OUT;
  const cuts = Array.from({ length: n - 1 }, () => rng.int(spare + 1)).sort((a, b) => a - b);
  const bounds = [0, ...cuts, spare];
  return Array.from({ length: n }, (_, i) => MIN_OUT + (bounds[i + 1] as number) - (bounds[i] as number));
}

/** Builds and signs one transaction, or returns null when nothing can be spent. */
export function makeTx(rng: SeededRng, input: MakeTxInput): MadeTx | null {
  if (input.candidates.length === 0) return null;
  const inputs = chooseInputs(rng, input);
  const inSum = inputs.reduce((s, c) => s + c.coin.value, 0);
  let fee = rng.range(200, 3_000);
  const specialsValue = input.specials.reduce((s, o) => s + o.value, 0);
  const withSpecials = input.specials.length > 0 && inSum >= fee + specialsValue + 10 * MIN_OUT;
  const outputs: { script: Uint8Array; value: number }[] = withSpecials ? [...input.specials] : [];
  let available = inSum - fee - (withSpecials ? specialsValue : 0);
  if (available < MIN_OUT) {
    // Every owned coin holds ≥ MIN_OUT, so shrinking the fee always leaves one output's worth.
    fee = inSum - MIN_OUT;
    available = MIN_OUT;
  }
  const count = Math.min(rng.range(1, 4), Math.floor(available / MIN_OUT));
  for (const value of split(rng, available, count)) outputs.push({ script: input.destination().script, value });
  if (rng.chance(8)) {
    const data = rng.bytes(rng.range(1, 40));
    outputs.splice(rng.int(outputs.length + 1), 0, { script: bscript.compile([bscript.OPS.OP_RETURN, data]), value: 0 });
  }

  const tx = new Transaction();
  tx.version = 2;
  for (const c of inputs) {
    const [txid, vout] = c.key.split(':') as [string, string];
    // 0xfffffffd: opts in to BIP125 replacement, as Core's wallet does by default.
    tx.addInput(Buffer.from(txid, 'hex').reverse(), Number(vout), 0xfffffffd);
  }
  for (const o of outputs) tx.addOutput(o.script, BigInt(o.value));
  const prevouts: Prevout[] = inputs.map((c) => ({ script: c.owner.script, value: BigInt(c.coin.value) }));
  inputs.forEach((c, i) => signInput(tx, i, c.owner, prevouts));
  return { tx, fee, withSpecials };
}
