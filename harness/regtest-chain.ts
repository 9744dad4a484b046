/**
 * Builds a varied Litecoin regtest chain on a fresh node (startLitecoind) for the indexer, the parser
 * tests, the demo and the benchmarks (~10–20 s on a shared 2-core machine, ~445 blocks):
 *
 *  1. `perKind` (default 40) addresses of each kind: P2PKH, P2SH-P2WPKH, P2WPKH, P2WSH (1-of-2
 *     multisig), P2SH 2-of-3 multisig (all from the wallet), P2TR (the test's own keys, see
 *     regtest-taproot.ts: the 0.21 wallet has no bech32m);
 *  2. coinbase outputs to two addresses of each kind, then 150 blocks so that plenty is mature;
 *  3. three funding rounds, so many addresses hold several UTXOs (funding outputs are wallet-locked so
 *     that the wallet's own payments do not drain them);
 *  4. spends that empty addresses 2..11 of every kind and take one UTXO from 12..21 (taproot too);
 *  5. one transaction with P2PK, bare multisig, OP_RETURN, 10,001- and 10,000-byte scripts and
 *     future witness versions (regtest-special.ts);
 *  6. random activity, then blocks up to 431; peg-ins sent at 431 so that the MWEB activation block
 *     432 carries them (it must: otherwise mining fails with bad-txns-vin-empty);
 *  7. a block with an empty extension block, a block whose HogEx pays peg-outs to every kind, a block
 *     with an MWEB-to-MWEB transaction, and more random activity.
 * Finally every block is read back and every address any output paid goes into the manifest
 * (wallet change included), so the manifest accounts for the node's whole UTXO set.
 * The same seed gives the same kinds of chain, not the same bytes: the wallet's keys are random.
 */
import type { AddressKind, ChainManifest, ManifestAddress, NotableBlocks } from './regtest-manifest.js';
import { addAddress } from './regtest-manifest.js';
import { mine, mineWithActivity, sample } from './regtest-activity.js';
import { recordBlockAddresses, spendableUtxos } from './regtest-scan.js';
import { sendSpecialOutputs } from './regtest-special.js';
import { taprootKey } from './regtest-taproot.js';
import { spendTaproot } from './regtest-taproot-spend.js';
import {
  coins,
  lockOutpoints,
  mapLimit,
  newWalletAddress,
  pegOut,
  sendMwebToMweb,
  spendWalletUtxos,
  walletUtxos,
  type RegtestNode,
} from './regtest-wallet.js';
import { SeededRng } from './seeded-rng.js';

export type { AddressKind, ChainManifest, ManifestAddress, NotableBlocks, SpecialOutput } from './regtest-manifest.js';
export { addressesOfKind } from './regtest-manifest.js';
export { mine, mineWithActivity, type ActivityOptions } from './regtest-activity.js';
export {
  recordBlockAddresses,
  scanAddresses,
  scanScripts,
  scanUnspents,
  spendableUtxos,
  utxoSetTotals,
  type AddressScan,
  type UtxoSetTotals,
} from './regtest-scan.js';
export { sendMwebToMweb } from './regtest-wallet.js';

/** Litecoin regtest activates MWEB at this height (3 × 144-block BIP9 windows). */
export const MWEB_ACTIVATION_HEIGHT = 432;

