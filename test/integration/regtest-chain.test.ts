/**
 * The regtest chain builder keeps its promises, which the indexer suite relies on: every address kind
 * at least 40 times, empty and multi-UTXO addresses of each kind, and a manifest that accounts for
 * the node's whole UTXO set (addresses + address-less outputs + the MWEB HogAddr = gettxoutsetinfo),
 * also after a reorg onto a branch built by mineWithActivity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import {
  PLANNED_KINDS,
  addressesOfKind,
  mineWithActivity,
  scanAddresses,
  scanScripts,
  utxoSetTotals,
  type ChainManifest,
} from '../../harness/regtest-chain.js';

let node: Litecoind;
let manifest: ChainManifest;

beforeAll(async () => {
  const chain = await cachedVariedChain({ seed: 11 });
  manifest = chain.value;
  node = await startLitecoind({ from: chain.template });
});

afterAll(async () => {
  await node?.stop();
});

/** Sums the node's per-address and per-script figures over the manifest and compares with the set totals. */
async function expectManifestCoversUtxoSet(): Promise<void> {
  const scan = await scanAddresses(
    node,
    manifest.addresses.map((a) => a.address),
  );
  const scripts = await scanScripts(
    node,
    manifest.special.map((s) => s.script),
  );
  const totals = await utxoSetTotals(node);
  expect(scan.bestBlock).toBe(totals.bestBlock);
  let sats = totals.mwebSats;
  let utxos = totals.mwebTxouts;
  for (const f of [...scan.values(), ...scripts.values()]) {
    sats += f.sats;
    utxos += f.utxos;
  }
  expect({ sats, utxos }).toEqual({ sats: totals.totalSats, utxos: totals.txouts });
}

describe('buildVariedChain', () => {
  it('makes at least 40 addresses of every kind, some emptied and some with several UTXOs', async () => {
    const scan = await scanAddresses(
      node,
      manifest.addresses.map((a) => a.address),
    );
    for (const kind of PLANNED_KINDS) {
      const list = addressesOfKind(manifest, kind);
      expect(list.length, kind).toBeGreaterThanOrEqual(40);
      const figures = list.map((a) => scan.get(a.address));
      expect(figures.filter((f) => f?.sats === 0).length, `${kind} emptied`).toBeGreaterThanOrEqual(5);
      expect(figures.filter((f) => (f?.utxos ?? 0) >= 2).length, `${kind} with several UTXOs`).toBeGreaterThanOrEqual(5);
    }
    expect(addressesOfKind(manifest, 'witness-unknown').length).toBeGreaterThanOrEqual(2);
    expect(manifest.mwebAddresses.length).toBeGreaterThanOrEqual(3);
    expect(new Set(manifest.special.map((s) => s.kind))).toEqual(
      new Set(['p2pk', 'bare-multisig', 'op-return', 'oversized', 'max-size-script']),
    );
  });

  it('lists every address the chain paid: the manifest accounts for the whole UTXO set', async () => {
    const totals = await utxoSetTotals(node);
    expect(totals.mwebTxouts).toBe(1);
    expect(totals.mwebSats).toBeGreaterThan(0);
    await expectManifestCoversUtxoSet();
  });

  it('unspendable outputs are not in the node’s UTXO set, the others are', async () => {
    const scripts = await scanScripts(
      node,
      manifest.special.filter((s) => !s.spendable).map((s) => s.script),
    );
    for (const f of scripts.values()) expect(f).toEqual({ sats: 0, utxos: 0 });
    const maxSize = manifest.special.find((s) => s.kind === 'max-size-script');
    expect(await node.cli('gettxout', maxSize?.txid, maxSize?.vout)).not.toBeNull();
  });

  it('mineWithActivity builds a competing branch after invalidateblock and the manifest still covers the set', async () => {
    const tip = await node.cli<number>('getblockcount');
    const forkHash = await node.cli<string>('getblockhash', tip - 3);
    const before = manifest.addresses.length;
    await node.cli('invalidateblock', forkHash);
    const branch = await mineWithActivity(node, 6, manifest);
    expect(branch).toHaveLength(6);
    expect(await node.cli<number>('getblockcount')).toBe(tip + 2);
    expect(await node.cli<string>('getblockhash', tip - 3)).not.toBe(forkHash);
    expect(manifest.addresses.length).toBeGreaterThanOrEqual(before);
    await expectManifestCoversUtxoSet();
  });
});
