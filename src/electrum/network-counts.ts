/**
 * Open Electrum connections per client network (caller-buckets.ts clientNetwork: an IPv4 address, an
 * IPv6 /64), over every chain's listeners of this API process. An open connection holds a descriptor
 * and a session for as long as the client likes, so one network must not hold them all.
 */
export class NetworkCounts {
  private readonly open = new Map<string, number>();

  /** Counts one more connection of `network` unless it already holds `cap`. */
  tryOpen(network: string, cap: number): boolean {
    const n = this.open.get(network) ?? 0;
    if (n >= cap) return false;
    this.open.set(network, n + 1);
    return true;
  }

  release(network: string): void {
    const n = (this.open.get(network) ?? 0) - 1;
    // Absent rather than 0: the map holds only networks with a connection open.
    if (n <= 0) this.open.delete(network);
    else this.open.set(network, n);
  }
}
