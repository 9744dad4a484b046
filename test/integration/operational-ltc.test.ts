/**
 * Operational truth against a real `litecoind -regtest`, the real indexer and the real API, one case of
 * issue 11 each:
 *   1. delete + re-index: the API never answers from the deleted file (every answer is 503 or the new index);
 *   2. a keys.sqlite swapped by `mv`: a revocation in the new file counts from the next request;
 *   3. a killed indexer turns /ready 503 within api.staleAfterSeconds; a wrong RPC password at startup is
 *      counted in node_retries_total and does not leave the chain ready;
 *   4. 10,000 wrong keys from one client: 429 after the burst, the API log grows < 100 KB;
 *   5. 25,000 idle sockets: /health still answers;
 *   6. truncate + restore (a rollback-journal file made by VACUUM INTO, and keys.sqlite): 503 with a clear
 *      code, never 500, and answers again without a restart;
 *   7. keys.sqlite 0600, its directory 0700 (the unreadable-file message: test/unit/ops-guards.test.ts).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, renameSync, rmSync, statSync, truncateSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import type { ApiProcess } from '../../harness/api-process.js';
import { indexedTip } from '../../harness/index-check.js';
import { REPO_ROOT, waitFor, type IndexerProcess } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { mapLimit } from '../../harness/map-limit.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { startSocketClient } from '../support/socket-client.js';

interface Answer {
  status: number;
  code?: string;
  message?: string;
  data?: { balanceSatoshi: number; utxoCount: number; blockHeight: number; blockHash: string };
}

// autocannon ships no types; this is the part of its programmatic API used here.
interface AutocannonResult {
  '1xx': number;
  '2xx': number;
  '4xx': number;
  '5xx': number;
  non2xx: number;
  errors: number;
  duration: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (
  opts: { url: string; connections: number; amount: number; headers?: Record<string, string> },
  done: (err: Error | null, result: AutocannonResult) => void,
) => unknown;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ADDRESSES = 160;
const WRONG_KEY = `asum_${'Z'.repeat(43)}`;
/** The checks ask for every address at once: the tier limit is lifted (this suite is about the others). */
const UNLIMITED = '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n';