export const WALLET_KINDS: readonly AddressKind[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2sh-multisig'];
export const PLANNED_KINDS: readonly AddressKind[] = [...WALLET_KINDS, 'p2tr'];

export interface BuildOptions {
  /** Seed of every random choice; the same seed on a fresh node gives the same kind of chain. */
  seed?: number;
  /** Addresses per kind (at least 24). Default 40. */
  perKind?: number;
  /** Called as each step finishes, with its wall time (progress for the demo, profiling). */
  onStep?: (step: string, ms: number) => void;
}

interface BlockV2 {
  height: number;
  tx: { txid: string; vin: unknown[]; vout: { scriptPubKey: { type: string } }[] }[];
  mweb?: { inputs: unknown[]; outputs: unknown[]; kernels: unknown[] };
}

export async function buildVariedChain(node: RegtestNode, opts: BuildOptions = {}): Promise<ChainManifest> {
  const seed = opts.seed ?? 1;
  const perKind = Math.max(opts.perKind ?? 40, 24);
  const rng = new SeededRng(seed);
  let stepStart = Date.now();
  const step = (name: string): void => {
    const now = Date.now();
    opts.onStep?.(name, now - stepStart);
    stepStart = now;
  };
  if ((await node.cli<number>('getblockcount')) !== 0) throw new Error('buildVariedChain needs a fresh regtest node');
  const blocks: Partial<NotableBlocks> = {};
  const manifest: ChainManifest = {
    seed,
    addresses: [],
    mwebAddresses: [],
    special: [],
    blocks: blocks as NotableBlocks,
    taprootKeys: new Map(),
  };

  // 1. Addresses. Multisig scripts draw ordered key tuples from a small pool of wallet keys (distinct
  //    scripts, far fewer getnewaddress calls, which cost ~15 ms each on a legacy wallet): ordered
  //    pairs for P2WSH 1-of-2, ordered triples for P2SH 2-of-3; n keys give n(n-1) ≥ perKind pairs.
  let poolSize = 3;
  while (poolSize * (poolSize - 1) < perKind) poolSize++;
  const keyPool = await mapLimit(
    Array.from({ length: poolSize }, (_, i) => i),
    8,
    () => node.cli<string>('getnewaddress', '', 'legacy'),
  );
  const pairs = orderedTuples(keyPool, 2);
  const triples = orderedTuples(keyPool, 3);
  const wanted = WALLET_KINDS.flatMap((k) => Array.from({ length: perKind }, (_, i) => ({ k, i })));
  const planned: ManifestAddress[] = await mapLimit(wanted, 8, ({ k, i }) =>
    newWalletAddress(node, k, k === 'p2wsh' ? pairs[i] : k === 'p2sh-multisig' ? triples[i] : undefined),
  );
  if (new Set(planned.map((a) => a.address)).size !== planned.length) throw new Error('duplicate planned addresses');
  for (let i = 0; i < perKind; i++) {
    const t = taprootKey(seed, i);
    manifest.taprootKeys.set(t.address, t.privateKey);
    planned.push({ address: t.address, kind: 'p2tr', script: t.script, owner: 'taproot-key' });
  }
  for (const a of planned) addAddress(manifest, a);
  const byKind = (k: AddressKind): ManifestAddress[] => planned.filter((a) => a.kind === k);
  const miner = await newWalletAddress(node, 'p2wpkh');
  addAddress(manifest, miner);
  step('addresses');

  // 2. Coinbase outputs to two addresses of every kind, then 150 blocks so that plenty is mature.
  const coinbasePaid = PLANNED_KINDS.flatMap((k) => byKind(k).slice(0, 2));
  for (const a of coinbasePaid) await mine(node, 1, a.address);
  await mine(node, 150, miner.address);
  step('coinbase');

  // 3. Funding: everyone once, half of them again, a quarter a third time. After each round the
  //    outputs are locked so that the wallet's own coin selection leaves them be (except at the
  //    coinbase-paid addresses, which the wallet may spend from as it likes).
  const amount = (): string => coins(rng.range(100_000, 100_000_000));
  const keep = planned.filter((a) => a.owner === 'wallet' && !coinbasePaid.includes(a)).map((a) => a.address);
  const pay = async (payees: readonly ManifestAddress[]): Promise<void> => {
    for (let i = 0; i < payees.length; i += 50) {
      await node.cli('sendmany', '', Object.fromEntries(payees.slice(i, i + 50).map((a) => [a.address, amount()])));
      // The wallet would spend these (unconfirmed but trusted) outputs in its very next payment.
      await lockOutpoints(node, await walletUtxos(node, { addresses: keep, minconf: 0 }));
    }
  };
  for (const k of PLANNED_KINDS) await pay(byKind(k));
  await mine(node, 1, miner.address);
  await pay(sample(rng, planned, Math.floor(planned.length / 2)));
  await pay(sample(rng, planned, Math.floor(planned.length / 4)));
  await mine(node, 1, miner.address);
  step('funding');

  // 4. Spends: empty addresses 2..11 of every kind, take one UTXO from each of 12..21.
  for (const k of PLANNED_KINDS) {
    const empty = await spendableUtxos(
      node,
      byKind(k)
        .slice(2, 12)
        .map((a) => a.address),
    );
    const partial = await spendableUtxos(
      node,
      byKind(k)
        .slice(12, 22)
        .map((a) => a.address),
    );
    const onePerAddress = [...new Map(partial.map((u) => [u.address, u])).values()];
    if (k === 'p2tr') {
      const keyed = (us: typeof empty) => us.map((u) => ({ ...u, privateKey: manifest.taprootKeys.get(u.address) as string }));
      const to = byKind('p2tr')[22] as ManifestAddress;
      await spendTaproot(node, keyed(empty), [{ script: to.script, share: 1 }]);
      await spendTaproot(node, keyed(onePerAddress), [{ script: miner.script, share: 1 }]);
      continue;
    }
    const sink = await newWalletAddress(node, k);
    addAddress(manifest, sink);
    await spendWalletUtxos(node, empty, sink.address);
    await spendWalletUtxos(node, onePerAddress, miner.address);
  }
  blocks.preMweb = (await mine(node, 1, miner.address))[0];
  step('spends');

  // 5. Outputs without an address.
  const special = await sendSpecialOutputs(node, seed);
  manifest.special = special.special;
  for (const a of special.witnessUnknown) addAddress(manifest, a);
  blocks.nonstandard = (await mine(node, 1, miner.address))[0];
  step('special outputs');

  // 6. Random activity, then up to the block before activation, coinbases to varied addresses.
  await mineWithActivity(node, 3, manifest, { seed: seed + 1, record: false });
  for (;;) {
    const left = MWEB_ACTIVATION_HEIGHT - 1 - (await node.cli<number>('getblockcount'));
    if (left <= 0) break;
    if (rng.chance(50)) await mine(node, 1, rng.pick(planned).address);
    else await mine(node, Math.min(left, 60), miner.address);
  }
  step('activity and blocks to 431');

  // 7. Peg-ins at 431 (before that the mempool refuses them), so that block 432 carries them.
  for (const sats of [1_000_000_000, 500_000_000]) {
    const to = await node.cli<string>('getnewaddress', '', 'mweb');
    manifest.mwebAddresses.push(to);
    await node.cli('sendtoaddress', to, coins(sats));
  }
  blocks.activation = await mineChecked(
    node,
    miner.address,
    (b) => b.height === MWEB_ACTIVATION_HEIGHT && b.tx.some((t) => t.vout.some((o) => o.scriptPubKey.type === 'witness_mweb_pegin')),
    'activation block with a peg-in',
  );
  // An empty mempool gives a block whose extension block has no inputs, outputs or kernels.
  if ((await node.cli<string[]>('getrawmempool')).length === 0) {
    blocks.emptyExtension = await mineChecked(node, miner.address, isEmptyExtension, 'empty extension block');
  }
  step('MWEB activation');

  // 8. Peg-outs to one address of every transparent kind, all paid by one block's HogEx.
  await pegOut(
    node,
    PLANNED_KINDS.map((k) => ({ address: rng.pick(byKind(k).slice(22)).address, sats: rng.range(1_000_000, 50_000_000) })),
  );
  blocks.pegOut = await mineChecked(
    node,
    miner.address,
    (b) => (b.tx[b.tx.length - 1]?.vout.length ?? 0) > PLANNED_KINDS.length,
    'HogEx paying every peg-out',
  );
  const m2m = await sendMwebToMweb(node);
  manifest.mwebAddresses.push(m2m.to);
  blocks.mwebToMweb = (await mine(node, 1, miner.address))[0];
  step('peg-outs and MWEB-to-MWEB');

  await mineWithActivity(node, 5, manifest, { seed: seed + 2, record: false });
  step('activity');

  const tip = await node.cli<number>('getblockcount');
  const hashes = await mapLimit(
    Array.from({ length: tip }, (_, i) => i + 1),
    8,
    (h) => node.cli<string>('getblockhash', h),
  );
  await recordBlockAddresses(node, manifest, hashes);
  for (const key of ['preMweb', 'activation', 'pegOut', 'nonstandard', 'mwebToMweb'] as const) {
    if (blocks[key] === undefined) throw new Error(`no ${key} block`);
  }
  step('record addresses');
  return manifest;
}

/** Every ordered choice of `n` distinct items (8 items: 56 pairs, 336 triples). */
function orderedTuples<T>(items: readonly T[], n: number): T[][] {
  if (n === 0) return [[]];
  return items.flatMap((x, i) => orderedTuples([...items.slice(0, i), ...items.slice(i + 1)], n - 1).map((rest) => [x, ...rest]));
}

export function isEmptyExtension(b: BlockV2): boolean {
  return b.mweb !== undefined && b.mweb.inputs.length === 0 && b.mweb.outputs.length === 0 && b.mweb.kernels.length === 0;
}

/** Mines one block and checks it is what the chain needs at this point (fails loudly otherwise). */
async function mineChecked(node: RegtestNode, to: string, ok: (b: BlockV2) => boolean, what: string): Promise<string> {
  const [hash] = await mine(node, 1, to);
  const block = await node.cli<BlockV2>('getblock', hash, 2);
  if (!ok(block)) throw new Error(`block ${block.height} (${hash}) is not the expected ${what}`);
  return hash as string;
}
