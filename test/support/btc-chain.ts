/**
 * BtcChain: a deterministic regtest Bitcoin chain built in memory with bitcoinjs-lib, for testing the
 * BTC indexer without a bitcoind. Blocks are consensus-shaped (BIP34 coinbase height, merkle root,
 * BIP141 witness commitment, nonce meeting the regtest target) and every spend is really signed.
 *
 * Alongside the blocks it keeps its own UTXO set (btc-chain-model.ts), so a test can ask what any
 * address should hold without trusting project code. Reorgs disconnect blocks with per-block undo and
 * mine a longer branch of different transactions; the dropped blocks stay reachable as stale blocks,
 * the way a node keeps them in its block index.
 */
import { Transaction } from 'bitcoinjs-lib';
import { assembleBlock, blockSubsidy, COINBASE_MATURITY, coinbaseTx, genesisBlock } from './btc-chain-block.js';
import { outpointKey, UtxoModel, type Balance, type BlockUndo, type Coin } from './btc-chain-model.js';
import { makeTx, specialOutputs, type SpendCandidate } from './btc-chain-txs.js';
import { makeOwnedScript, OWNED_KINDS, type AddressKind, type OwnedKind, type OwnedScript } from './btc-chain-wallet.js';
import { SeededRng } from '../../harness/seeded-rng.js';

export type { Balance, Coin } from './btc-chain-model.js';
export { ADDRESS_KINDS, BARE_KINDS, OWNED_KINDS } from './btc-chain-wallet.js';
export type { AddressKind, BareKind, OwnedKind } from './btc-chain-wallet.js';

export interface BtcBlock {
  /** Display (byte-reversed) hex, as RPC shows it. */
  readonly hash: string;
  readonly height: number;
  /** Display hex of the parent; 64 zeros for genesis. */
  readonly prevHash: string;
  /** Consensus serialization with witness data, what `getblock <hash> 0` returns. */
  readonly raw: Buffer;
  readonly time: number;
  readonly txids: readonly string[];
}

export interface MineOptions {
  /** Non-coinbase transactions per block, as many as funds allow (none before block 101). Default 3. */
  txsPerBlock?: number;
}

/** An address-bearing script that received an output in some block built (active or stale branch). */
export interface ChainAddress {
  readonly address: string;
  readonly kind: AddressKind;
  readonly script: string;
}

/** Any script that entered the UTXO set in some block built, address or not. */
export interface ChainScript {
  readonly kind: OwnedKind | 'nonstandard';
  readonly script: string;
  readonly address: string | null;
}

/** Distinct scripts per kind the builder draws from; the unit test requires ≥ 40 used per address kind. */
const POOL_SIZE = 64;
/** Regtest block spacing target (seconds) used for timestamps. */
const BLOCK_SPACING = 600;

export class BtcChain {
  private readonly rng: SeededRng;
  private readonly model = new UtxoModel();
  private readonly active: BtcBlock[] = [];
  private readonly undos: BlockUndo[] = [];
  private readonly stale: BtcBlock[] = [];
  private readonly byHash = new Map<string, BtcBlock>();
  private readonly pools = new Map<OwnedKind, OwnedScript[]>(OWNED_KINDS.map((k) => [k, []]));
  private readonly owned = new Map<string, OwnedScript>();
  private readonly paid = new Map<string, ChainScript>();
  /** Height of the active block holding the one-off special outputs, or null if none yet. */
  private specialsHeight: number | null = null;
  /** Counts every block built, so replacement blocks at a height get different coinbases. */
  private built = 0;

  constructor(seed: number | string) {
    this.rng = new SeededRng(seed);
    const genesis = genesisBlock();
    // Genesis is stored but never connected: Core never adds its coinbase to the UTXO set.
    this.record(genesis.getId(), 0, '0'.repeat(64), Buffer.from(genesis.toBuffer()), genesis.timestamp, [
      (genesis.transactions?.[0] as Transaction).getId(),
    ]);
    this.undos.push({ spent: [], created: [] });
  }

  get tipHeight(): number {
    return this.active.length - 1;
  }

  get tip(): BtcBlock {
    return this.active[this.active.length - 1] as BtcBlock;
  }

  /** The active chain; index = height. Live: it changes as the chain is mined or reorganised. */
  get blocks(): readonly BtcBlock[] {
    return this.active;
  }

  /** Blocks disconnected by reorgs: reorg by reorg, each reorg's blocks in height order. */
  get staleBlocks(): readonly BtcBlock[] {
    return this.stale;
  }

  /** Any block ever built, with whether it is on the active chain. */
  lookup(hash: string): { block: BtcBlock; active: boolean } | undefined {
    const block = this.byHash.get(hash);
    if (!block) return undefined;
    return { block, active: this.active[block.height]?.hash === hash };
  }

  /** Mines `n` blocks on the tip. */
  mine(n: number, opts: MineOptions = {}): BtcBlock[] {
    const out: BtcBlock[] = [];
    for (let i = 0; i < n; i++) out.push(this.mineOne(opts.txsPerBlock ?? 3));
    return out;
  }

  /**
   * Disconnects the last `depth` blocks (undoing their effects), then mines `depth + 1` blocks of
   * different transactions, so the new branch has more work and a node would switch to it.
   */
  reorg(depth: number, opts: MineOptions = {}): BtcBlock[] {
    if (!Number.isInteger(depth) || depth < 1 || depth > this.tipHeight) {
      throw new RangeError(`reorg depth ${depth} outside 1..${this.tipHeight}`);
    }
    const dropped: BtcBlock[] = [];
    for (let i = 0; i < depth; i++) {
      const block = this.active.pop() as BtcBlock;
      this.model.undoBlock(this.undos.pop() as BlockUndo);
      dropped.unshift(block);
      if (this.specialsHeight === block.height) this.specialsHeight = null;
    }
    this.stale.push(...dropped);
    return this.mine(depth + 1, opts);
  }

