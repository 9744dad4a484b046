/**
 * One Electrum connection: lines in, requests dispatched to the method registry, answers out (a batch
 * gets one array). What a client sends never throws out of here; what it does wrong is answered, and
 * what it keeps doing wrong closes the connection with a reason (close-reasons.ts):
 *   - at most MAX_IN_FLIGHT lines are handled at once; beyond MAX_QUEUED_LINES waiting (or twice the
 *     longest line's bytes), the socket stops being read (TCP pushes back on the client), so a pipelining
 *     client holds bounded memory;
 *   - each line is metered by its size before it is parsed (parsing is bounded: wire.ts tooCostlyToParse),
 *     and by its requests' costs before they run (cost-meter.ts: the session's and its network's levels): over
 *     the soft limit it waits, with a bound, and is never refused; past the hard limit the connection
 *     is closed (`rate_limited`);
 *   - an unparseable line is answered -32700 and the connection stays, until MAX_BAD_LINES in a row;
 *   - a line over electrum.maxLineBytes is answered, then the connection closed;
 *   - unsent messages past electrum.maxBufferedBytes behind the one being sent (a client that does not read)
 *     close it at its next message;
 *   - no request for electrum.idleTimeoutSeconds closes it.
 */
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CloseReason } from './close-reasons.js';
import type { Meter } from './cost-meter.js';
import { inProtocol, type ElectrumSession, type MethodRegistry, type MethodSpec } from './methods/registry.js';
import { PROTOCOL_MIN } from './version.js';
import {
  errorAnswer,
  frameBytes,
  isBadLine,
  LineSplitter,
  notification,
  parseLine,
  resultAnswer,
  RpcError,
  type Incoming,
  type Notification,
  type RpcAnswer,
} from './wire.js';

/** Lines handled at once per connection: enough for a wallet's pipelined subscriptions, no more. */
export const MAX_IN_FLIGHT = 16;
/** Lines waiting beyond which the socket is paused (its bytes stay in the kernel and push back on the client). */
export const MAX_QUEUED_LINES = 256;
/** Unusable lines in a row before the connection is closed: a client speaking another protocol. */
export const MAX_BAD_LINES = 10;
/** What a line answered with an error costs (garbage and unknown methods are what floods are made of). */
export const ERROR_COST = 1;
/** Characters of a line that cost 1 before it is parsed: a request of 100 bytes costs 0.001 more. */
export const LINE_CHARS_PER_UNIT = 100_000;
/** How long a closing connection may take to flush its last answer before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

export interface SessionLimits {
  readonly maxLineBytes: number;
  readonly maxBufferedBytes: number;
  readonly idleTimeoutMs: number;
}

/** How a request ended, for the request counter's `outcome` label. */
export type Outcome = 'ok' | 'error' | 'invalid' | 'not_found' | 'rate_limited' | 'internal';

/** Method label of lines that name no method, and of unknown methods (never the raw name: unbounded). */
export const NO_METHOD = 'none';
export const UNKNOWN_METHOD = 'unknown';

export interface SessionEvents {
  request(method: string, outcome: Outcome): void;
  notified(method: string): void;
  /** A line waits `ms` over a soft cost limit before it is served. */
  delayed(ms: number): void;
  internalError(method: string, err: unknown): void;
  /**
   * Once per connection: the reason the server closed it, or undefined when the client left (or shutdown);
   * `detail` says more where the reason alone would not (which hard limit).
   */
  closed(reason: CloseReason | undefined, detail?: string): void;
}

export interface SessionOptions {
  readonly socket: Socket;
  readonly network: string;
  readonly registry: MethodRegistry;
  readonly limits: SessionLimits;
  readonly meter: Meter;
  readonly events: SessionEvents;
}

const OVERSIZED = Symbol('oversized');
type Queued = string | typeof OVERSIZED;

