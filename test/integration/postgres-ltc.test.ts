/**
 * The scale-out topology against a real `litecoind -regtest` and real PostgreSQL clusters this suite
 * starts (harness/postgres.ts): the indexer writes the LTC index into a primary; one API reads the
 * primary, another a streaming standby (pg_basebackup -R); the keys live in PostgreSQL too. Both APIs
 * must equal the node's `scantxoutset` for every address after SIGKILLs during catch-up, at a new tip and
 * after a reorg; history and the UTXO listing (both on) paged through the standby equal a walk of the
 * node's blocks and its `scantxoutset`; `addrsum-verify` on the index finds nothing; no SQLite file of
 * the chain is ever made.
 * Then the faults: the primary killed (its API answers 503 and recovers by itself when it is back), and
 * a failover (the primary dead for good, the standby promoted, the indexer pointed at it).
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import { runVerifyCli, waitFor } from '../../harness/indexer-process.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { promote, startPrimary, startStandby, waitForReplay, type PgCluster } from '../../harness/postgres.js';
import { cachedVariedChain } from '../../harness/chain-cache.js';
import { mineWithActivity, type ChainManifest } from '../../harness/regtest-chain.js';
import { utxoSetTotals } from '../../harness/regtest-scan.js';
import { openPostgresKeyStore, openPostgresVerifier } from '../../src/store/postgres/engine.js';
import { historyMismatches } from '../support/history-check.js';
import { apiMismatches, listingMismatches } from '../support/ltc-oracle.js';
import { tipIn } from '../support/postgres-tip.js';

const LIMITS = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

interface Answer {
  status: number;
  code?: string;
  text: string;
  blockHash?: string;
}

describe('LTC index in PostgreSQL: indexer on the primary, APIs on the primary and a standby', () => {
  let primary: PgCluster;
  let standby: PgCluster;
  let lw: LitecoindWorld;
  let node: Litecoind;
  let manifest: ChainManifest;
  let apiKey: string;
  let onPrimary: ApiProcess;
  let onStandby: ApiProcess;
  /** Where the indexer writes: the primary, then (after the failover) the promoted standby. */
  let writeUrl: string;

  beforeAll(async () => {
    primary = await startPrimary();
    standby = await startStandby(primary);
    writeUrl = primary.url;
    const chain = await cachedVariedChain({ seed: 11 });
    manifest = chain.value;
    lw = await LitecoindWorld.start({
      litecoind: { from: chain.template },
      // History and the listing on: every part of the index goes through PostgreSQL and the standby.
      env: { ADDRSUM_LTC_INDEX_URL: primary.url, ADDRSUM_HISTORY: 'true', ADDRSUM_UTXO_LIST: 'true' },
      indexedTip: () => tipIn(writeUrl),
    });
    node = lw.node;
    const keys = openPostgresKeyStore(primary.url);
    try {
      apiKey = (await keys.create('private', 'scale-out')).key;
    } finally {
      await keys.close();
    }
  }, 240_000);

  afterAll(async () => {
    await onPrimary?.stop();
    await onStandby?.stop();
    await lw?.close();
    await standby?.stop();
    await primary?.stop();
  });

  const ask = async (api: ApiProcess, address: string): Promise<Answer> => {
    const res = await fetch(`${api.url}/api/v1/LTC/address/${address}`, { headers: { 'x-api-key': apiKey } });
    const text = await res.text();
    // JSend: a success or fail carries `data`; an error (503) its `code` beside the message.
    const body = JSON.parse(text) as { code?: string; data?: { code?: string; blockHash?: string } };
    const code = body.code ?? body.data?.code;
    return {
      status: res.status,
      text,
      ...(code !== undefined && { code }),
      ...(body.data?.blockHash !== undefined && { blockHash: body.data.blockHash }),
    };
  };

  /** Every manifest address through `api` equals scantxoutset at the node's tip. */
  const expectApiEqualsNode = async (api: ApiProcess, phase: string): Promise<void> => {
    const addresses = manifest.addresses.map((a) => a.address);
    expect(await apiMismatches(api.url, apiKey, node, addresses), phase).toEqual([]);
  };

  /** The index on `url` against the node's totals, and `addrsum-verify` on it finds nothing. */
  const expectIndexVerifies = async (url: string, phase: string): Promise<void> => {
    const verifier = await openPostgresVerifier(url, 'LTC');
    try {
      const report = await verifier.aggregates();
      const totals = await utxoSetTotals(node);
      expect({ sats: Number(report.amount), utxos: report.utxos }, phase).toEqual({ sats: totals.totalSats, utxos: totals.txouts });
      expect(report.differenceCount, phase).toBe(0);
      expect(await verifier.chain(), phase).toEqual([]);
    } finally {
      await verifier.close();
    }
    expect(runVerifyCli('LTC', lw.world.dataDir, { ADDRSUM_LTC_INDEX_URL: url }), phase).toMatchObject({ status: 0 });
  };

  /** Both APIs equal the node once the standby has replayed what the indexer wrote. */
  const expectBothEqualNode = async (phase: string): Promise<void> => {
    await waitForReplay(primary, standby);
    await expectIndexVerifies(primary.url, phase);
    await expectApiEqualsNode(onPrimary, `${phase} (API on the primary)`);
    await expectApiEqualsNode(onStandby, `${phase} (API on the standby)`);
  };

  const startApiOn = (url: string): Promise<ApiProcess> =>
    lw.world.startApi(LIMITS, { ADDRSUM_LTC_INDEX_URL: url, ADDRSUM_KEYS_URL: url, ADDRSUM_SERVE_CHAINS: 'LTC' });

  it('catches up through SIGKILLs into the primary; APIs on the primary and on the standby equal the node', async () => {
    expect(await lw.world.killDuringCatchUp(4)).toBeGreaterThanOrEqual(3);
    await lw.world.startIndexer();
    await lw.world.waitForTip('catch-up into PostgreSQL', 180_000);
    expect(lw.world.indexer!.output()).toMatch(/"db":"postgres:\/\//);
    onPrimary = await startApiOn(primary.url);
    onStandby = await startApiOn(standby.url);
    await expectBothEqualNode('after the kills');
  }, 400_000);

  it('serves from a role that may only read (USAGE and SELECT on its schemas), on the primary and the standby', async () => {
    // What docs/scale-out.md and docker-compose.yml give the APIs: no write, no superuser.
    await primary.sql('CREATE ROLE api_reader LOGIN');
    for (const schema of ['addrsum_ltc', 'addrsum_keys']) {
      await primary.sql(`GRANT USAGE ON SCHEMA ${schema} TO api_reader`);
      await primary.sql(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO api_reader`);
    }
    await waitForReplay(primary, standby);
    const asReader = (url: string): string => url.replace(/\/\/addrsum@/, '//api_reader@');
    expect(asReader(primary.url)).not.toBe(primary.url);
    // The role can write nothing: the grants are what the API runs on, no more.
    await expect(primary.sql('SET ROLE api_reader; UPDATE addrsum_ltc.state SET utxo_list_secret = utxo_list_secret')).rejects.toThrow(
      /permission denied/,
    );
    for (const cluster of [primary, standby]) {
      const api = await startApiOn(asReader(cluster.url));
      try {
        let ready = '';
        await waitFor(
          'the read-only API to be ready',
          async () => {
            const res = await fetch(`${api.url}/ready`);
            ready = await res.text();
            return res.status === 200;
          },
          30_000,
        ).catch((err: Error) => {
          throw new Error(`${err.message}: ${ready}\n${api.output().slice(-3000)}`);
        });
        await expectApiEqualsNode(api, `a read-only role on the ${cluster === primary ? 'primary' : 'standby'}`);
      } finally {
        await api.stop();
      }
    }
  }, 120_000);

  it('states a new tip from the standby within 5 s of the block, and equals the node there', async () => {
    await mineWithActivity(node, 3, manifest);
    await lw.world.waitForTip('activity blocks', 60_000);
    const [hash] = await node.cli<string[]>('generatetoaddress', 1, manifest.addresses[0]!.address);
    // The acceptance bound: the indexer's poll, its commit, the standby's replay, the API's read.
    await waitFor(
      'the standby API to state the new tip',
      async () => (await ask(onStandby, manifest.addresses[0]!.address)).blockHash === hash,
      5000,
    );
    await expectBothEqualNode('new tip');
  }, 180_000);

  it('follows a reorg on both APIs', async () => {
    const height = await node.cli<number>('getblockcount');
    await node.cli('invalidateblock', await node.cli<string>('getblockhash', height - 3));
    await mineWithActivity(node, 6, manifest);
    await lw.world.waitForTip('reorg', 60_000);
    expect(lw.world.indexer!.output()).toMatch(/rolled back/);
    await expectBothEqualNode('reorg');
  }, 180_000);

  it('pages the history of every script and the UTXOs of every address through the standby as the node says', async () => {
    await waitForReplay(primary, standby);
    const keyed = (path: string): Promise<Response> => fetch(`${onStandby.url}${path}`, { headers: { 'x-api-key': apiKey } });
    const get = async (path: string) => {
      const res = await keyed(path);
      return { status: res.status, text: await res.text() };
    };
    const history = await historyMismatches(get, node.cliExact);
    expect(history.wrong).toEqual([]);
    expect(history.scripts).toBeGreaterThan(100);
    const listing = await listingMismatches(
      keyed,
      node,
      manifest.addresses.map((a) => a.address),
    );
    expect(listing.wrong).toEqual([]);
    expect(listing.listed).toBeGreaterThan(manifest.addresses.length);
    // The spend index: what spent each output of the last 30 blocks' transactions (only they and the
    // mempool can spend them), through the standby, as getblock says.
    type Tx = { txid: string; vin: { txid?: string; vout?: number }[]; vout: unknown[] };
    const tip = await node.cli<number>('getblockcount');
    const recent: Tx[] = [];
    const spentBy = new Map<string, { txid: string; vin: number; height: number | null }>();
    const spends = (tx: Tx, height: number | null) =>
      tx.vin.forEach((i, vin) => i.txid !== undefined && spentBy.set(`${i.txid}:${i.vout}`, { txid: tx.txid, vin, height }));
    for (let h = tip - 29; h <= tip; h++) {
      const block = await node.cli<{ tx: Tx[] }>('getblock', await node.cli<string>('getblockhash', h), 2);
      for (const tx of block.tx) {
        recent.push(tx);
        spends(tx, h);
      }
    }
    for (const txid of await node.cli<string[]>('getrawmempool')) spends(await node.cli<Tx>('getrawtransaction', txid, true), null);
    let spent = 0;
    for (const tx of recent) {
      const got = JSON.parse((await get(`/api/v1/LTC/tx/${tx.txid}/outspends`)).text) as { data: { outspends: unknown[] } };
      const want = tx.vout.map((_, n) => spentBy.get(`${tx.txid}:${n}`) ?? null);
      spent += want.filter((w) => w !== null).length;
      expect(got.data.outspends, tx.txid).toEqual(want);
    }
    expect(spent).toBeGreaterThan(10);
  }, 300_000);

  it('a standby whose replay is paused states the tip it replayed, and /ready reports its lag', async () => {
    const readyRow = async (api: ApiProcess): Promise<{ indexedHash: string; standbyReplayLagSeconds?: number }> => {
      const body = (await (await fetch(`${api.url}/ready`)).json()) as {
        data: { chains: { chain: string; indexedHash: string; standbyReplayLagSeconds?: number }[] };
      };
      return body.data.chains.find((c) => c.chain === 'LTC')!;
    };
    expect((await readyRow(onStandby)).standbyReplayLagSeconds).toBe(0);
    expect(await readyRow(onPrimary)).not.toHaveProperty('standbyReplayLagSeconds');
    const replayed = await lw.nodeTip();
    await standby.sql('SELECT pg_wal_replay_pause()');
    try {
      await mineWithActivity(node, 1, manifest);
      await lw.world.waitForTip('a block the standby does not replay', 60_000);
      await waitFor(
        'the standby to report a replay lag',
        async () => ((await readyRow(onStandby)).standbyReplayLagSeconds ?? 0) > 0,
        30_000,
      );
      // What it answers is what it replayed, and it says so: the older tip, never a mix.
      expect((await ask(onStandby, manifest.addresses[0]!.address)).blockHash).toBe(replayed);
      expect((await ask(onPrimary, manifest.addresses[0]!.address)).blockHash).toBe(await lw.nodeTip());
    } finally {
      await standby.sql('SELECT pg_wal_replay_resume()');
    }
    await expectBothEqualNode('replay resumed');
  }, 180_000);

  it('makes no SQLite file of the chain anywhere it runs', () => {
    expect(readdirSync(lw.world.dataDir).filter((f) => /^ltc\.sqlite/i.test(f))).toEqual([]);
  });

  it('answers 503 while the primary is down, without dying, and recovers by itself', async () => {
    const address = manifest.addresses[1]!.address;
    await lw.world.stopIndexer();
    await primary.kill();
    const down = await ask(onPrimary, address);
    expect(down.status).toBe(503);
    expect(down.code).toBe('CHAIN_UNAVAILABLE');
    expect(down.text).toMatch(/index database/);
    // The standby keeps answering from what it replayed.
    expect((await ask(onStandby, address)).status).toBe(200);
    await primary.restart();
    await waitFor('the API on the primary to recover', async () => (await ask(onPrimary, address)).status === 200, 30_000);
    expect(onPrimary.child.exitCode).toBeNull();
    await lw.world.startIndexer();
    await mineWithActivity(node, 1, manifest);
    await lw.world.waitForTip('after the primary came back', 60_000);
    await expectBothEqualNode('after the primary came back');
  }, 180_000);

  it('fails over: primary dead, standby promoted, indexer pointed at it resumes and its API equals the node', async () => {
    await lw.world.stopIndexer('SIGKILL');
    await primary.kill();
    await promote(standby);
    writeUrl = standby.url;
    const before = await tipIn(standby.url);
    await lw.world.startIndexer({ env: { ADDRSUM_LTC_INDEX_URL: standby.url } });
    await mineWithActivity(node, 2, manifest);
    await lw.world.waitForTip('after the failover', 60_000);
    // Resumed from the tip it found on the promoted node, not from genesis.
    expect(lw.world.indexer!.output()).toContain(`"indexedHeight":${before!.height},`);
    await expectIndexVerifies(standby.url, 'after the failover');
    await expectApiEqualsNode(onStandby, 'after the failover (API on the promoted standby)');
    // Its keys are in the dead database too: a keyed request may be refused for either, always with 503.
    const dead = await ask(onPrimary, manifest.addresses[0]!.address);
    expect(dead.status).toBe(503);
    expect(['CHAIN_UNAVAILABLE', 'KEYS_UNAVAILABLE']).toContain(dead.code);
    const ready = await fetch(`${onPrimary.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/"chain":"LTC".*index database cannot be reached/);
    expect(onPrimary.child.exitCode).toBeNull();
  }, 180_000);
});
