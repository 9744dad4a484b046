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

/** An answer and performance.now() at the arrival of the chunk that completed it. */
interface Arrived {
  answer: ElectrumAnswer;
  at: number;
}

export class BenchElectrum {
  private readonly pending = new Map<number, { resolve: (a: Arrived) => void; reject: (e: Error) => void }>();
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
      p?.resolve({ answer: message, at });
    } else this.onNotification(message as Notification, at);
  }

  /** Sends a request; resolves with its answer and when its last byte arrived. */
  private async request(method: string, params: unknown[]): Promise<{ result: unknown; at: number }> {
    if (this.closedWith) throw this.closedWith;
    const id = this.nextId++;
    const answered = new Promise<Arrived>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const { answer, at } = await answered;
    if (answer.error) throw new Error(`electrum bench: ${method} answered ${answer.error.code} ${answer.error.message}`);
    return { result: answer.result, at };
  }

  /** Sends a request; resolves with its result, rejects with its error. */
  async call(method: string, params: unknown[] = []): Promise<unknown> {
    return (await this.request(method, params)).result;
  }

  /**
   * `call` timed from sending to the arrival of the answer's last byte, in ms: the server's time and the
   * transfer, not this client's parse (tens of ms for a 9 MB history).
   */
  async timed(method: string, params: unknown[]): Promise<{ ms: number; result: unknown }> {
    const started = performance.now();
    const { result, at } = await this.request(method, params);
    return { ms: at - started, result };
  }

  close(): void {
    this.socket.destroy();
  }
}
