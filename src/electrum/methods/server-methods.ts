/**
 * The `server.*` methods: the ones a wallet calls first, which need no index. Cheap by design, priced
 * low so that a wallet's handshake costs little, but never free (a flood of pings still empties a bucket).
 */
import type { ChainParams } from '../../chain/params.js';
import { negotiate, PROTOCOL_MAX, PROTOCOL_MIN, speaksAtLeast } from '../version.js';
import { RpcError } from '../wire.js';
import type { MethodSpec } from './registry.js';

/** A tenth of a keyless HTTP request. */
const CHEAP = 0.1;

export interface ServerInfo {
  readonly params: ChainParams;
  /** `addrsum 0.1.0`: server.version's and server.features' software name. */
  readonly software: string;
  readonly banner: string;
}

/**
 * What the optional parts of 1.6 are here, in the draft's `method_flavours` (spesmilo's 1.6 draft; the
 * released text dropped the field, and a client that does not know it ignores it).
 */
const METHOD_FLAVOURS = {
  'blockchain.transaction.get': { supports_verbose_true: false },
} as const;

/** ElectrumX keeps the first 17 characters of a client's name; so do we (it only goes to logs and state). */
const CLIENT_NAME_MAX = 17;

export function serverMethods(info: ServerInfo): Record<string, MethodSpec> {
  const method = (params: readonly string[], handler: MethodSpec['handler']): MethodSpec => ({ cost: CHEAP, params, handler });
  return {
    // From 1.6 extra arguments are ignored, so that later versions can add some.
    'server.version': {
      ...method(['client_name', 'protocol_version'], async ([clientName, protocolVersion], session) => {
        if (session.protocol !== undefined) throw new RpcError('BAD_REQUEST', 'server.version already sent');
        if (clientName !== undefined && typeof clientName !== 'string')
          throw new RpcError('INVALID_PARAMS', 'client_name must be a string');
        let protocol: string;
        try {
          protocol = negotiate(protocolVersion);
        } catch (err) {
          // No version in common: nothing else the client sends can be understood.
          session.closeAfterAnswer('version');
          throw err;
        }
        session.negotiated((clientName ?? '').slice(0, CLIENT_NAME_MAX), protocol);
        return [info.software, protocol];
      }),
      extraParams: 'ignored',
    },
    'server.ping': method([], async () => null),
    'server.banner': method([], async () => info.banner),
    'server.donation_address': method([], async () => ''),
    'server.peers.subscribe': method([], async () => []),
    'server.features': method([], async (_params, session) => ({
      genesis_hash: info.params.genesisHash,
      hosts: {},
      protocol_min: PROTOCOL_MIN,
      protocol_max: PROTOCOL_MAX,
      server_version: info.software,
      hash_function: 'sha256',
      pruning: null,
      ...(speaksAtLeast(session.protocol, '1.6') ? { method_flavours: METHOD_FLAVOURS } : {}),
    })),
  };
}
