/**
 * The transactions of the benchmark chain, built and signed here (not by the node's wallet, which signs
 * ~10× slower and has no taproot on 0.21): our own keys of four kinds, spends of random confirmed coins,
 * payments to scripts nobody here can spend, change back to our keys.
 *
 * Shape, chosen to look like a busy real chain rather than a best case for anyone:
 * - inputs: 1 (80 %), 2 (15 %) or 3 (5 %) coins picked uniformly from every confirmed coin we own, so
 *   spends hit random old outpoints (random b-tree access for the indexer, as on mainnet);
 * - payments: 0–3 outputs of 0.0005–0.005 LTC, or 20–60 in one transaction out of five (batch payouts),
 *   to fresh random scripts of five kinds (a fresh script per output, so most scripts hold one UTXO, as
 *   most mainnet addresses do) or, one payment in ten, to one of 40 "hot" scripts (exchange-like
 *   addresses that collect thousands of UTXOs);
 * - change: 1–3 outputs back to our keys (P2WPKH 50 %, P2PKH 25 %, P2SH-P2WPKH 15 %, P2TR 10 %).
 */
import { createHash } from 'node:crypto';
import { Transaction, crypto as bcrypto, initEccLib, payments, script as bscript } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { scriptToAddress } from '../src/chain/address.js';
import { chainParams } from '../src/chain/params.js';
import { SeededRng } from '../harness/seeded-rng.js';

initEccLib(ecc);

const PARAMS = chainParams('LTC', 'regtest');
const NETWORK = PARAMS.bitcoinjs;

/** Flat fee per transaction: ≥ 8 sat/vB for the largest shape built here (~2,500 vB; Litecoin relays from 1). */
export const FEE = 20_000;
const MIN_CHANGE = 1_000_000;
const HOT_SCRIPTS = 40;

type KeyKind = 'p2wpkh' | 'p2pkh' | 'p2sh-p2wpkh' | 'p2tr';

interface Key {
  kind: KeyKind;
  priv: Uint8Array;
  pub: Uint8Array;
  /** scriptPubKey of this key's address. */
  script: Buffer;
  address: string;
  /** P2PKH script of the key (the BIP143 scriptCode of P2WPKH). */
  scriptCode: Buffer;
  /** P2SH-P2WPKH redeem script. */
  redeem: Buffer | null;
  /** BIP341 key-path secret (P2TR only). */
  tweaked: Uint8Array | null;
}

/** A coin we own: txid in internal byte order. */
export interface Coin {
  txid: Buffer;
  vout: number;
  value: number;
  key: number;
}

function kindOf(i: number): KeyKind {
  const r = i % 20;
  return r < 10 ? 'p2wpkh' : r < 15 ? 'p2pkh' : r < 18 ? 'p2sh-p2wpkh' : 'p2tr';
}

function makeKey(seed: string, i: number): Key {
  for (let salt = 0; ; salt++) {
    const priv = createHash('sha256').update(`addrsum-bench-key/${seed}/${i}/${salt}`).digest();
    if (!ecc.isPrivate(priv)) continue;
    const pub = ecc.pointFromScalar(priv, true)!;
    const hash = bcrypto.hash160(pub);
    const scriptCode = Buffer.from(payments.p2pkh({ hash, network: NETWORK }).output!);
    const wpkh = Buffer.from(payments.p2wpkh({ hash, network: NETWORK }).output!);
    const kind = kindOf(i);
    let script: Buffer;
    let redeem: Buffer | null = null;
    let tweaked: Uint8Array | null = null;
    if (kind === 'p2wpkh') script = wpkh;
    else if (kind === 'p2pkh') script = scriptCode;
    else if (kind === 'p2sh-p2wpkh') {
      redeem = wpkh;
      script = Buffer.from(payments.p2sh({ redeem: { output: wpkh }, network: NETWORK }).output!);
    } else {
      script = Buffer.from(payments.p2tr({ internalPubkey: pub.subarray(1, 33), network: NETWORK }).output!);
      // BIP341 key path with no script tree: negate d for an odd-y point, then add TapTweak(x(P)).
      const d = pub[0] === 0x03 ? ecc.privateNegate(priv) : priv;
      tweaked = ecc.privateAdd(d, bcrypto.taggedHash('TapTweak', pub.subarray(1, 33)))!;
    }
    return { kind, priv, pub, script, address: scriptToAddress(PARAMS, script)!, scriptCode, redeem, tweaked };
  }
}

/** A random standard scriptPubKey of one of five kinds (nobody holds its key: it is never spent). */
function randomScript(rng: SeededRng): Buffer {
  const r = rng.int(100);
  if (r < 40) return Buffer.concat([Buffer.from([0x00, 0x14]), rng.bytes(20)]);
  if (r < 65) return Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), rng.bytes(20), Buffer.from([0x88, 0xac])]);
  if (r < 85) return Buffer.concat([Buffer.from([0xa9, 0x14]), rng.bytes(20), Buffer.from([0x87])]);
  if (r < 95) return Buffer.concat([Buffer.from([0x51, 0x20]), rng.bytes(32)]);
  return Buffer.concat([Buffer.from([0x00, 0x20]), rng.bytes(32)]);
}

export interface BuiltTx {
  hex: string;
  /** Our change outputs: confirmed (spendable by later blocks) once the block is mined. */
  change: Coin[];
}