export class Session implements ElectrumSession {
  readonly network: string;
  protocol: string | undefined;
  clientName = '';
  private readonly socket: Socket;
  private readonly splitter: LineSplitter;
  private readonly idle: NodeJS.Timeout;
  private queue: Queued[] = [];
  /** Characters of the lines waiting (about their bytes): 256 lines of a megabyte each would be too many. */
  private queuedChars = 0;
  private head = 0;
  private inFlight = 0;
  private badLines = 0;
  private paused = false;
  private reading = true;
  private closeAfter: CloseReason | undefined;
  /** Past a hard limit: no more lines are taken, and the connection closes once those in flight are answered. */
  private draining: { reason: CloseReason; detail: string } | undefined;
  private closed = false;
  private closeHooks: Array<() => void> = [];
  /** performance.now() of the connection's start, then of the latest line that came. */
  private lastLineAt = performance.now();
  /** Bytes of every message written so far, and that count at the end of each message not yet all sent. */
  private written = 0;
  private readonly ends: number[] = [];

  constructor(private readonly opts: SessionOptions) {
    this.network = opts.network;
    this.socket = opts.socket;
    this.splitter = new LineSplitter(opts.limits.maxLineBytes);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // A reset or a TLS failure: 'close' follows, which is all that matters here.
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.finish(undefined));
    this.idle = setTimeout(() => this.close('idle'), opts.limits.idleTimeoutMs);
    this.idle.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get lastActiveAt(): number {
    return this.lastLineAt;
  }

  /** A line in flight or waiting: the connection is at work, not idle. */
  get busy(): boolean {
    return this.inFlight > 0 || this.head < this.queue.length;
  }

  negotiated(clientName: string, protocol: string): void {
    this.clientName = clientName;
    this.protocol = protocol;
  }

  notify(method: string, params: readonly unknown[]): void {
    if (this.closed) return;
    this.write(notification(method, params));
    this.opts.events.notified(method);
  }

  closeAfterAnswer(reason: CloseReason): void {
    this.closeAfter ??= reason;
  }

  async charge(cost: number): Promise<void> {
    if (cost <= 0) return;
    const admitted = this.opts.meter.admit(cost);
    if (admitted.kind === 'over') {
      this.drain(admitted.why);
      throw overLimits(admitted.why);
    }
    await this.wait(admitted.delayMs);
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.opts.events.delayed(ms);
    await sleep(ms);
  }

  /** Stops taking lines; what was admitted before is still answered, then the connection closes. */
  private drain(why: string): void {
    this.draining ??= { reason: 'rate_limited', detail: why };
    this.reading = false;
    this.queue = [];
    this.head = 0;
    this.queuedChars = 0;
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeHooks.push(fn);
  }

  /** Closes for `reason`: the last answer written is flushed first, except to a client that does not read. */
  close(reason: CloseReason, detail?: string): void {
    if (this.closed) return;
    this.finish(reason, detail);
    if (reason === 'slow_reader' || reason === 'idle' || reason === 'evicted') {
      this.socket.destroy();
      return;
    }
    this.socket.end();
    // Whatever still arrives is read and dropped: an unread receive queue would turn our FIN into a reset,
    // and the client could lose the answer that says why.
    this.socket.resume();
    const force = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    force.unref();
    this.socket.once('close', () => clearTimeout(force));
  }

  /** Server shutdown: closed at once, counted as no cause. */
  shutdown(): void {
    this.finish(undefined);
    this.socket.destroy();
  }

  private finish(reason: CloseReason | undefined, detail?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.reading = false;
    clearTimeout(this.idle);
    this.queue = [];
    this.head = 0;
    this.queuedChars = 0;
    this.opts.events.closed(reason, detail);
    const hooks = this.closeHooks;
    this.closeHooks = [];
    for (const fn of hooks) fn();
  }

