/**
 * The items of a WebSocket subscribe or unsubscribe (ws-connection.ts): `addresses`, `scripthashes`
 * (Electrum, as GET …/scripthash/{hash}) and `xpubs` (as the xpub route: `{"key": "…", "range": N}` or a
 * bare key at the route's default range), all optional, any mix. Each good item gets an id that names
 * it within a connection and a watch made only when it is needed (a wallet is derived then, through
 * the xpub route's cache); each bad one a fail entry with its code. A wallet's entry names it by its
 * list index and its fingerprint, never by its key.
 */
import type { ChainCode } from '../../chain/params.js';
import { checkAddress } from '../address-view.js';
import type { ChainHandle } from '../deps.js';
import { DerivationCache } from '../derivation-cache.js';
import { canonicalDescriptors } from '../../wallet/descriptor.js';
import { ApiError } from '../errors.js';
import { parseScripthash } from '../routes/scripthash.js';
import { DEFAULT_XPUB_MAX_RANGE, refused, walletOf } from '../routes/xpub.js';
import type { Watch } from './summaries.js';
import { scripthashWatch, walletWatch, watchOf } from './watch.js';

export interface Item {
  /** Names the subscription within its connection: the same script as address and as scripthash are two. */
  readonly id: string;
  /** How a fail entry names it. */
  readonly label: object;
  /** The watch; throws when it cannot be made (a wallet that cannot be derived): failEntry() says why. */
  make(): Watch;
}

export interface Items {
  readonly good: Item[];
  readonly bad: object[];
}

const LISTS = ['addresses', 'scripthashes', 'xpubs'] as const;

/** A bad item's entry in a fail reply: its label, and the code and message the GET route would answer. */
export function failEntry(label: object, err: unknown): object {
  const e = refused(err);
  return { ...label, ...e.data, code: e.code, message: e.message };
}

/** Checks the op's lists' shapes (BAD_REQUEST for the whole op) before any item is read. */
function lists(op: Record<string, unknown>): { addresses: unknown[]; scripthashes: unknown[]; xpubs: unknown[] } {
  if (LISTS.every((name) => op[name] === undefined)) throw new ApiError('BAD_REQUEST', 'give addresses, scripthashes or xpubs');
  for (const name of LISTS) {
    const list = op[name];
    if (list !== undefined && !Array.isArray(list)) throw new ApiError('BAD_REQUEST', `${name} must be an array`);
  }
  const of = (name: (typeof LISTS)[number]): unknown[] => (op[name] as unknown[] | undefined) ?? [];
  if ([...of('addresses'), ...of('scripthashes')].some((a) => typeof a !== 'string')) {
    throw new ApiError('BAD_REQUEST', 'addresses and scripthashes must be arrays of strings');
  }
  return { addresses: of('addresses'), scripthashes: of('scripthashes'), xpubs: of('xpubs') };
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
      good.push({ id: `a|${watch.keys[0]!}|${mempool}`, label: { address }, make: () => watch });
    }
  }
  for (const text of scripthashes as string[]) {
    try {
      const { hash, key } = parseScripthash(text);
      const watch = scripthashWatch(chain, hash, key, mempool);
      good.push({ id: `s|${watch.keys[0]!}|${mempool}`, label: { scripthash: hash }, make: () => watch });
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
        make: () => {
          const { scripts, keys } = cache.wallet(w.fingerprint, w.desc, { range: w.range, maxRange: w.maxRange });
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
