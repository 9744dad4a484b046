/**
 * Blockbook's routes the node answers: the status (/api, /api/v2: this index's state beside the node's
 * getblockchaininfo and getnetworkinfo), /estimatefee/:blocks (estimatesmartfee, in coin per kB as
 * Blockbook writes it) and /sendtx (relayed only when api.broadcast is on, the hex as the last path
 * segment or as a POST's body).
 */
import express, { type Request, type Response, type Router } from 'express';
import { formatCoins, parseCoins } from '../../chain/amount.js';
import { chainModule } from '../../chain/registry.js';
import { NodeError } from '../../node/node-client.js';
import { addrsumVersion } from '../../build-info.js';
import { nodeSaid } from '../../serving/chain-node.js';
import { keepingFractions, nodeFailure } from '../../serving/node-answers.js';
import { settingWithVariables } from '../../setting-variables.js';
import type { AppDeps } from '../deps.js';
import { readIndex, unavailable } from '../index-read.js';
import type { NodeRoute } from '../node-read.js';
import { queryOf } from '../page-query.js';
import { BlockbookError, sendBlockbookJson } from './blockbook-answers.js';
import type { BlockbookAsk, HttpAsking } from './blockbook-ask.js';
import { boolParam } from './blockbook-params.js';

/** A transaction's hex: Core's largest (4,000,000 weight units) is under 8 MB of it, Blockbook's bound. */
const MAX_TX_BODY = '8mb';
const ABOUT = 'addrsum: the Blockbook REST API v2 from an addrsum index and its node (docs/blockbook.md).';
/** Go's zero time, which Blockbook writes for a time it does not know. */
const NO_TIME = '0001-01-01T00:00:00Z';

interface ChainInfo {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  difficulty: unknown;
  size_on_disk?: number;
  warnings?: string;
}
interface NetworkInfo {
  version: number;
  subversion: string;
  protocolversion: number;
  timeoffset?: number;
  warnings?: string;
}

/** The node's half of the status, or what kept it from answering (Blockbook then says `error`). */
async function backendOf(route: NodeRoute): Promise<Record<string, unknown>> {
  try {
    const [chain, network, mempool] = await Promise.all([
      route.views.node.call<ChainInfo>('getblockchaininfo', [], { parseJson: keepingFractions }),
      route.views.node.call<NetworkInfo>('getnetworkinfo'),
      route.views.node.call<{ size?: number }>('getmempoolinfo'),
    ]);
    const warnings = [chain.warnings, network.warnings].filter((w) => w !== undefined && w !== '');
    return {
      chain: chain.chain,
      blocks: chain.blocks,
      headers: chain.headers,
      bestBlockHash: chain.bestblockhash,
      difficulty: JSON.stringify(chain.difficulty),
      ...(chain.size_on_disk !== undefined && chain.size_on_disk > 0 && { sizeOnDisk: chain.size_on_disk }),
      version: String(network.version),
      subversion: network.subversion,
      protocolVersion: String(network.protocolversion),
      ...(network.timeoffset !== undefined && network.timeoffset !== 0 && { timeOffset: network.timeoffset }),
      ...(warnings.length > 0 && { warnings: [...new Set(warnings)].join(' ') }),
      mempoolSize: mempool.size ?? 0,
    };
  } catch (err) {
    return { error: `GetChainInfo: ${nodeSaid(err)}` };
  }
}

async function statusValue(deps: AppDeps, route: NodeRoute): Promise<Record<string, unknown>> {
  const { chain, handle } = route;
  const [status, backend] = await Promise.all([readIndex(chain, handle, (s) => s.status()), backendOf(route)]);
  if (status === null) throw unavailable(chain, 'it has no index yet');
  const { mempoolSize, ...node } = backend;
  const params = handle.params;
  const inSync = node.error === undefined && status.tipHash === node.bestBlockHash;
  return {
    blockbook: {
      coin: params.network === 'mainnet' ? chainModule(chain).name : params.label,
      network: chain,
      host: 'addrsum',
      version: addrsumVersion(),
      gitCommit: '',
      buildTime: '',
      syncMode: true,
      initialSync: false,
      inSync,
      bestHeight: status.tipHeight,
      lastBlockTime: status.tipTime?.toISOString() ?? NO_TIME,
      inSyncMempool: inSync,
      lastMempoolTime: status.nodeSeenAt?.toISOString() ?? NO_TIME,
      mempoolSize: typeof mempoolSize === 'number' ? mempoolSize : 0,
      decimals: 8,
      dbSize: 0,
      about: ABOUT,
    },
    backend: node,
  };
}

/** estimatesmartfee's feerate in satoshis per kB, as Blockbook reads it; 0 when the node has no estimate. */
export async function feeRate(route: NodeRoute, blocks: number, conservative: boolean): Promise<bigint> {
  const answer = await askRefusing<{ feerate?: unknown }>(route, 'estimatesmartfee', [
    blocks,
    conservative ? 'CONSERVATIVE' : 'ECONOMICAL',
  ]);
  const feerate = answer.feerate;
  return typeof feerate === 'number' && feerate > 0 ? parseCoins(feerate.toFixed(8)) : 0n;
}

