/**
 * server.version's negotiation, pure. A client names one version or a [min, max] range; we speak the
 * versions of SPOKEN (1.5 was skipped by the protocol) and settle on the highest of them in the client's
 * range. No common version is a refusal (the session then closes, as ElectrumX does).
 */
import { RpcError } from './wire.js';

/** Oldest first. */
const SPOKEN = ['1.4', '1.6'] as const;

export type Protocol = (typeof SPOKEN)[number];

export const PROTOCOL_MIN: Protocol = SPOKEN[0];
export const PROTOCOL_MAX: Protocol = SPOKEN[SPOKEN.length - 1]!;

type Version = readonly number[];

function parseVersion(v: unknown): Version | undefined {
  if (typeof v !== 'string' || !/^\d{1,4}(\.\d{1,4}){0,3}$/.test(v)) return undefined;
  return v.split('.').map(Number);
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A session's protocol is `version` or later (a session that has not negotiated speaks PROTOCOL_MIN). */
export function speaksAtLeast(protocol: string | undefined, version: Protocol): boolean {
  return compare(parseVersion(protocol ?? PROTOCOL_MIN)!, parseVersion(version)!) >= 0;
}

/** The version to speak with a client asking for `requested` (absent: our minimum); throws RpcError otherwise. */
export function negotiate(requested: unknown): Protocol {
  const range = requested === undefined ? [PROTOCOL_MIN, PROTOCOL_MIN] : Array.isArray(requested) ? requested : [requested, requested];
  const [min, max] = range.length === 2 ? range.map(parseVersion) : [undefined, undefined];
  if (min === undefined || max === undefined || compare(min, max) > 0) {
    throw new RpcError(
      'INVALID_PARAMS',
      `invalid protocol version ${JSON.stringify(requested)}: expected a version such as "1.4" or a range such as ["1.4", "${PROTOCOL_MAX}"]`,
    );
  }
  const common = SPOKEN.filter((v) => compare(parseVersion(v)!, min) >= 0 && compare(parseVersion(v)!, max) <= 0);
  const chosen = common[common.length - 1];
  if (chosen === undefined) {
    throw new RpcError(
      'BAD_REQUEST',
      `unsupported protocol version ${JSON.stringify(requested)}: this server speaks ${SPOKEN.join(' and ')}`,
    );
  }
  return chosen;
}
