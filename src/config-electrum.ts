/**
 * The Electrum protocol server's settings (docs/electrum.md): the shared `electrum` section (limits,
 * banner, broadcast) and each chain's `chains.<C>.electrum` listeners, with the check of what the
 * schema alone cannot say (a listener needs the chain's history; a TLS port needs its files named).
 */
import { z } from 'zod';
import { CHAIN_CODES, type ChainCode } from './chain/params.js';
import { ENV_BINDINGS } from './config-env.js';
import { bool, int, port, text } from './config-values.js';
import { isAddressOrRange } from './net-ranges.js';

/** `electrum`: what every chain's Electrum listeners share. */
export const electrumSettings = z.strictObject({
  /** Relay wallets' transactions to the node (blockchain.transaction.broadcast); off, it answers an error. */
  broadcast: bool(),
  /** The text server.banner answers. */
  banner: z.string({ error: 'expected a text' }).max(65_536, { error: 'expected at most 65536 characters' }),
  /** Longest request line in bytes: a line past it is answered with an error, then the connection closes. */
  maxLineBytes: int(1024, 16 * 1024 * 1024),
  /** Unsent answer bytes a client may leave unread before it is disconnected (slow reader). */
  maxBufferedBytes: int(16_384, 64 * 1024 * 1024),
  /** Electrum connections one client network (an IPv4 address, an IPv6 /64) may hold open, per API process. */
  connectionsPerNetwork: int(1, 1_000_000),
  /** Scripthashes one connection may subscribe to; a subscribe past it is answered with an error. */
  subscriptionsPerConnection: int(1, 10_000_000),
  /** Longest script history the scripthash methods answer (protocol 1.7's "history too large" past it). */
  maxHistory: int(1, 100_000_000),
  /** A connection that sends no request for this long is closed. */
  idleTimeoutSeconds: int(1, 86_400),
  /**
   * Metered cost (src/electrum/cost-meter.ts; a script's read costs 1) one connection may spend before
   * its requests wait, the most it may have unspent before it is closed, and how fast it drains.
   */
  costSoftLimit: int(1, 1_000_000_000),
  costHardLimit: int(1, 1_000_000_000),
  costDecayPerSecond: int(1, 1_000_000_000),
  /** The same, for all connections of one client network (an IPv4 address, an IPv6 /64) together. */
  networkCostSoftLimit: int(1, 1_000_000_000),
  networkCostHardLimit: int(1, 1_000_000_000),
  networkCostDecayPerSecond: int(1, 1_000_000_000),
  /** Longest a request over a soft limit waits before it is served. */
  maxDelayMs: int(0, 60_000),
  /** Client addresses or CIDR ranges whose connections are not metered (the connection caps still hold). */
  trustedNetworks: z.array(z.string().refine(isAddressOrRange, { error: 'expected IP addresses or CIDR ranges' })),
});

/** `chains.<C>.electrum`: the chain's listeners; unset ports = off. */
export const chainElectrum = z.strictObject({
  /** Plain TCP port on api.host (0 = any free port). */
  port: port().optional(),
  /** TLS port on api.host; needs tlsCert and tlsKey. */
  tlsPort: port().optional(),
  /** PEM certificate (chain) file of the TLS port. */
  tlsCert: text('a file path').optional(),
  /** PEM private key file of the TLS port. */
  tlsKey: text('a file path').optional(),
});

type ElectrumView = {
  readonly electrum: Readonly<Omit<z.infer<typeof electrumSettings>, 'trustedNetworks'>>;
  readonly chains: Readonly<
    Record<ChainCode, { readonly history: boolean; readonly utxoList: boolean; readonly electrum: Readonly<z.infer<typeof chainElectrum>> }>
  >;
};

/** `chains.LTC.history` → `ADDRSUM_LTC_HISTORY or ADDRSUM_HISTORY`: the most specific first (later bindings win). */
function variables(setting: string): string {
  const names = ENV_BINDINGS.filter((b) => b.path.join('.') === setting).map((b) => b.name);
  return [...new Set(names)].reverse().join(' or ');
}

/** The chain's Electrum listeners asked for (plain, TLS). */
export function electrumPorts(chain: ChainCode, config: ElectrumView): { tcp: boolean; tls: boolean } {
  const e = config.chains[chain].electrum;
  return { tcp: e.port !== undefined, tls: e.tlsPort !== undefined };
}

/** Why the Electrum settings cannot work together, or undefined: one line naming the variables to change. */
export function electrumProblem(config: ElectrumView): string | undefined {
  const e = config.electrum;
  for (const scope of ['cost', 'networkCost'] as const) {
    const [soft, hard] = [`${scope}SoftLimit`, `${scope}HardLimit`] as const;
    if (e[hard] <= e[soft]) {
      return `electrum.${hard} (${variables(`electrum.${hard}`)}) is ${e[hard]}, not above electrum.${soft} (${e[soft]}): the hard limit must be the higher`;
    }
  }
  for (const chain of CHAIN_CODES) {
    const { tcp, tls } = electrumPorts(chain, config);
    if (!tcp && !tls) continue;
    const at = `chains.${chain}.electrum`;
    const which = tcp ? `${at}.port (${variables(`${at}.port`)})` : `${at}.tlsPort (${variables(`${at}.tlsPort`)})`;
    if (!config.chains[chain].history) {
      // Wallets ask for every address's history at their first sync: without it the server can answer nothing.
      return (
        `${which} is set but chains.${chain}.history is off, and Electrum wallets need every address's history: ` +
        `set ADDRSUM_HISTORY=true (or ADDRSUM_${chain}_HISTORY) for the indexer and the API, or unset the Electrum port`
      );
    }
    if (!config.chains[chain].utxoList) {
      // Wallets spend with blockchain.scripthash.listunspent, which reads the script's outputs from the listing.
      return (
        `${which} is set but chains.${chain}.utxoList is off, and Electrum wallets spend from blockchain.scripthash.listunspent, which reads it: ` +
        `set ADDRSUM_UTXO_LIST=true (or ADDRSUM_${chain}_UTXO_LIST) for the indexer and the API, or unset the Electrum port`
      );
    }
    const listener = config.chains[chain].electrum;
    if (tls && (listener.tlsCert === undefined || listener.tlsKey === undefined)) {
      return (
        `${at}.tlsPort (${variables(`${at}.tlsPort`)}) needs a certificate and its key: ` +
        `set ${variables(`${at}.tlsCert`)} and ${variables(`${at}.tlsKey`)} to PEM files`
      );
    }
    if (tcp && tls && listener.port === listener.tlsPort && listener.port !== 0) {
      return `${at}.port and ${at}.tlsPort are both ${listener.port}: give the TLS listener its own port`;
    }
  }
  return undefined;
}
