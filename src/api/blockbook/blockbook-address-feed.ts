/**
 * The addresses one Blockbook WebSocket subscribed (subscribeAddresses), and what of their history it
 * has been told: a notification `{address, tx}` (Blockbook's Tx) for each transaction that reaches the
 * node's mempool and, with `newBlockTxs`, for each one a new block confirms, as Blockbook sends them.
 *
 * The live hub names the scripts each poll of the change feed found changed; only those addresses are
 * read again (their mempool part and newest confirmed page), and what they hold that the last read did
 * not is notified, oldest first. A read or a transaction that fails (the index stale, the node away)
 * leaves the address as it was, so the next change tries again.
 */
import type { FeedChange } from '../../serving/feed-change.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { HistoryItem, UnconfirmedItem } from '../../store/index-model.js';
import type { Logger } from '../../logger.js';
import { readIndex } from '../index-read.js';
import { answeringIndex } from '../node-read.js';
import { servedPage } from '../routes/transactions.js';
import type { BlockbookAsk } from './blockbook-ask.js';
import { txReading, txShown } from './blockbook-txs.js';

/** Transactions one read of an address lists: what a change can add at once is far less. */
const READ_LIMIT = 1000;

export interface WatchedAddress {
  readonly address: string;
  readonly key: Buffer;
}

interface Told {
  /** Its mempool transactions (display hex) as last read. */
  mempool: ReadonlySet<string>;
  /** txNum of its newest confirmed transaction as last read; −1: none. */
  newest: number;
}

export type Notify = (address: string, tx: Record<string, unknown>) => void;

export class AddressFeed {
  private readonly told = new Map<string, Told>();
  private readonly byKey: Map<string, WatchedAddress>;
  /** Reads run one after another: notifications go out in the order the changes came. */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly ask: BlockbookAsk,
    addresses: readonly WatchedAddress[],
    private readonly newBlockTxs: boolean,
    private readonly notify: Notify,
    private readonly log: Logger,
  ) {
    this.byKey = new Map(addresses.map((a) => [a.key.toString('latin1'), a]));
  }

  get size(): number {
    return this.byKey.size;
  }

  /** What each address holds now, told to no one: the start the changes are measured from. */
  async start(): Promise<void> {
    await Promise.all([...this.byKey.entries()].map(async ([id, a]) => this.told.set(id, toldOf(await this.read(a)))));
  }

  /** One poll's changes: the addresses it names are read again (every one when it cannot tell). */
  changed(change: FeedChange): void {
    const ids = change.all ? [...this.byKey.keys()] : [...change.touched].filter((id) => this.byKey.has(id));
    if (ids.length === 0) return;
    this.queue = this.queue.then(() => this.refresh(ids));
  }

  stop(): void {
    this.stopped = true;
  }

  private async read(a: WatchedAddress): Promise<{ unconfirmed: readonly UnconfirmedItem[]; items: readonly HistoryItem[] }> {
    const { deps, route, headers } = this.ask;
    const read = await readIndex(route.chain, route.handle, async (s) =>
      s.historyPage ? s.historyPage({ key: a.key, after: null, limit: READ_LIMIT, mempool: true }) : null,
    );
    return servedPage(deps, route.chain, read, headers);
  }

  private async refresh(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const a = this.byKey.get(id);
      const before = this.told.get(id);
      if (this.stopped || a === undefined || before === undefined) continue;
      try {
        const now = await this.read(a);
        const fresh = [...now.unconfirmed].reverse().filter((t) => !before.mempool.has(toDisplayHex(t.txid)));
        const confirmed = this.newBlockTxs ? [...now.items].reverse().filter((t) => t.txNum > before.newest) : [];
        await this.tell(
          a,
          [...confirmed, ...fresh].map((t) => t.txid),
        );
        this.told.set(id, toldOf(now, before.newest));
      } catch (err) {
        this.log.debug({ err, address: a.address }, 'blockbook: an address notification waits for the next change');
      }
    }
  }

  private async tell(a: WatchedAddress, txids: readonly Buffer[]): Promise<void> {
    if (txids.length === 0) return;
    const { index, tipHeight } = await answeringIndex(this.ask.deps, this.ask.route, this.ask.headers, true);
    const reading = txReading(this.ask.route, index, tipHeight);
    const shown: Record<string, unknown>[] = [];
    for (const txid of txids) {
      const found = await this.ask.route.views.txs.find(index, txid);
      // Gone meanwhile (replaced, or reorganised away): nothing to tell of it.
      if (found !== null) shown.push(await txShown(reading, found));
    }
    if (!this.stopped) for (const tx of shown) this.notify(a.address, tx);
  }
}

function toldOf(read: { unconfirmed: readonly UnconfirmedItem[]; items: readonly HistoryItem[] }, newest = -1): Told {
  return {
    mempool: new Set(read.unconfirmed.map((t) => toDisplayHex(t.txid))),
    newest: read.items.reduce((n, t) => Math.max(n, t.txNum), newest),
  };
}
