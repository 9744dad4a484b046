/**
 * The real indexer and API against a real `litecoind -regtest`: every address kind, P2PK / bare
 * multisig / OP_RETURN / oversized outputs, coinbases, MWEB peg-ins and peg-outs. After each phase the
 * node's own `scantxoutset` and `gettxoutsetinfo` are the ground truth for every address and for the
 * totals; `npm run verify` must find nothing.
 */
import { rm } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { formatCoins } from '../../src/chain/amount.js';
import { chainParams } from '../../src/chain/params.js';
import { KeyStore } from '../../src/keys/key-store.js';
import { chainDbPath } from '../../src/store/paths.js';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { checkIndex, indexedTip, type Expected } from '../../harness/index-check.js';
import { runVerifyCli, killMidCatchUp, makeDataDir, startIndexer, waitFor, type IndexerProcess } from '../../harness/indexer-process.js';
import { startLitecoind, type Litecoind } from '../../harness/litecoind.js';
import { buildVariedChain, mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { scanAddresses, scanScripts, utxoSetTotals } from '../../harness/regtest-scan.js';

const params = chainParams('LTC', 'regtest');

describe('LTC indexer and API against a real litecoind', () => {
  let node: Litecoind;
  let manifest: ChainManifest;
  let dataDir: string;
  let dbPath: string;
  let indexer: IndexerProcess | undefined;
  let api: ApiProcess | undefined;
  let apiKey: string;

  beforeAll(async () => {
    node = await startLitecoind();
    manifest = await buildVariedChain(node, { seed: 11 });
    dataDir = await makeDataDir();
    dbPath = chainDbPath(dataDir, 'LTC');
    const keys = KeyStore.open(`${dataDir}/keys.sqlite`);
    apiKey = keys.create('private', 'integration').key;
    keys.close();
  });

  afterAll(async () => {
    await api?.stop();
    indexer?.kill('SIGKILL');
    await node?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const nodeTip = () => node.cli<string>('getbestblockhash');
  const atNodeTip = async () => indexedTip(dbPath)?.hash === (await nodeTip());

  /** Every manifest address and every spendable special script, with the node's figures. */
  async function expectations(): Promise<Expected[]> {
    const scan = await scanAddresses(
      node,
      manifest.addresses.map((a) => a.address),
    );
    const out: Expected[] = [];
    for (const a of manifest.addresses) {
      const decoded = addressToScript(params, a.address);
      if (!decoded.ok) throw new Error(`node address ${a.address} does not decode: ${decoded.error.message}`);
      const f = scan.get(a.address);
      if (!f) throw new Error(`no scan result for ${a.address}`);
      out.push({ label: `${a.kind} ${a.address}`, script: decoded.script, sats: f.sats, utxos: f.utxos });
    }
    const scripts = manifest.special.filter((s) => s.spendable).map((s) => s.script);
    for (const [hex, f] of await scanScripts(node, scripts)) {
      out.push({ label: `script ${hex.slice(0, 40)}`, script: Buffer.from(hex, 'hex'), sats: f.sats, utxos: f.utxos });
    }
    return out;
  }

  async function expectIndexEqualsNode(phase: string): Promise<void> {
    const tip = await nodeTip();
    const report = checkIndex(dbPath, await expectations());
    expect(report.tipHash, phase).toBe(tip);
    expect(report.mismatches, phase).toEqual([]);
    const totals = await utxoSetTotals(node);
    expect(totals.bestBlock, phase).toBe(tip);
    // Our UTXO set is Core's: MWEB programs included (they are real outputs no address owns).
    expect(report.totals, phase).toEqual({ sats: totals.totalSats, utxos: totals.txouts });
    expect(report.aggregateDifferences, phase).toBe(0);
    expect(report.chainProblems, phase).toEqual([]);
    expect(runVerifyCli('LTC', dataDir), phase).toMatchObject({ status: 0 });
  }

  it('builds a chain with every kind the suite promises', () => {
    const kinds = new Map<string, number>();
    for (const a of manifest.addresses) kinds.set(a.kind, (kinds.get(a.kind) ?? 0) + 1);
    for (const kind of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr', 'p2sh-multisig']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(40);
    }
    const special = new Set(manifest.special.map((s) => s.kind));
    for (const kind of ['p2pk', 'bare-multisig', 'op-return']) expect(special.has(kind as never), kind).toBe(true);
    expect(manifest.blocks.activation).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.blocks.pegOut).toMatch(/^[0-9a-f]{64}$/);
  });

  it('catches up while being SIGKILLed at random moments and then equals the node', async () => {
    let kills = 0;
    while (kills < 5) {
      indexer = await startIndexer({ chain: 'LTC', dataDir, rpcUrl: node.rpcUrl, toml: 'prefetch = 1\ncommitIntervalMs = 0' });
      if (!(await killMidCatchUp(indexer, () => indexedTip(dbPath)?.height ?? null, atNodeTip))) break;
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(5);
    indexer = await startIndexer({ chain: 'LTC', dataDir, rpcUrl: node.rpcUrl });
    await waitFor('initial catch-up', atNodeTip, 120_000, indexer);
    await expectIndexEqualsNode('initial catch-up');
  }, 240_000);

  it('follows the tip', async () => {
    await mineWithActivity(node, 4, manifest);
    await waitFor('tip following', atNodeTip, 30_000, indexer);
    await expectIndexEqualsNode('tip following');
  }, 120_000);

  it('rolls back a reorg and applies a competing branch with different transactions', async () => {
    const height = await node.cli<number>('getblockcount');
    const forkAt = await node.cli<string>('getblockhash', height - 4);
    await node.cli('invalidateblock', forkAt);
    await mineWithActivity(node, 7, manifest);
    await waitFor('reorg', atNodeTip, 30_000, indexer);
    expect(indexer!.output()).toMatch(/rolled back/);
    await expectIndexEqualsNode('reorg');
  }, 120_000);

  it('answers every address through the API exactly as scantxoutset says', async () => {
    // Limits are tested elsewhere; here every address is asked once, as fast as the API answers.
    const config = `${dataDir}/api.toml`;
    await writeFile(config, '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
    api = await startApi({
      ADDRSUM_CONFIG: config,
      ADDRSUM_DATA_DIR: dataDir,
      ADDRSUM_LTC_NETWORK: 'regtest',
      ADDRSUM_LTC_RPC_URL: node.rpcUrl,
    });
    const tip = await nodeTip();
    const scan = await scanAddresses(
      node,
      manifest.addresses.map((a) => a.address),
    );
    const wrong: string[] = [];
    for (const a of manifest.addresses) {
      const res = await fetch(`${api.url}/api/v1/LTC/address/${a.address}`, { headers: { 'x-api-key': apiKey } });
      const text = await res.text();
      const f = scan.get(a.address)!;
      const body = JSON.parse(text) as { data: { balanceSatoshi: number; utxoCount: number; blockHash: string } };
      if (
        res.status !== 200 ||
        body.data.balanceSatoshi !== f.sats ||
        body.data.utxoCount !== f.utxos ||
        body.data.blockHash !== tip ||
        !text.includes(`"balance":${formatCoins(f.sats)}`)
      ) {
        wrong.push(`${a.address}: ${res.status} ${text} (node: ${f.sats} sat, ${f.utxos} utxos)`);
      }
    }
    expect(wrong).toEqual([]);
    for (const mweb of manifest.mwebAddresses.slice(0, 3)) {
      const res = await fetch(`${api.url}/api/v1/LTC/address/${mweb}`, { headers: { 'x-api-key': apiKey } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { data: { code: string } }).data.code).toBe('UNSUPPORTED_ADDRESS');
    }
  }, 120_000);
});
