/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and says where a request's CPU goes, by layer. Each sample
 * is charged to the innermost frame on its stack that belongs to a named layer (so time inside
 * better-sqlite3 called from the key cache counts as "keys", the socket write under Express's res.end
 * counts as HTTP, and pino's fs.write as the log line), or to "other JavaScript" when no frame does.
 * Idle samples are left out.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on the system's monotonic clock (CLOCK_MONOTONIC on Linux: the clock of process.hrtime). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock in µs (process.hrtime.bigint() / 1000), e.g. the timed load. */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Layers, innermost-first match: the first rule a frame meets names its layer. */
const LAYERS: ReadonlyArray<readonly [string, (f: CallFrame) => boolean]> = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['key check (src/keys)', (f) => f.url.includes('/src/keys/')],
  [
    'token bucket (src/serving/token-bucket, shared-limiter)',
    (f) => /\/src\/(serving\/(token-bucket|shared-limiter|redis-buckets)|api\/middleware\/rate-limit)/.test(f.url),
  ],
  [
    'address decode/encode (src/chain/address, bitcoinjs, bech32, bs58)',
    (f) =>
      f.url.includes('/src/chain/address') ||
      /node_modules\/(bitcoinjs-lib|bech32|bs58|bs58check|base-x|@noble|valibot|uint8array-tools)/.test(f.url),
  ],
  ['index read (ChainReader.summary, better-sqlite3)', (f) => f.url.includes('/src/store/') || f.url.includes('better-sqlite3')],
  ['log line (pino)', (f) => /node_modules\/(pino|sonic-boom|fast-redact|quick-format|on-exit-leak-free|thread-stream)/.test(f.url)],
  ['metrics (prom-client)', (f) => f.url.includes('node_modules/prom-client')],
  ['request context, ETag, JSON body (src/api, src/serving)', (f) => f.url.includes('/src/api/') || f.url.includes('/src/serving/')],
  [
    'Express and router',
    (f) =>
      /node_modules\/(express|router|path-to-regexp|finalhandler|send|serve-static|on-finished|content-type|parseurl|fresh|etag|type-is|accepts|mime-types|negotiator|depd|vary|debug|ms|qs|cookie|body-parser)\//.test(
        f.url,
      ),
  ],
  // Node's HTTP and socket code (parser, ServerResponse, net, streams) and its native socket writes. Other
  // node: frames (fs, timers, crypto) are not a layer: their time goes to the code that called them.
  [
    'HTTP parse and socket write (node:http, net, streams)',
    (f) =>
      /^node:(_http_|net|stream|internal\/(streams|stream_base|http|net))/.test(f.url) ||
      /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(f.functionName),
  ],
];

const NODE_OTHER = 'other Node.js internals (nextTick queue, timers, fs callbacks)';

export interface LayerShare {
  readonly layer: string;
  /** Share of the busy (non-idle) samples, 0..1. */
  readonly share: number;
}

/** Shares of the samples taken inside `window` (all samples when absent: start-up included). */
export function layerShares(profile: CpuProfile, window?: Window): LayerShare[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layerOf = new Map<number, string | null>();
  const resolve = (id: number): string | null => {
    const cached = layerOf.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let layer: string | null;
    if (name === '(idle)') layer = 'idle';
    else if (name === '(program)') layer = 'V8 and native code not attributed to a function (program)';
    else {
      layer = LAYERS.find(([, match]) => match(node.callFrame))?.[0] ?? null;
      if (layer === null) {
        const up = parent.get(id);
        layer = up === undefined ? null : resolve(up);
      }
    }
    layerOf.set(id, layer);
    return layer;
  };
  /** Outside every layer: Node's own scheduling (nextTick queue, timers, fs callbacks) if any frame is node:. */
  const leftover = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)!.callFrame.url.startsWith('node:')) return NODE_OTHER;
    }
    return 'other JavaScript';
  };
  const time = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const layer = resolve(id) ?? leftover(id);
    if (layer === 'idle') return;
    busy += dt;
    time.set(layer, (time.get(layer) ?? 0) + dt);
  });
  return [...time.entries()].map(([layer, t]) => ({ layer, share: busy > 0 ? t / busy : 0 })).sort((a, b) => b.share - a.share);
}

export function readLayerShares(file: string, window?: Window): LayerShare[] {
  return layerShares(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, window);
}

/** Now on the clock a profile's timestamps use, in µs. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
