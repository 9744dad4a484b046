/**
 * blockchain.scripthash.listunspent from the opt-in UTXO listing: the confirmed outputs and the mempool's
 * outputs to the script (height 0), less those a mempool transaction spends, as the protocol says.
 * Without the listing there is no answer: an error naming the variable that turns it on.
 *
 * A listing row costs the event loop about 8 µs (200,000 rows took 1.65 s in the hostile probe), so the
 * read is bounded before it starts and cut while it runs:
 *   - counted first, from the script's summary (one indexed read): a list longer than electrum.maxHistory
 *     is refused from its count, never after reading it;
 *   - priced from that count and paid before the read (the session waits, or closes past a hard limit);
 *   - read in slices of UNSPENT_SLICE rows, each a turn of the chain's queue of heavy reads (one at a
 *     time), so another request, on any door, waits at most one slice.
 * The slices are one list only if no block came between them: each checks the tip the first saw, and a
 * read that sees it move starts again (the mempool part is as of its own slice, as it is a moment later).
 */
import PQueue from 'p-queue';
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode } from '../../chain/params.js';
import { decodeOutpoint } from '../../store/outpoint.js';
import type { UtxoPosition, UtxoRow } from '../../store/index-model.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';

/** Rows read in one turn: about 16 ms of the event loop. */
export const UNSPENT_SLICE = 2000;
/** Rows one unit of metered cost pays for (a light request, ~0.2 ms, is 1). */
export const UNSPENT_ROWS_PER_UNIT = 25;
/** Reads started again after a block came between their slices, before the client is told to retry. */
const MAX_RESTARTS = 3;

export interface Unspent {
  readonly tx_hash: string;
  readonly tx_pos: number;
  readonly height: number;
  readonly value: number;
}

/** What listing `count` rows costs beyond the request's fixed cost. */
export function unspentCost(count: number): number {
  return count / UNSPENT_ROWS_PER_UNIT;
}

/** The heavy reads of one chain's Electrum methods, one at a time. */
export function heavyReads(): PQueue {
  return new PQueue({ concurrency: 1 });
}

/** The protocol's entries from the listing's rows: spent-in-mempool ones left out, unconfirmed at height 0. */
export function unspentOf(rows: readonly UtxoRow[]): Unspent[] {
  const out: Unspent[] = [];
  for (const row of rows) {
    if (row.spentInMempool === true) continue;
    const { txid, vout } = decodeOutpoint(row.outpoint);
    out.push({ tx_hash: toDisplayHex(txid), tx_pos: vout, height: row.height ?? 0, value: Number(row.valueSats) });
  }
  return out;
}

export interface UnspentRead {
  readonly index: ElectrumIndex;
  readonly chain: ChainCode;
  readonly key: Buffer;
  /** electrum.maxHistory */
  readonly max: number;
  readonly queue: PQueue;
  /** Meters the read's cost before it runs (ElectrumSession.charge). */
  readonly pay: (cost: number) => Promise<void>;
}

const tooMany = (max: number): RpcError => new RpcError('HISTORY_TOO_LARGE', `too many unspent outputs: this server lists at most ${max}`);

class TipMoved extends Error {}

export async function readUnspent(read: UnspentRead): Promise<Unspent[]> {
  const { index, chain, key, max } = read;
  const views = await index.keyViews([key], false);
  if (views === null) throw notIndexed();
  const confirmed = views.items[0]!.utxoCount;
  if (confirmed > max) throw tooMany(max);
  await read.pay(unspentCost(confirmed));
  for (let attempt = 0; attempt <= MAX_RESTARTS; attempt++) {
    try {
      return await readSlices(read);
    } catch (err) {
      if (!(err instanceof TipMoved)) throw err;
    }
  }
  throw new RpcError('SERVER_BUSY', `the ${chain} chain moved while its unspent outputs were read; retry shortly`);
}

async function readSlices({ index, chain, key, max, queue }: UnspentRead): Promise<Unspent[]> {
  const rows: UtxoRow[] = [];
  let tip: Buffer | undefined;
  let after: UtxoPosition | null = null;
  for (;;) {
    const slice = await queue.add(() =>
      index.utxoPage({
        keys: [key],
        after,
        limit: Math.min(UNSPENT_SLICE, max + 1 - rows.length),
        mempool: true,
        check: (ctx) => {
          if (tip !== undefined && !ctx.tipHash.equals(tip)) throw new TipMoved();
        },
      }),
    );
    if (slice === null) throw notIndexed();
    const { listing } = slice;
    if (listing.kind === 'empty') return [];
    if (listing.kind === 'off') {
      throw new RpcError(
        'BAD_REQUEST',
        `listunspent needs the UTXO listing, which this server's ${chain} index does not keep (ADDRSUM_UTXO_LIST or ADDRSUM_${chain}_UTXO_LIST)`,
      );
    }
    tip ??= listing.tipHash;
    rows.push(...listing.rows);
    if (rows.length > max) throw tooMany(max);
    if (listing.next === null) return unspentOf(rows);
    after = listing.next;
  }
}
