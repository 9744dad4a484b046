/**
 * server.version's negotiation, pure. A client names one version or a [min, max] range; we speak exactly
 * PROTOCOL_MIN..PROTOCOL_MAX (1.4 for now) and settle on the highest version both speak. No common
 * version is a refusal (the session then closes, as ElectrumX does).
 */
import { RpcError } from './wire.js';

export const PROTOCOL_MIN = '1.4';
export const PROTOCOL_MAX = '1.4';

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

/** The version to speak with a client asking for `requested` (absent: our minimum); throws RpcError otherwise. */
export function negotiate(requested: unknown): string {
  const range = requested === undefined ? [PROTOCOL_MIN, PROTOCOL_MIN] : Array.isArray(requested) ? requested : [requested, requested];
  const [min, max] = range.length === 2 ? range.map(parseVersion) : [undefined, undefined];
  if (min === undefined || max === undefined || compare(min, max) > 0) {
    throw new RpcError('INVALID_PARAMS', `invalid protocol version ${JSON.stringify(requested)}: expected "1.4" or ["1.4", "1.4"]`);
  }
  const ours = { min: parseVersion(PROTOCOL_MIN)!, max: parseVersion(PROTOCOL_MAX)! };
  const low = compare(min, ours.min) > 0 ? min : ours.min;
  const high = compare(max, ours.max) < 0 ? max : ours.max;
  if (compare(low, high) > 0) {
    throw new RpcError(
      'BAD_REQUEST',
      `unsupported protocol version ${JSON.stringify(requested)}: this server speaks ${PROTOCOL_MIN} to ${PROTOCOL_MAX}`,
    );
  }
  return high.join('.');
}