  /** Address-bearing scripts paid in any block built (stale branches included), in first-paid order. */
  addresses(): ChainAddress[] {
    const out: ChainAddress[] = [];
    for (const s of this.paid.values()) {
      if (s.address !== null) out.push({ address: s.address, kind: s.kind as AddressKind, script: s.script });
    }
    return out;
  }

  /** Every script that entered the UTXO set in any block built, including P2PK, bare multisig, nonstandard. */
  scripts(): ChainScript[] {
    return [...this.paid.values()];
  }

  /** Current UTXO set summed per scriptPubKey hex; scripts with no UTXO are absent. */
  balances(): Map<string, Balance> {
    return this.model.balances();
  }

  /** Balance of one script (zeros when it holds nothing). */
  balanceOf(scriptHex: string): Balance {
    return this.model.balances().get(scriptHex.toLowerCase()) ?? { sats: 0, utxos: 0 };
  }

  /** The whole UTXO set: satoshis and count. */
  totals(): Balance {
    return this.model.totals();
  }

  /** A copy of the UTXO set, keyed `txid:vout`. */
  utxos(): Map<string, Coin> {
    return new Map(this.model.entries());
  }

  private record(hash: string, height: number, prevHash: string, raw: Buffer, time: number, txids: string[]): BtcBlock {
    const block: BtcBlock = { hash, height, prevHash, raw, time, txids };
    this.active.push(block);
    this.byHash.set(hash, block);
    return block;
  }

  private mineOne(txsPerBlock: number): BtcBlock {
    const height = this.tipHeight + 1;
    const prev = this.tip;
    const undo = { spent: [] as [string, Coin][], created: [] as string[] };
    const coinbase = coinbaseTx(height, this.built++);
    const txs: Transaction[] = [coinbase];
    const createdHere = new Set<string>();
    let fees = 0;
    for (let i = 0; i < txsPerBlock; i++) {
      const wantSpecials = this.specialsHeight === null;
      const made = makeTx(this.rng, {
        candidates: this.spendable(height),
        createdHere,
        // The last transaction of a block spends an output made earlier in the same block when it can.
        forceSameBlock: i === txsPerBlock - 1,
        specials: wantSpecials ? specialOutputs() : [],
        destination: () => this.destination(),
      });
      if (!made) break;
      if (wantSpecials && made.withSpecials) this.specialsHeight = height;
      this.model.applyTx(made.tx, height, undo);
      this.notePaid(made.tx);
      const txid = made.tx.getId();
      made.tx.outs.forEach((_, vout) => createdHere.add(outpointKey(txid, vout)));
      fees += made.fee;
      txs.push(made.tx);
    }
    // Coinbases rotate over every owned kind, so each kind also receives immature-then-mature coins.
    const payee = this.destination(OWNED_KINDS[height % OWNED_KINDS.length]);
    coinbase.addOutput(payee.script, BigInt(blockSubsidy(height) + fees));
    const block = assembleBlock({
      prevHash: Buffer.from(prev.hash, 'hex').reverse(),
      timestamp: prev.time + BLOCK_SPACING,
      transactions: txs,
    });
    this.model.applyTx(coinbase, height, undo);
    this.notePaid(coinbase);
    this.undos.push(undo);
    return this.record(
      block.getId(),
      height,
      prev.hash,
      Buffer.from(block.toBuffer()),
      block.timestamp,
      txs.map((t) => t.getId()),
    );
  }

  /** Owned coins a transaction in a block at `height` may spend (coinbases only once mature). */
  private spendable(height: number): SpendCandidate[] {
    const out: SpendCandidate[] = [];
    for (const [key, coin] of this.model.entries()) {
      const owner = this.owned.get(coin.script);
      if (!owner) continue;
      // Core's CheckTxInputs: nSpendHeight - coin.nHeight < COINBASE_MATURITY is premature.
      if (coin.coinbase && height - coin.height < COINBASE_MATURITY) continue;
      out.push({ key, coin, owner });
    }
    return out;
  }

  /** A script to pay: often a fresh one of the kind (until its pool is full), else a reused one. */
  private destination(kind: OwnedKind = this.rng.pick(OWNED_KINDS)): OwnedScript {
    const pool = this.pools.get(kind) as OwnedScript[];
    if (pool.length === 0 || (pool.length < POOL_SIZE && this.rng.chance(55))) {
      const fresh = makeOwnedScript(kind, pool.length, this.rng);
      pool.push(fresh);
      this.owned.set(fresh.scriptHex, fresh);
      return fresh;
    }
    return this.rng.pick(pool);
  }

  /** Registers the scripts of `tx`'s outputs that entered the UTXO set (just after it was applied). */
  private notePaid(tx: Transaction): void {
    const txid = tx.getId();
    tx.outs.forEach((out, vout) => {
      const hex = Buffer.from(out.script).toString('hex');
      if (this.paid.has(hex) || this.model.get(outpointKey(txid, vout)) === undefined) return;
      const owner = this.owned.get(hex);
      this.paid.set(hex, { kind: owner?.kind ?? 'nonstandard', script: hex, address: owner?.address ?? null });
    });
  }
}