  private onData(chunk: Buffer): void {
    if (!this.reading) return;
    const { lines, oversized } = this.splitter.push(chunk);
    if (lines.length > 0) {
      this.idle.refresh();
      this.lastLineAt = performance.now();
    }
    for (const line of lines) {
      this.queue.push(line);
      this.queuedChars += line.length;
    }
    if (oversized) {
      this.queue.push(OVERSIZED);
      this.reading = false;
    }
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < MAX_IN_FLIGHT && this.head < this.queue.length) {
      const next = this.queue[this.head++]!;
      if (next === OVERSIZED) {
        this.write(
          errorAnswer(null, new RpcError('EXCESSIVE_RESOURCE_USAGE', `request line longer than ${this.opts.limits.maxLineBytes} bytes`)),
        );
        this.close('oversized_line');
        return;
      }
      this.queuedChars -= next.length;
      this.inFlight++;
      void this.handleLine(next)
        .catch((err: unknown) => this.opts.events.internalError(NO_METHOD, err))
        .finally(() => {
          this.inFlight--;
          if (this.draining !== undefined && this.inFlight === 0) this.close(this.draining.reason, this.draining.detail);
          else this.pump();
        });
    }
    if (this.closed) return;
    // Drop what was handled once it is most of the array, so a long queue is not shifted line by line.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const waiting = this.queue.length - this.head;
    const full = waiting > MAX_QUEUED_LINES || this.queuedChars > 2 * this.opts.limits.maxLineBytes;
    if (!this.paused && full) {
      this.paused = true;
      this.socket.pause();
    } else if (this.paused && waiting <= MAX_QUEUED_LINES / 2 && this.queuedChars <= this.opts.limits.maxLineBytes) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private async handleLine(line: string): Promise<void> {
    // Paid for by its size before it is parsed: a long line is work before any method runs.
    if (!(await this.admitted(line.length / LINE_CHARS_PER_UNIT, []))) return;
    const parsed = parseLine(line);
    const bad = isBadLine(parsed);
    this.badLines = bad ? this.badLines + 1 : 0;
    // Taken now: lines in flight after this one count on before it is answered.
    const badRun = this.badLines;
    const cost = parsed.items.reduce((sum, item) => sum + this.costOf(item), 0);
    if (!(await this.admitted(cost, parsed.items, parsed.batch))) return;
    const answers = (await Promise.all(parsed.items.map((item) => this.answer(item)))).filter((a) => a !== undefined);
    if (this.closed) return;
    if (answers.length > 0) this.write(parsed.batch ? answers : answers[0]!);
    if (badRun >= MAX_BAD_LINES) this.close('bad_lines');
    else if (this.closeAfter !== undefined) this.close(this.closeAfter);
  }

  /**
   * Meters `cost`, waiting as long as the meter says; false when the line is not to be served: the
   * connection closed meanwhile, or past a hard limit (`items` are then answered -101 and it drains).
   */
  private async admitted(cost: number, items: readonly Incoming[], batch = false): Promise<boolean> {
    const admitted = this.opts.meter.admit(cost);
    if (admitted.kind === 'over') {
      const error = overLimits(admitted.why);
      // A line refused before it was parsed has no ids yet: answered once, with id null.
      const answers = items.length === 0 ? [errorAnswer(null, error)] : items.flatMap((item) => this.refused(item, error));
      if (answers.length > 0) this.write(batch ? answers : answers[0]!);
      this.drain(admitted.why);
      return false;
    }
    await this.wait(admitted.delayMs);
    return !this.closed;
  }

  private costOf(item: Incoming): number {
    return item.kind === 'request' ? (this.opts.registry.get(item.request.method)?.cost ?? ERROR_COST) : ERROR_COST;
  }

  private refused(item: Incoming, error: RpcError): RpcAnswer[] {
    const method = item.kind === 'invalid' ? NO_METHOD : this.opts.registry.has(item.request.method) ? item.request.method : UNKNOWN_METHOD;
    this.opts.events.request(method, 'rate_limited');
    const id = item.kind === 'invalid' ? item.id : item.request.id;
    return id === undefined ? [] : [errorAnswer(id, error)];
  }

