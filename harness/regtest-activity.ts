/**
 * Random but reproducible chain activity among a manifest's addresses, one block at a time: payments,
 * fresh addresses, addresses emptied, taproot spends, and once MWEB is active peg-ins and peg-outs;
 * each block's coinbase pays a random address. The indexer tests use it for the tip-following phase
 * and to build a competing branch after `invalidateblock`.
 *
 * Some actions can be refused by the node for reasons that are no bug of ours (wallet out of mature
 * coins, a coin already spent by a transaction the reorg returned to the mempool); those are skipped.
 * If no action at all succeeds, that is an error.
 */
import { NodeError } from '../src/node/node-client.js';
import { addAddress, type AddressKind, type ChainManifest } from './regtest-manifest.js';
import { recordBlockAddresses, spendableUtxos } from './regtest-scan.js';
import { taprootKey } from './regtest-taproot.js';
import { spendTaproot, taprootUtxos } from './regtest-taproot-spend.js';
import { coins, mwebBalance, newWalletAddress, pegOut, spendWalletUtxos, type RegtestNode } from './regtest-wallet.js';
import { SeededRng } from './seeded-rng.js';

const WALLET_KINDS: readonly AddressKind[] = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2sh-multisig'];

/** `count` distinct items (all when count ≥ items.length) in random order (Fisher–Yates). */
export function sample<T>(rng: SeededRng, items: readonly T[], count: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, Math.max(0, count));
}

/** generatetoaddress; returns the new block hashes. */
export async function mine(node: RegtestNode, n: number, address: string): Promise<string[]> {
  return node.cli<string[]>('generatetoaddress', n, address);
}

export interface ActivityOptions {
  /** Default: derived from the manifest's seed and the current height. */
  seed?: number;
  /** Add the addresses the new blocks pay to the manifest (default true). */
  record?: boolean;
}

// Wallet refusals that say "not now" rather than "bug": -4 wallet error (insufficient funds, too
// large), -6 insufficient funds, -25 missing inputs, -26 policy/consensus rejection (mempool
// conflict after a reorg), -27 already in the chain.
const SKIPPABLE_RPC = new Set([-4, -6, -25, -26, -27]);

function skippable(err: unknown): boolean {
  if (err instanceof RangeError) return true;
  return err instanceof NodeError && err.code === 'RPC' && SKIPPABLE_RPC.has(err.details.rpcCode ?? 0);
}

/** Mines `nBlocks` blocks, each with a random handful of transactions; returns their hashes. */
export async function mineWithActivity(
  node: RegtestNode,
  nBlocks: number,
  manifest: ChainManifest,
  opts: ActivityOptions = {},
): Promise<string[]> {
  const start = await node.cli<number>('getblockcount');
  const rng = new SeededRng(opts.seed ?? manifest.seed * 7919 + start);
  const hashes: string[] = [];
  const skipped: string[] = [];
  let done = 0;
  const attempt = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
      done++;
    } catch (err) {
      if (!skippable(err)) throw err;
      skipped.push(`${what}: ${(err as Error).message}`);
    }
  };
  const amount = (): string => coins(rng.range(100_000, 50_000_000));

  for (let i = 0; i < nBlocks; i++) {
    const chain = await node.cli<{ softforks?: { mweb?: { active?: boolean } } }>('getblockchaininfo');
    const mwebActive = chain.softforks?.mweb?.active === true;
    const targets = manifest.addresses;
    const wallet = targets.filter((a) => a.owner === 'wallet');
    const taproot = targets.filter((a) => a.owner === 'taproot-key');

    // One payment to 1–4 addresses (sendmany: one wallet coin selection instead of several).
    const payees = sample(rng, targets, rng.range(1, 4));
    await attempt('send', () => node.cli('sendmany', '', Object.fromEntries(payees.map((a) => [a.address, amount()]))));
    if (rng.chance(30)) {
      await attempt('fresh address', async () => {
        let entry;
        if (rng.chance(17)) {
          const t = taprootKey(manifest.seed, 1000 + manifest.taprootKeys.size);
          manifest.taprootKeys.set(t.address, t.privateKey);
          entry = { address: t.address, kind: 'p2tr' as const, script: t.script, owner: 'taproot-key' as const };
        } else {
          entry = await newWalletAddress(node, rng.pick(WALLET_KINDS));
        }
        addAddress(manifest, entry);
        await node.cli('sendtoaddress', entry.address, amount());
      });
    }
    if (rng.chance(30) && wallet.length > 0) {
      await attempt('empty an address', async () => {
        const victim = rng.pick(wallet);
        const utxos = await spendableUtxos(node, [victim.address]);
        if (utxos.length > 0) await spendWalletUtxos(node, utxos, rng.pick(wallet).address);
      });
    }
    if (rng.chance(30) && taproot.length > 0) {
      await attempt('taproot spend', async () => {
        const from = sample(rng, taproot, 3).map((a) => a.address);
        const utxos = (await taprootUtxos(node, manifest, from)).slice(0, 2);
        if (utxos.length === 0) return;
        await spendTaproot(node, utxos, [
          { script: rng.pick(targets).script, share: rng.range(1, 3) },
          { script: rng.pick(taproot).script, share: 1 },
        ]);
      });
    }
    if (mwebActive && rng.chance(30)) {
      await attempt('peg-in', async () => {
        const to =
          manifest.mwebAddresses.length > 0 && rng.chance(50)
            ? rng.pick(manifest.mwebAddresses)
            : await node.cli<string>('getnewaddress', '', 'mweb');
        if (!manifest.mwebAddresses.includes(to)) manifest.mwebAddresses.push(to);
        // With MWEB coins at hand the wallet would pay from them (MWEB-to-MWEB); asking for more than
        // it holds there forces transparent inputs, i.e. a peg-in.
        await node.cli('sendtoaddress', to, coins((await mwebBalance(node)) + rng.range(1_000_000, 200_000_000)));
      });
    }
    if (mwebActive && rng.chance(30)) {
      await attempt('peg-out', async () => {
        const balance = await mwebBalance(node);
        if (balance < 50_000_000) return;
        await pegOut(node, [
          { address: rng.pick(targets).address, sats: rng.range(1_000_000, Math.min(Math.floor(balance / 2), 100_000_000)) },
        ]);
      });
    }
    const owned = targets.filter((a) => a.owner !== 'none');
    hashes.push(...(await mine(node, 1, rng.pick(owned).address)));
  }
  if (nBlocks > 0 && done === 0) throw new Error(`no activity succeeded: ${skipped.join('; ')}`);
  if (opts.record !== false) await recordBlockAddresses(node, manifest, hashes);
  return hashes;
}
