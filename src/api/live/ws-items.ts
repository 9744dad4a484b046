/**
 * The items of a WebSocket subscribe or unsubscribe (ws-connection.ts): `addresses`, `scripthashes`
 * (Electrum, as GET …/scripthash/{hash}) and `xpubs` (as the xpub route: `{"key": "…", "range": N}` or a
 * bare key at the route's default range), all optional, any mix; at most MAX_XPUBS_PER_MESSAGE wallets.
 * Each good item gets an id that names it within a connection, its cost in subscriptions and in
 * derivation work (both known before anything is derived), and a watch made only when it is needed (a
 * wallet is derived then, on the derivation pool through the xpub route's cache); each bad one a fail
 * entry with its code. A wallet's entry names it by its list index and its fingerprint, never by its key.
 */
import type { ChainCode } from '../../chain/params.js';
import { checkAddress } from '../../serving/address-param.js';
import type { ChainHandle } from '../../serving/chain-handle.js';
import { DerivationCache } from '../derivation-cache.js';
import { canonicalDescriptors } from '../../wallet/descriptor.js';
import { ServingError } from '../../serving/errors.js';
import { parseScripthash } from '../../serving/scripthash-param.js';
import { DEFAULT_XPUB_MAX_RANGE, refused, walletOf } from '../wallet-request.js';
import type { Watch } from './summaries.js';
import { scripthashWatch, walletSubscriptions, walletWatch, watchOf } from './watch.js';

export interface Item {
  /** Names the subscription within its connection: the same script as address and as scripthash are two. */
  readonly id: string;
  /** How a fail entry names it. */
  readonly label: object;
  /** Subscriptions it counts as (watch.ts), before it is made. */
  readonly cost: number;
  /** Its derivationWork (wallet/derive.ts); 0 for an address or a scripthash. */
  readonly work: number;
  /** Null when its derivation can be queued for `caller` now; else the derivation pool's refusal. */
  admit(caller: string): ServingError | null;
  /** The watch; rejects when it cannot be made (a wallet that cannot be derived): failEntry() says why. */
  make(caller: string): Promise<Watch>;
}

export interface Items {
  readonly good: Item[];
  readonly bad: object[];
}

const LISTS = ['addresses', 'scripthashes', 'xpubs'] as const;
/** Wallets one subscribe may carry: each is checked and priced before any is derived, and a message is read whole. */
export const MAX_XPUBS_PER_MESSAGE = 20;

/** A bad item's entry in a fail reply: its label, and the code and message the GET route would answer. */
export function failEntry(label: object, err: unknown): object {
  const e = refused(err);
  return { ...label, ...e.data, code: e.code, message: e.message };
}

/** Checks the op's lists' shapes (BAD_REQUEST for the whole op) before any item is read. */
function lists(op: Record<string, unknown>): { addresses: unknown[]; scripthashes: unknown[]; xpubs: unknown[] } {
  if (LISTS.every((name) => op[name] === undefined)) throw new ServingError('BAD_REQUEST', 'give addresses, scripthashes or xpubs');
  for (const name of LISTS) {
    const list = op[name];
    if (list !== undefined && !Array.isArray(list)) throw new ServingError('BAD_REQUEST', `${name} must be an array`);
  }
  const of = (name: (typeof LISTS)[number]): unknown[] => (op[name] as unknown[] | undefined) ?? [];
  if (of('xpubs').length > MAX_XPUBS_PER_MESSAGE)
    throw new ServingError('BAD_REQUEST', `at most ${MAX_XPUBS_PER_MESSAGE} xpubs in one message`);
  if ([...of('addresses'), ...of('scripthashes')].some((a) => typeof a !== 'string')) {
    throw new ServingError('BAD_REQUEST', 'addresses and scripthashes must be arrays of strings');
  }
  return { addresses: of('addresses'), scripthashes: of('scripthashes'), xpubs: of('xpubs') };
}

/** An item whose watch is made already (an address or a scripthash: nothing to derive). */
function ready(id: string, label: object, watch: Watch): Item {
  return { id, label, cost: watch.cost, work: 0, admit: () => null, make: () => Promise.resolve(watch) };
}

function xpubItem(value: unknown): { key: unknown; range: unknown } {
  if (typeof value === 'string') return { key: value, range: undefined };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { key, range } = value as { key?: unknown; range?: unknown };
    return { key, range };
  }
  return { key: undefined, range: undefined };
}

export function readItems(
  op: Record<string, unknown>,
  chain: ChainCode,
  handle: ChainHandle,
  mempool: boolean,
  maxRange: number | undefined,
  cache: DerivationCache,
): Items {
  const { addresses, scripthashes, xpubs } = lists(op);
  const good: Item[] = [];
  const bad: object[] = [];
  for (const address of addresses as string[]) {
    const checked = checkAddress(handle, address);
    if (!checked.ok) bad.push(failEntry({ address }, checked.error));
    else {
      const watch = watchOf(chain, address, checked.script, mempool);
      good.push(ready(`a|${watch.keys[0]!}|${mempool}`, { address }, watch));
    }
  }
  for (const text of scripthashes as string[]) {
    try {
      const { hash, key } = parseScripthash(text);
      const watch = scripthashWatch(chain, hash, key, mempool);
      good.push(ready(`s|${watch.keys[0]!}|${mempool}`, { scripthash: hash }, watch));
    } catch (err) {
      bad.push(failEntry({ scripthash: text.slice(0, 80) }, err));
    }
  }
  xpubs.forEach((value, index) => {
    try {
      const { key, range } = xpubItem(value);
      const w = walletOf(handle, key, range, maxRange ?? DEFAULT_XPUB_MAX_RANGE);
      good.push({
        id: `w|${w.fingerprint}/${w.range}|${mempool}`,
        label: { xpub: index, wallet: w.fingerprint },
        cost: walletSubscriptions(w.scripts),
        work: w.work,
        admit: (caller) => cache.admit(caller, w.fingerprint, w),
        make: async (caller) => {
          const { scripts, keys } = await cache.wallet(caller, w.fingerprint, w);
          const wallet = { fingerprint: w.fingerprint, range: w.range, descriptors: canonicalDescriptors(w.desc), scripts, keys };
          return walletWatch(chain, wallet, mempool);
        },
      });
    } catch (err) {
      bad.push(failEntry({ xpub: index }, err));
    }
  });
  return { good, bad };
}
