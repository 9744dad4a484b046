/**
 * A lean Electrum client for the benchmarks: newline-delimited JSON-RPC over one TCP socket, answers
 * matched by id, notifications handed to a listener with their arrival time. Lean on purpose: a 100,000-
 * entry history is ~9 MB of JSON, so lines are found in each new chunk only (never rescanning what came
 * before) and the client's own cost stays out of the server's figures as far as it can.
 */
import net from 'node:net';
import { createHash } from 'node:crypto';

export interface ElectrumAnswer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

export interface Notification {
  method: string;
  params: unknown[];
}

/** Electrum's scripthash: sha256 of the output script, byte-reversed, in hex. */
export const scripthash = (script: Buffer): string => createHash('sha256').update(script).digest().reverse().toString('hex');

export class BenchElectrum {
  private readonly pending = new Map<number, { resolve: (a: ElectrumAnswer) => void; reject: (e: Error) => void }>();
  private readonly parts: Buffer[] = [];
  private nextId = 1;
  private closedWith: Error | null = null;
  /** Called for every notification, with performance.now() at the chunk's arrival. */
  onNotification: (note: Notification, at: number) => void = () => undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.take(chunk, performance.now()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closedWith = new Error('electrum bench: the server closed the connection');
      for (const p of this.pending.values()) p.reject(this.closedWith);
      this.pending.clear();
    });
  }

  static connect(port: number): Promise<BenchElectrum> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.once('error', reject);
      socket.once('connect', () => resolve(new BenchElectrum(socket)));
    });
  }

  private take(chunk: Buffer, at: number): void {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
      this.parts.push(chunk.subarray(from, nl));
      const line = Buffer.concat(this.parts).toString('utf8');
      this.parts.length = 0;
      from = nl + 1;
      this.dispatch(JSON.parse(line) as ElectrumAnswer | Notification, at);
    }
    if (from < chunk.length) this.parts.push(chunk.subarray(from));
  }

  private dispatch(message: ElectrumAnswer | Notification, at: number): void {
    if ('id' in message && typeof message.id === 'number') {
      const p = this.pending.get(message.id);
      this.pending.delete(message.id);
      p?.resolve(message);
    } else this.onNotification(message as Notification, at);
  }

  /** Sends a request; resolves with its result, rejects with its error. */
  call(method: string, params: unknown[] = []): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    const answered = new Promise<ElectrumAnswer>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answered.then((a) => {
      if (a.error) throw new Error(`electrum bench: ${method} answered ${a.error.code} ${a.error.message}`);
      return a.result;
    });
  }

  /** `call` timed from sending to the whole answer parsed, in ms. */
  async timed(method: string, params: unknown[]): Promise<{ ms: number; result: unknown }> {
    const started = performance.now();
    const result = await this.call(method, params);
    return { ms: performance.now() - started, result };
  }

  close(): void {
    this.socket.destroy();
  }
}
