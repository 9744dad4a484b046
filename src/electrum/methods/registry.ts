/**
 * What a method is to the session: its handler, what it costs the caller, and the names of its
 * parameters (so a request with named params reaches the handler as positional ones). Index-backed
 * methods (headers, scripthashes, transactions, fees) plug in as more entries of the same registry.
 */
import type { CloseReason } from '../close-reasons.js';
import { speaksAtLeast, type Protocol } from '../version.js';

/** What a handler sees of its connection. */
export interface ElectrumSession {
  /** The client's network (an IPv4 address, an IPv6 /64): whose limits it spends. */
  readonly network: string;
  /** The protocol version server.version settled on; undefined until it was called. */
  readonly protocol: string | undefined;
  /** Records the outcome of server.version (once per connection). */
  negotiated(clientName: string, protocol: string): void;
  /** Sends a notification now (a subscription's change); dropped once the connection is closed. */
  notify(method: string, params: readonly unknown[]): void;
  /** Closes the connection once the answer to the request being handled is written. */
  closeAfterAnswer(reason: CloseReason): void;
  /**
   * Meters `cost` for work the fixed cost could not know (a long history, a long list of unspent
   * outputs): before the work when it can be counted first, else once it is done. Resolves once the
   * meter lets it (it may wait, with a bound); past a hard limit it rejects with -101 and the connection
   * closes once its admitted requests are answered.
   */
  charge(cost: number): Promise<void>;
  /** Calls `fn` once when the connection closes (subscriptions dropped); at once if it already has. */
  onClose(fn: () => void): void;
}

/**
 * Answers one request: the result, or a thrown RpcError (wire.ts) for an error answer. Any other throw
 * answers INTERNAL_ERROR and is logged; it never reaches the connection.
 */
export type MethodHandler = (params: readonly unknown[], session: ElectrumSession) => Promise<unknown>;

export interface MethodSpec {
  /**
   * Cost metered before the handler runs (cost-meter.ts): 1 is one script's read; price by work.
   */
  readonly cost: number;
  /**
   * Parameter names in order, for requests that name them; more params than names is INVALID_PARAMS,
   * unless `extraParams` is 'ignored' (server.version from 1.6 on, so that later versions can extend it).
   */
  readonly params: readonly string[];
  readonly extraParams?: 'ignored';
  readonly handler: MethodHandler;
  /** The protocol versions that have it (version.ts): from `since`, and before `until`; absent: all. */
  readonly since?: Protocol;
  readonly until?: Protocol;
}

/** The method is part of the session's protocol (an unnegotiated session speaks the oldest). */
export function inProtocol(spec: MethodSpec, protocol: string | undefined): boolean {
  return (
    (spec.since === undefined || speaksAtLeast(protocol, spec.since)) && (spec.until === undefined || !speaksAtLeast(protocol, spec.until))
  );
}

export type MethodRegistry = ReadonlyMap<string, MethodSpec>;

/** One registry from groups of methods; a name given twice is a programming error. */
export function methodRegistry(...groups: ReadonlyArray<Readonly<Record<string, MethodSpec>>>): MethodRegistry {
  const all = new Map<string, MethodSpec>();
  for (const group of groups) {
    for (const [name, spec] of Object.entries(group)) {
      if (all.has(name)) throw new Error(`Electrum method ${name} registered twice`);
      all.set(name, spec);
    }
  }
  return all;
}