export class TxFactory {
  readonly keys: Key[];
  readonly hotScripts: Buffer[];
  private readonly rng: SeededRng;
  /** Confirmed coins we own; spent ones are removed (swap-remove: O(1) random picks). */
  private readonly pool: Coin[] = [];

  constructor(seed: string, nKeys: number) {
    this.rng = new SeededRng(`${seed}/txs`);
    this.keys = Array.from({ length: nKeys }, (_, i) => makeKey(seed, i));
    // Hot scripts are P2WPKH or P2PKH: the address kinds exchanges reuse.
    this.hotScripts = Array.from({ length: HOT_SCRIPTS }, (_, i) =>
      i % 2
        ? Buffer.concat([Buffer.from([0x00, 0x14]), this.rng.bytes(20)])
        : Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), this.rng.bytes(20), Buffer.from([0x88, 0xac])]),
    );
  }

  keyAddress(i: number): string {
    return this.keys[i % this.keys.length]!.address;
  }

  randomKeyAddress(): string {
    return this.keyAddress(this.rng.int(this.keys.length));
  }

  poolSize(): number {
    return this.pool.length;
  }

  /** Makes coins spendable (confirmed coinbases, or change once its block is mined). */
  addCoins(coins: readonly Coin[]): void {
    for (const c of coins) this.pool.push(c);
  }

  private take(): Coin {
    const i = this.rng.int(this.pool.length);
    const coin = this.pool[i]!;
    this.pool[i] = this.pool[this.pool.length - 1]!;
    this.pool.pop();
    return coin;
  }

  /** One signed transaction spending pool coins; null when the pool is empty. */
  build(): BuiltTx | null {
    if (this.pool.length === 0) return null;
    const r = this.rng.int(100);
    const nIn = Math.min(r < 80 ? 1 : r < 95 ? 2 : 3, this.pool.length);
    const inputs = Array.from({ length: nIn }, () => this.take());
    let total = inputs.reduce((s, c) => s + c.value, 0);
    const payments: { script: Buffer; value: number }[] = [];
    // One transaction in five is a batch payout (exchange withdrawals, pool payouts): 20–60 outputs.
    const nPay = this.rng.chance(20) ? this.rng.range(20, 60) : [0, 1, 1, 2, 3][this.rng.int(5)]!;
    for (let i = 0; i < nPay; i++) {
      const script = this.rng.chance(10) ? this.rng.pick(this.hotScripts) : randomScript(this.rng);
      payments.push({ script, value: this.rng.range(50_000, 500_000) });
    }
    let avail = total - FEE - payments.reduce((s, p) => s + p.value, 0);
    while (avail < MIN_CHANGE && payments.length > 0) avail += payments.pop()!.value;
    while (avail < MIN_CHANGE && this.pool.length > 0) {
      const extra = this.take();
      inputs.push(extra);
      total += extra.value;
      avail += extra.value;
    }
    if (avail < MIN_CHANGE) throw new Error('benchmark chain: our coins ran out of value');
    let nChange = [1, 1, 1, 2, 2, 3][this.rng.int(6)]!;
    while (nChange > 1 && avail / nChange < 2 * MIN_CHANGE) nChange--;

    const tx = new Transaction();
    tx.version = 2;
    for (const c of inputs) tx.addInput(c.txid, c.vout);
    const outputs: { script: Buffer; value: number; key: number | null }[] = payments.map((p) => ({ ...p, key: null }));
    let left = avail;
    for (let i = 0; i < nChange; i++) {
      const value = i === nChange - 1 ? left : MIN_CHANGE + this.rng.int(Math.floor(left / (nChange - i)) - MIN_CHANGE + 1);
      left -= value;
      const key = this.rng.int(this.keys.length);
      outputs.splice(this.rng.int(outputs.length + 1), 0, { script: this.keys[key]!.script, value, key });
    }
    for (const o of outputs) tx.addOutput(o.script, BigInt(o.value));
    this.sign(tx, inputs);
    const txid = Buffer.from(tx.getHash());
    const change: Coin[] = [];
    outputs.forEach((o, vout) => {
      if (o.key !== null) change.push({ txid, vout, value: o.value, key: o.key });
    });
    return { hex: tx.toHex(), change };
  }

  private sign(tx: Transaction, inputs: readonly Coin[]): void {
    const ALL = Transaction.SIGHASH_ALL;
    const prevScripts = inputs.map((c) => this.keys[c.key]!.script);
    const values = inputs.map((c) => BigInt(c.value));
    inputs.forEach((coin, n) => {
      const key = this.keys[coin.key]!;
      if (key.kind === 'p2tr') {
        const h = tx.hashForWitnessV1(n, prevScripts, values, Transaction.SIGHASH_DEFAULT);
        tx.setWitness(n, [ecc.signSchnorr(h, key.tweaked!)]);
      } else if (key.kind === 'p2pkh') {
        const sig = bscript.signature.encode(ecc.sign(tx.hashForSignature(n, key.scriptCode, ALL), key.priv), ALL);
        tx.setInputScript(n, bscript.compile([sig, key.pub]));
      } else {
        const sig = bscript.signature.encode(ecc.sign(tx.hashForWitnessV0(n, key.scriptCode, values[n]!, ALL), key.priv), ALL);
        tx.setWitness(n, [sig, key.pub]);
        if (key.redeem) tx.setInputScript(n, bscript.compile([key.redeem]));
      }
    });
  }
}

/** The address of a hot script (for lookups). */
export function hotAddress(script: Buffer): string {
  return scriptToAddress(PARAMS, script)!;
}