  private async answer(item: Incoming): Promise<RpcAnswer | undefined> {
    if (item.kind === 'invalid') {
      this.opts.events.request(NO_METHOD, 'invalid');
      return errorAnswer(item.id, item.error);
    }
    const { id, method } = item.request;
    const spec = this.opts.registry.get(method);
    const reply = (a: RpcAnswer): RpcAnswer | undefined => (id === undefined ? undefined : a);
    if (spec === undefined) {
      this.opts.events.request(UNKNOWN_METHOD, 'not_found');
      return reply(errorAnswer(id ?? null, new RpcError('METHOD_NOT_FOUND', `unknown method ${JSON.stringify(method.slice(0, 100))}`)));
    }
    if (!inProtocol(spec, this.protocol)) {
      this.opts.events.request(method, 'not_found');
      const at = this.protocol ?? PROTOCOL_MIN;
      return reply(errorAnswer(id ?? null, new RpcError('METHOD_NOT_FOUND', `method ${method} is not part of protocol ${at}`)));
    }
    try {
      const result = await spec.handler(positional(item.request.params, spec), this);
      this.opts.events.request(method, 'ok');
      return reply(resultAnswer(id ?? null, result));
    } catch (err) {
      if (err instanceof RpcError) {
        this.opts.events.request(method, 'error');
        return reply(errorAnswer(id ?? null, err));
      }
      this.opts.events.request(method, 'internal');
      this.opts.events.internalError(method, err);
      return reply(errorAnswer(id ?? null, new RpcError('INTERNAL_ERROR', 'internal error')));
    }
  }

  private write(message: RpcAnswer | readonly RpcAnswer[] | Notification): void {
    if (this.closed) return;
    // What waits behind the message being sent is what the client left unread. The one being sent is
    // not counted, however long: a long history (100,000 entries are ~9 MB) reaches a client that reads,
    // and so does a notification written while it is on its way. A client that does not read is closed
    // at its next message once more than the limit waits behind the one it stopped at.
    if (this.waitingBehind() > this.opts.limits.maxBufferedBytes) {
      this.close('slow_reader');
      return;
    }
    const pieces = frameBytes(message);
    this.socket.cork();
    for (const piece of pieces) this.socket.write(piece);
    this.socket.uncork();
    this.written += pieces.reduce((sum, piece) => sum + piece.length, 0);
    this.ends.push(this.written);
  }

  /** Bytes of the messages written after the one the socket is sending now (none when all are sent). */
  private waitingBehind(): number {
    // The socket's unsent bytes drop as the kernel takes them (the write callbacks come later).
    const sent = this.written - this.socket.writableLength;
    while (this.ends.length > 0 && this.ends[0]! <= sent) this.ends.shift();
    return this.ends.length === 0 ? 0 : this.written - this.ends[0]!;
  }
}

const overLimits = (why: string): RpcError => new RpcError('EXCESSIVE_RESOURCE_USAGE', `over this server's limits (${why}): closing`);

/** Params as the handler takes them: positional, named ones put in the order the method lists. */
function positional(params: readonly unknown[] | Readonly<Record<string, unknown>>, spec: MethodSpec): readonly unknown[] {
  const ignored = spec.extraParams === 'ignored';
  if (Array.isArray(params)) {
    if (params.length <= spec.params.length) return params;
    if (ignored) return params.slice(0, spec.params.length);
    throw new RpcError('INVALID_PARAMS', `at most ${spec.params.length} parameters`);
  }
  const named = params as Readonly<Record<string, unknown>>;
  const unknown = Object.keys(named).filter((k) => !spec.params.includes(k));
  if (unknown.length > 0 && !ignored)
    throw new RpcError('INVALID_PARAMS', `unknown parameter ${JSON.stringify(unknown[0]!.slice(0, 100))}`);
  return spec.params.map((name) => named[name]);
}