/** Satoshis as Blockbook writes a coin amount: no trailing zeros ("0" without one). */
function coinText(sats: bigint): string {
  return formatCoins(sats).replace(/0+$/, '').replace(/\.$/, '');
}

function mustRelay(deps: AppDeps): void {
  if (deps.settings.broadcast !== true)
    throw new BlockbookError(
      403,
      `this server does not relay transactions: its operator turns it on with ${settingWithVariables('api.broadcast')}`,
    );
}

/** The node's refusal as Blockbook passes it on, "<code>: <message>"; a node that cannot answer is a 503. */
async function askRefusing<T>(route: NodeRoute, method: string, params: readonly unknown[]): Promise<T> {
  try {
    return await route.views.node.call<T>(method, params);
  } catch (err) {
    if (err instanceof NodeError && err.details.rpcCode !== undefined)
      throw new BlockbookError(400, `${err.details.rpcCode}: ${err.details.nodeMessage ?? ''}`);
    throw nodeFailure(route.chain, err, method);
  }
}

/** Relays a transaction's hex through the node (api.broadcast must be on); its txid. */
export async function relayAnswer(ask: BlockbookAsk, hex: string): Promise<{ result: string }> {
  mustRelay(ask.deps);
  if (hex === '') throw new BlockbookError(400, 'Missing tx blob');
  return { result: String(await askRefusing<unknown>(ask.route, 'sendrawtransaction', [hex])) };
}

/** Blockbook's coin shortcut: the chain's code on mainnet, `t` before it on the test networks. */
function shortcutOf(route: NodeRoute): string {
  return route.handle.params.network === 'mainnet' ? route.chain : `t${route.chain}`;
}

/** The WebSocket's getInfo: the coin, this index's tip and the node's version. */
export async function infoAnswer(ask: BlockbookAsk): Promise<Record<string, unknown>> {
  const { route } = ask;
  const { chain, handle } = route;
  const [status, backend] = await Promise.all([readIndex(chain, handle, (s) => s.status()), backendOf(route)]);
  if (status === null) throw unavailable(chain, 'it has no index yet');
  const params = handle.params;
  return {
    name: params.network === 'mainnet' ? chainModule(chain).name : params.label,
    shortcut: shortcutOf(route),
    network: shortcutOf(route),
    decimals: 8,
    version: addrsumVersion(),
    bestHeight: status.tipHeight,
    bestHash: status.tipHash,
    block0Hash: params.genesisHash,
    testnet: params.network !== 'mainnet',
    backend: {
      ...(typeof backend.version === 'string' && { version: backend.version }),
      ...(typeof backend.subversion === 'string' && { subversion: backend.subversion }),
    },
  };
}

/** Blockbook's status: this index's state beside the node's. */
export function statusAnswer(ask: BlockbookAsk): Promise<Record<string, unknown>> {
  return statusValue(ask.deps, ask.route);
}

export function mountBlockbookNode(router: Router, asking: HttpAsking): void {
  for (const path of ['/api', '/api/', '/api/v2', '/api/v2/'])
    router.get(path, async (req, res) => {
      sendBlockbookJson(res, await statusAnswer(asking(req, res)));
    });

  const estimate = async (req: Request, res: Response, text: string | undefined): Promise<void> => {
    if (text === undefined || text === '') throw new BlockbookError(400, "Missing parameter 'number of blocks'");
    if (!/^[+-]?\d+$/.test(text)) throw new BlockbookError(400, "Parameter 'number of blocks' is not a number");
    const conservativeText = queryOf(req).getAll('conservative').at(-1) ?? null;
    const conservative = conservativeText === null ? true : boolParam(conservativeText, 'conservative');
    sendBlockbookJson(res, { result: coinText(await feeRate(asking(req, res).route, Number(text), conservative)) });
  };
  router.get('/api/v2/estimatefee/', (req, res) => estimate(req, res, undefined));
  router.get('/api/v2/estimatefee/:blocks', (req, res) => estimate(req, res, String(req.params.blocks)));

  router.get('/api/v2/sendtx/:hex', async (req, res) => {
    sendBlockbookJson(res, await relayAnswer(asking(req, res), String(req.params.hex)));
  });
  // Blockbook's own POST needs the trailing slash (its redirect drops the body); both are taken here.
  for (const path of ['/api/v2/sendtx/', '/api/v2/sendtx'])
    router.post(path, express.text({ type: () => true, limit: MAX_TX_BODY }), async (req, res) => {
      sendBlockbookJson(res, await relayAnswer(asking(req, res), typeof req.body === 'string' ? req.body : ''));
    });
}