describe('operational truth against a real litecoind (issue 11)', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let dataDir: string;
  let dbPath: string;
  let keysPath: string;
  let indexer: IndexerProcess | undefined;
  let api: ApiProcess;
  let apiKey: string;
  const addresses: string[] = [];
  const children: ChildProcess[] = [];

  const nodeTip = () => node.cli<string>('getbestblockhash');
  const atNodeTip = async () => indexedTip(dbPath)?.hash === (await nodeTip());

  async function get(base: string, address: string, key = apiKey): Promise<Answer> {
    const res = await fetch(`${base}/api/v1/LTC/address/${address}`, { headers: { 'x-api-key': key } });
    const body = (await res.json()) as { code?: string; message?: string; data?: Answer['data'] & { code?: string; message?: string } };
    const code = body.code ?? body.data?.code;
    const message = body.message ?? body.data?.message;
    return {
      status: res.status,
      ...(code !== undefined && { code }),
      ...(message !== undefined && { message }),
      ...(res.status === 200 && body.data && { data: body.data }),
    };
  }

  async function ready(
    base: string,
  ): Promise<{ status: number; body: { code?: string; data: { chains: Array<Record<string, unknown>> } } }> {
    const res = await fetch(`${base}/ready`);
    return { status: res.status, body: (await res.json()) as { code?: string; data: { chains: Array<Record<string, unknown>> } } };
  }

  /** Every address through the API equals the node's scantxoutset at the node's tip. */
  async function expectApiEqualsNode(base: string, phase: string): Promise<void> {
    const scan = await scanAddresses(node, addresses);
    const answers = await mapLimit(addresses, 16, (a) => get(base, a));
    const wrong = answers
      .map((ans, i) => ({ ans, a: addresses[i]!, f: scan.get(addresses[i]!)! }))
      .filter(
        ({ ans, f }) =>
          ans.status !== 200 ||
          ans.data?.balanceSatoshi !== f.sats ||
          ans.data.utxoCount !== f.utxos ||
          ans.data.blockHash !== scan.bestBlock,
      );
    expect(
      wrong.slice(0, 3).map(({ ans, a, f }) => ({ a, ans, node: f, tip: scan.bestBlock })),
      phase,
    ).toEqual([]);
  }

  function startIndexerOn(rpcUrl = node.rpcUrl, toml = ''): Promise<IndexerProcess> {
    return lw.world.startIndexer({ rpcUrl, toml });
  }

  async function stopIndexer(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await lw.world.stopIndexer(signal);
    indexer = undefined;
  }

  async function payAddresses(count: number): Promise<void> {
    const outputs: Record<string, string> = {};
    for (const a of addresses.slice(0, count)) outputs[a] = (0.001 + Math.random() / 100).toFixed(8);
    await node.cli('sendmany', '', outputs);
  }

  beforeAll(async () => {
    // The data directory is left for the keys CLI to create, as an operator's first command does.
    lw = await LitecoindWorld.start({ dataDirName: 'data' });
    node = lw.node;
    const miner = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 110, miner);
    addresses.push(
      ...(await mapLimit(
        Array.from({ length: ADDRESSES }, (_, i) => i),
        8,
        (i) => node.cli<string>('getnewaddress', '', i % 2 ? 'bech32' : 'legacy'),
      )),
    );
    await payAddresses(ADDRESSES);
    await node.cli('generatetoaddress', 1, miner);
    ({ dataDir, dbPath } = lw.world);
    keysPath = path.join(dataDir, 'keys.sqlite');
    // The key as an operator makes it: the CLI creates the data directory and keys.sqlite.
    const created = spawnSync(process.execPath, ['--import', 'tsx', 'src/keys/addrsum-keys.ts', 'create', '--label', 'ops'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ADDRSUM_DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(created.status, created.stderr).toBe(0);
    apiKey = created.stdout.trim().split('\n').pop()!;
    indexer = await startIndexerOn();
    await waitFor('initial catch-up', atNodeTip, 120_000, indexer);
    api = await lw.world.startApi(UNLIMITED, {
      ADDRSUM_MAX_CONNECTIONS: '1000',
      ADDRSUM_INVALID_KEY_RATE: '1',
      ADDRSUM_INVALID_KEY_BURST: '20',
    });
  }, 240_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await lw?.close();
  });

  it('case 7: keys.sqlite is created 0600 in a 0700 data directory', () => {
    expect(statSync(keysPath).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('case 1: after delete + re-index, every answer is 503 or from the new index, never the deleted file', async () => {
    await expectApiEqualsNode(api.url, 'before');
    const oldTip = indexedTip(dbPath)!;
    await stopIndexer();
    // The chain moves on while the indexer is down, so the deleted file's answers would be wrong.
    await payAddresses(60);
    const miner = await node.cli<string>('getnewaddress');
    await node.cli('generatetoaddress', 10, miner);
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
    const seen: Answer[] = [];
    let polling = true;
    const poller = (async () => {
      let i = 0;
      while (polling) {
        seen.push(await get(api.url, addresses[i++ % addresses.length]!));
        const r = await ready(api.url);
        seen.push({ status: r.status, ...(r.body.code !== undefined && { code: r.body.code }) });
      }
    })();
    // A slow catch-up (one block per request, a commit per block) shows every state on the way.
    indexer = await startIndexerOn(node.rpcUrl, 'prefetch = 1\ncommitIntervalMs = 0');
    await waitFor('re-index', atNodeTip, 120_000, indexer);
    await waitFor('ready again', async () => (await ready(api.url)).status === 200, 30_000);
    polling = false;
    await poller;
    const nodeHeight = await node.cli<number>('getblockcount');
    const answered = seen.filter((a) => a.data);
    expect(seen.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    expect(
      seen.some((a) => a.status === 503),
      'a 503 while no usable index existed',
    ).toBe(true);
    // Never the old tip; only heights within syncLagBlocks (3) of the node's new tip.
    expect(answered.filter((a) => a.data!.blockHash === oldTip.hash || a.data!.blockHeight < nodeHeight - 3)).toEqual([]);
    for (const a of answered) {
      expect(await node.cli<string>('getblockhash', a.data!.blockHeight)).toBe(a.data!.blockHash);
    }
    await expectApiEqualsNode(api.url, 'after re-index');
  }, 180_000);

  it('case 2: a keys.sqlite replaced by mv is picked up; a revocation in it counts from the next request', async () => {
    const tmp = `${keysPath}.new`;
    copyFileSync(keysPath, tmp);
    const store = KeyStore.open(tmp);
    const fresh = store.create('private', 'in the new file');
    store.close();
    renameSync(tmp, keysPath);
    expect((await get(api.url, addresses[0]!, fresh.key)).status).toBe(200);
    const cli = KeyStore.open(keysPath);
    const victim = cli.list().find((k) => k.label === 'ops')!;
    expect(cli.revoke(victim.id).outcome).toBe('revoked');
    cli.close();
    const after = await get(api.url, addresses[0]!, apiKey);
    expect(after).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(after.message).toContain('revoked');
    apiKey = fresh.key;
  });

  it('case 6: truncated index and keys files answer 503 with a clear code (never 500) and recover when restored, without a restart', async () => {
    await stopIndexer();
    // A copy in rollback-journal mode, as VACUUM INTO makes it, put in place by rename.
    const copy = `${dbPath}.copy`;
    const backup = `${dbPath}.backup`;
    const db = new Database(dbPath, { readonly: true });
    db.exec(`VACUUM INTO '${copy}'`);
    db.close();
    copyFileSync(copy, backup);
    renameSync(copy, dbPath);
    for (const suffix of ['-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
    expect((await get(api.url, addresses[0]!)).status).toBe(200);
    truncateSync(dbPath, Math.floor(statSync(dbPath).size / 2));
    await waitFor('INDEX_DAMAGED', async () => (await get(api.url, addresses[1]!)).code === 'INDEX_DAMAGED', 10_000);
    const scan = await scanAddresses(node, addresses);
    const answers = await mapLimit(addresses, 16, (a) => get(api.url, a));
    expect(answers.filter((a) => a.status !== 503 && a.status !== 200)).toEqual([]);
    expect(answers.filter((a, i) => a.status === 200 && a.data!.balanceSatoshi !== scan.get(addresses[i]!)!.sats)).toEqual([]);
    const r = await ready(api.url);
    expect(r.status).toBe(503);
    expect(r.body.data.chains.find((c) => c.chain === 'LTC')).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/truncated|SQLITE_CORRUPT|malformed/),
    });
    // Restored in place (same inode).
    copyFileSync(backup, dbPath);
    await waitFor('answers after restore', async () => (await get(api.url, addresses[1]!)).status === 200, 10_000);
    await expectApiEqualsNode(api.url, 'restored index');

    // keys.sqlite (always rollback-journal): truncated → 503 KEYS_UNAVAILABLE, restored → 200.
    const keysBackup = `${keysPath}.backup`;
    copyFileSync(keysPath, keysBackup);
    truncateSync(keysPath, Math.floor(statSync(keysPath).size / 2));
    await waitFor('KEYS_UNAVAILABLE', async () => (await get(api.url, addresses[2]!)).code === 'KEYS_UNAVAILABLE', 10_000);
    expect((await get(api.url, addresses[2]!)).status).toBe(503);
    copyFileSync(keysBackup, keysPath);
    await waitFor('keys after restore', async () => (await get(api.url, addresses[2]!)).status === 200, 10_000);
    rmSync(backup);
    rmSync(keysBackup);
    indexer = await startIndexerOn();
    await waitFor('indexer back on the restored file', atNodeTip, 60_000, indexer);
  }, 120_000);

  it('case 3: a killed indexer turns /ready 503 within staleAfterSeconds; a wrong RPC password at startup is counted and not ready', async () => {
    const STALE = 3;
    const strict = await lw.world.startApi(UNLIMITED, { ADDRSUM_STALE_AFTER_SECONDS: String(STALE) });
    try {
      let last: unknown;
      await waitFor(
        'ready with a live indexer',
        async () => {
          const r = await ready(strict.url);
          last = r.body;
          return r.status === 200;
        },
        30_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(last)}`);
      });
      await stopIndexer('SIGKILL');
      await waitFor('/ready 503 after the kill', async () => (await ready(strict.url)).status === 503, 30_000);
      const r = await ready(strict.url);
      expect(r.body.data.chains[0]).toMatchObject({
        chain: 'LTC',
        ready: false,
        reason: expect.stringContaining('last heard from its node'),
      });
      expect((await get(strict.url, addresses[0]!)).code).toBe('CHAIN_UNAVAILABLE');
      const metrics = await (await fetch(`${strict.url}/metrics`)).text();
      expect(metrics).toMatch(/addrsum_api_chain_ready\{chain="LTC"\} 0/);
      // BTC is not configured: no chain_ready series for it at all.
      expect(metrics).not.toMatch(/addrsum_api_chain_ready\{chain="BTC"\}/);
      expect(metrics).toMatch(/addrsum_build_info\{version="[^"]+",node="v[^"]+"\} 1/);

      // A wrong password: the indexer retries, counting each failure, and the chain stays not ready.
      const wrong = new URL(node.rpcUrl);
      wrong.password = 'not-the-password';
      indexer = await startIndexerOn(wrong.toString());
      const indexerMetrics = async () => (await fetch(`http://127.0.0.1:${indexer!.metricsPort}/metrics`).catch(() => null))?.text() ?? '';
      await waitFor(
        'AUTH retries counted',
        async () => /addrsum_indexer_node_retries_total\{code="AUTH",chain="LTC"\} [1-9]/.test(await indexerMetrics()),
        30_000,
        indexer,
      );
      const text = await indexerMetrics();
      expect(text).toMatch(/addrsum_indexer_node_retries_total\{code="UNREACHABLE",chain="LTC"\} 0/);
      expect(text).toMatch(/addrsum_indexer_node_last_seen_timestamp_seconds\{chain="LTC"\} 0/);
      expect(text).toMatch(new RegExp(`addrsum_indexer_indexed_height\\{chain="LTC"\\} ${indexedTip(dbPath)!.height}`));
      expect((await ready(strict.url)).status).toBe(503);
      await stopIndexer();
      indexer = await startIndexerOn();
      await waitFor('ready again with a working indexer', async () => (await ready(strict.url)).status === 200, 30_000, indexer);
      const seen = await (await fetch(`http://127.0.0.1:${indexer.metricsPort}/metrics`)).text();
      expect(seen).toMatch(/addrsum_indexer_node_last_seen_timestamp_seconds\{chain="LTC"\} [1-9]/);
      expect(seen).toMatch(/addrsum_indexer_tip_block_timestamp_seconds\{chain="LTC"\} (0|[1-9]\d*)/);
    } finally {
      await strict.stop();
    }
  }, 120_000);

  it('case 5: 25,000 idle sockets (two clients, two source addresses) leave /health answering', async () => {
    const port = new URL(api.url).port;
    const results = await Promise.all(
      ['127.0.0.2', '127.0.0.3'].map((from) => startSocketClient('test/support/idle-sockets-child.ts', [port, '12500', from], children)),
    );
    expect(results.reduce((n, r) => n + r.opened + r.failed, 0)).toBe(25_000);
    const res = await fetch(`${api.url}/health`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { status: string } }).data.status).toBe('ok');
    expect((await get(api.url, addresses[0]!)).status).toBe(200);
    for (const c of children.splice(0)) c.kill('SIGKILL');
  }, 120_000);

  it('case 4: 10,000 wrong keys from one client get 429 after the burst, and the API log grows < 100 KB', async () => {
    const logBefore = Buffer.byteLength(api.output());
    const result = await new Promise<AutocannonResult>((resolve, reject) => {
      autocannon(
        { url: `${api.url}/api/v1/LTC/address/${addresses[0]!}`, connections: 20, amount: 10_000, headers: { 'x-api-key': WRONG_KEY } },
        (err, r) => (err ? reject(err) : resolve(r)),
      );
    });
    const unauthorized = result.statusCodeStats['401']?.count ?? 0;
    const throttled = result.statusCodeStats['429']?.count ?? 0;
    expect(unauthorized + throttled).toBe(10_000);
    // burst 20, then 1 per second while the flood lasts.
    expect(unauthorized).toBeLessThanOrEqual(20 + Math.ceil(result.duration) + 1);
    expect(throttled).toBeGreaterThan(9_000);
    // Log lines arrive in order: once a marked request's line is here, every line of the flood is too.
    // It comes from another source address: the flooding one is throttled, and its 429 lines sampled.
    await new Promise<void>((resolve, reject) => {
      const url = new URL(`${api.url}/api/v1/LTC/address/${addresses[0]!}`);
      const headers = { 'x-api-key': apiKey, 'x-request-id': 'after-flood' };
      http.get(url, { headers, localAddress: '127.0.0.4' }, (res) => res.resume().on('end', resolve)).on('error', reject);
    });
    await waitFor('the marked request in the log', () => api.output().includes('"reqId":"after-flood"'), 30_000);
    const grown = Buffer.byteLength(api.output()) - logBefore;
    expect(grown).toBeLessThan(100_000);
  }, 120_000);
});
