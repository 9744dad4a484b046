/**
 * The Electrum protocol server of the API process (docs/electrum.md): for each served chain with an
 * Electrum port, its listeners with the methods served so far, every session metered with its client
 * network (cost-meter.ts), one cap of connections per network over all chains. Started
 * and stopped by src/api-process/main.ts with the HTTP server.
 */
import { readFileSync } from 'node:fs';
import { chainParams, CHAIN_CODES, type ChainCode } from '../chain/params.js';
import { ConfigError, isChainServed, type Config } from '../config.js';
import { electrumPorts } from '../config-electrum.js';
import type { Logger } from '../logger.js';
import { PACKAGE_VERSION } from '../package-root.js';
import { settingWithVariables } from '../setting-variables.js';
import type { Registry } from 'prom-client';
import { CauseLog } from './cause-log.js';
import { CostMeters } from './cost-meter.js';
import { createElectrumMetrics, startSeries } from './metrics.js';
import { methodRegistry } from './methods/registry.js';
import { serverMethods } from './methods/server-methods.js';
import { indexMethods } from './methods/index-methods.js';
import { indexGroup, type IndexDeps } from './index/index-group.js';
import { nodeMethods } from './methods/node-methods.js';
import { NetworkCounts } from './network-counts.js';
import type { NodeViews } from '../serving/node-views.js';
import { ElectrumServer } from './server.js';

export interface ElectrumService {
  /** Listens on every configured port; rejects (closing what did listen) when one cannot. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

export const SERVER_SOFTWARE = `addrsum ${PACKAGE_VERSION}`;

/** A file of the TLS listener, read now: one that cannot be is a configuration error naming its variable. */
function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`${settingWithVariables(setting)}: cannot read ${file} (${code}); the Electrum TLS port needs it`);
  }
}

function tlsOf(config: Config, chain: ChainCode): { port: number; cert: Buffer; key: Buffer } | undefined {
  const e = config.chains[chain].electrum;
  if (e.tlsPort === undefined) return undefined;
  // loadConfig has already refused a TLS port without both files named.
  const at = `chains.${chain}.electrum`;
  return { port: e.tlsPort, cert: readPem(`${at}.tlsCert`, e.tlsCert!), key: readPem(`${at}.tlsKey`, e.tlsKey!) };
}

/**
 * The configured listeners, built (TLS files read, chains checked: a ConfigError otherwise) but not yet
 * listening. Under node:cluster the supervisor takes a worker's first listen for the HTTP port (its
 * `listening` line, the rolling restart's "ready"), so main.ts listens here after the HTTP server.
 */
export function electrumService(
  config: Config,
  deps: { readonly registry: Registry; readonly logger: Logger; readonly nodeViews?: ReadonlyMap<ChainCode, NodeViews> } & IndexDeps,
): ElectrumService {
  const chains = CHAIN_CODES.filter((c) => {
    const { tcp, tls } = electrumPorts(c, config);
    return tcp || tls;
  });
  for (const chain of chains) {
    if (!isChainServed(config, chain)) {
      throw new ConfigError(
        `chains.${chain}.electrum has a port but the API does not serve ${chain}: ` +
          `name it in ${settingWithVariables('api.serveChains')}, or unset the Electrum ports`,
      );
    }
  }
  const metrics = createElectrumMetrics(deps.registry);
  const counts = new NetworkCounts();
  const e = config.electrum;
  const limits = {
    maxLineBytes: e.maxLineBytes,
    maxBufferedBytes: e.maxBufferedBytes,
    idleTimeoutMs: e.idleTimeoutSeconds * 1000,
    connectionsPerNetwork: e.connectionsPerNetwork,
  };
  const meters = new CostMeters({
    session: { soft: e.costSoftLimit, hard: e.costHardLimit, decayPerSecond: e.costDecayPerSecond },
    network: { soft: e.networkCostSoftLimit, hard: e.networkCostHardLimit, decayPerSecond: e.networkCostDecayPerSecond },
    maxDelayMs: e.maxDelayMs,
    trusted: e.trustedNetworks,
  });
  const links: { close(): void }[] = [];
  const servers = chains.map((chain) => {
    const log = deps.logger.child({ component: 'electrum', chain });
    startSeries(metrics, chain);
    const node = nodeMethods(config, chain, deps.chains.get(chain), { feed: deps.feed, log }, deps.nodeViews?.get(chain));
    links.push(node);
    return new ElectrumServer({
      chain,
      host: config.api.host,
      tcpPort: config.chains[chain].electrum.port,
      tls: tlsOf(config, chain),
      registry: methodRegistry(
        serverMethods({ params: chainParams(chain, config.chains[chain].network), software: SERVER_SOFTWARE, banner: e.banner }),
        indexMethods(indexGroup(chain, { ...e, undoDepth: config.chains[chain].undoDepth }, deps, log)),
        node.methods,
      ),
      limits,
      maxConnections: config.api.maxConnections,
      counts,
      meters,
      metrics,
      causes: new CauseLog(log),
      log,
    });
  });
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.close()));
    for (const link of links) link.close();
    meters.close();
  };
  return {
    listen: async () => {
      try {
        for (const server of servers) await server.listen();
      } catch (err) {
        await close();
        throw err;
      }
    },
    close,
  };
}
