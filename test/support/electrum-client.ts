/**
 * A minimal Electrum client for tests, over a real socket (TCP or TLS): raw lines out, every message in
 * kept in order, and waits for a message (or the close) with a deadline rather than a sleep.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface Answer {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export interface ConnectOptions {
  readonly localAddress?: string;
  /** The server's certificate, to connect over TLS and trust it. */
  readonly tlsCa?: Buffer;
}

export class ElectrumClient {
  readonly messages: unknown[] = [];
  readonly closed: Promise<void>;
  private buffer = '';
  private waiters: Array<() => void> = [];
  private nextId = 1;

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffer += text;
      let at: number;
      while ((at = this.buffer.indexOf('\n')) >= 0) {
        this.messages.push(JSON.parse(this.buffer.slice(0, at)));
        this.buffer = this.buffer.slice(at + 1);
      }
      this.wake();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.on('close', () => resolve()));
    void this.closed.then(() => this.wake());
  }

  static connect(port: number, options: ConnectOptions = {}): Promise<ElectrumClient> {
    return new Promise((resolve, reject) => {
      const raw = net.connect({ port, host: '127.0.0.1', localAddress: options.localAddress });
      if (options.tlsCa === undefined) {
        raw.once('error', reject);
        raw.once('connect', () => resolve(new ElectrumClient(raw)));
        return;
      }
      // TLS over a socket of our own: that is where the local address is chosen.
      const secure = tls.connect({ socket: raw, servername: 'localhost', ca: options.tlsCa }, () => resolve(new ElectrumClient(secure)));
      secure.once('error', reject);
    });
  }

  send(line: string): void {
    this.socket.write(`${line}\n`);
  }

  /** Sends a request and resolves with its answer. */
  async call(method: string, params: unknown[] = [], timeoutMs = 10_000): Promise<Answer> {
    const id = this.nextId++;
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.answer(id, timeoutMs);
  }

  answer(id: string | number | null, timeoutMs = 10_000): Promise<Answer> {
    return this.waitFor((m) => !Array.isArray(m) && (m as Answer).id === id, timeoutMs) as Promise<Answer>;
  }

  /** The first message received (or to come) that `match` accepts. */
  waitFor(match: (message: unknown) => boolean, timeoutMs = 10_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.find(match);
        if (found !== undefined) {
          resolve(found);
          return true;
        }
        if (this.socket.destroyed || Date.now() > deadline) {
          reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages).slice(0, 500)}`));
          return true;
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        check();
      }, timeoutMs + 10);
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves once the server has closed the connection, or rejects at the deadline. */
  async closedWithin(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`connection still open after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.closed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
