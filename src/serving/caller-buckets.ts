/**
 * The one place that names rate-limit buckets. Every family keys its buckets here, so a shared store
 * (Redis, for several replicas) can replace the in-process limiter without touching the middleware:
 *   key:<id>          a key's requests (its tier's limits)
 *   ip:<network>      anonymous requests per client network
 *   badkey:<network>  requests with a wrong or missing key per client network (api.invalidKeys)
 * A client network is an IPv4 address, or an IPv6 /64: one host usually owns a whole /64, so limiting
 * single IPv6 addresses would give it 2^64 buckets.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const buckets = {
  key: (id: string): string => `key:${id}`,
  anonymous: (ip: string | undefined): string => `ip:${clientNetwork(ip)}`,
  invalidKey: (ip: string | undefined): string => `badkey:${clientNetwork(ip)}`,
};

/** `1.2.3.4` → `1.2.3.4`; `::ffff:1.2.3.4` → `1.2.3.4`; `2001:db8:1:2:3::4` → `2001:db8:1:2::/64`. */
export function clientNetwork(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  const bare = ip.replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return bare;
  const groups = expandIPv6(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** Eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail handled). */
function expandIPv6(ip: string): number[] {
  let text = ip.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
