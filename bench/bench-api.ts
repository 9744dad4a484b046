/**
 * The real API process (src/api-process/addrsum-api.ts, as `npm run api` runs it) on a benchmark data dir, with a
 * private-tier key whose limits are raised far above what one sequential client sends (limits are not
 * what these benchmarks measure), and a lean keep-alive HTTP client for it.
 */
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import { KeyStore } from '../src/store/sqlite/key-store.js';
import { startApi, type ApiProcess } from '../harness/api-process.js';
import { trackChild } from './emergency.js';

export interface AddressAnswer {
  balanceSatoshi: number;
  utxoCount: number;
  blockHeight: number;
  blockHash: string;
}

export interface BenchApi {
  readonly api: ApiProcess;
  /** GET /api/v1/LTC/address/{address}; `ms` from sending the request to the end of the body. */
  address(address: string): Promise<{ ms: number; data: AddressAnswer }>;
  /** Closes the client's connection and stops the API. */
  stop(): Promise<void>;
}

export interface TimedAnswer {
  status: number;
  text: string;
  /** From sending the request to the end of the body. */
  ms: number;
}

/**
 * A request over `agent` (node:http, kept alive: measures the server, not a heavyweight client; fetch adds
 * ~0.3 ms). GET, or POST of a JSON `body`.
 */
export function timedRequest(
  agent: http.Agent,
  host: string,
  port: number | string,
  path: string,
  headers: http.OutgoingHttpHeaders,
  body?: string,
): Promise<TimedAnswer> {
  const method = body === undefined ? 'GET' : 'POST';
  const sent = body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host, port, path, method, agent, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The API on `dataDir` serving `chain` (LTC unless named) on `network` (the RPC URL only makes the chain
 * served), and a private-tier key whose limits are raised to 1,000,000/s.
 */
export async function startRaisedApi(
  dataDir: string,
  network: 'mainnet' | 'regtest',
  rpcUrl: string,
  chain: 'BTC' | 'LTC' = 'LTC',
): Promise<{ api: ApiProcess; key: string }> {
  const keys = KeyStore.open(`${dataDir}/keys.sqlite`);
  const key = keys.create('private', 'bench').key;
  keys.close();
  const config = `${dataDir}/api.toml`;
  await writeFile(config, '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
  const api = await startApi({
    ADDRSUM_CONFIG: config,
    ADDRSUM_DATA_DIR: dataDir,
    [`ADDRSUM_${chain}_NETWORK`]: network,
    [`ADDRSUM_${chain}_RPC_URL`]: rpcUrl,
  });
  trackChild(api.child);
  return { api, key };
}

export async function startBenchApi(dataDir: string, rpcUrl: string): Promise<BenchApi> {
  const { api, key } = await startRaisedApi(dataDir, 'regtest', rpcUrl);
  const { hostname, port } = new URL(api.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string): Promise<TimedAnswer> => timedRequest(agent, hostname, port, path, { 'x-api-key': key });
  return {
    api,
    async address(address) {
      const r = await get(`/api/v1/LTC/address/${encodeURIComponent(address)}`);
      if (r.status !== 200) throw new Error(`API answered ${r.status}: ${r.text}`);
      return { ms: r.ms, data: (JSON.parse(r.text) as { data: AddressAnswer }).data };
    },
    async stop() {
      agent.destroy();
      await api.stop();
    },
  };
}
