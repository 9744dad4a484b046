/**
 * Lists of client addresses in config: single IPs or CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`),
 * matched with node:net's BlockList. An IPv4 client seen as `::ffff:a.b.c.d` matches its IPv4 entries.
 */
import { BlockList, isIP } from 'node:net';

/** The entry as [address, prefix length or null, family], or null when it is neither an IP nor a range. */
function parse(entry: string): [string, number | null, 'ipv4' | 'ipv6'] | null {
  const [address = '', prefix, extra] = entry.trim().split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return null;
  const kind = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) return [address, null, kind];
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return null;
  return [address, Number(prefix), kind];
}

export function isAddressOrRange(entry: string): boolean {
  return parse(entry) !== null;
}

/** A test for client addresses against `entries` (each valid per isAddressOrRange). */
export function addressMatcher(entries: readonly string[]): (ip: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parse(entry);
    if (parsed === null) throw new Error(`not an IP address or CIDR range: ${entry}`);
    const [address, prefix, family] = parsed;
    if (prefix === null) list.addAddress(address, family);
    else list.addSubnet(address, prefix, family);
  }
  return (ip) => {
    if (ip === undefined) return false;
    const bare = ip.replace(/%.*$/, '');
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
    if (v4 !== undefined) return list.check(v4, 'ipv4');
    const family = isIP(bare);
    return family !== 0 && list.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  };
}
