/**
 * Clients of the live endpoints for tests: a WebSocket client of /api/v1/ws that keeps every message and
 * the last summary per address, and a Server-Sent Events reader of …/address/{address}/events.
 */
import WebSocket from 'ws';

export interface LiveData {
  /** One of these names what the summary is of: an address, a scripthash, or a wallet (its descriptors). */
  address: string;
  scripthash?: string;
  descriptors?: string[];
  balanceSatoshi: number;
  balance: number;
  utxoCount: number;
  blockHeight: number;
  unconfirmed?: { balanceSatoshi: number; utxoCount: number; txCount: number };
}

/** What WsClient.last keys a summary by: its address, its scripthash, or its wallet's descriptors joined by spaces. */
export function summaryName(d: LiveData): string {
  return d.address ?? d.scripthash ?? d.descriptors!.join(' ');
}

/** What an upgrade that was refused answered. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused ${status}: ${body}`);
  }
}

export class WsClient {
  readonly messages: Record<string, unknown>[] = [];
  readonly last = new Map<string, LiveData>();
  closed: number | null = null;
  private nextId = 1000;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString()) as Record<string, unknown>;
      this.messages.push(m);
      if (m.event === 'summary') {
        const d = m.data as LiveData;
        this.last.set(summaryName(d), d);
      }
    });
    ws.on('close', (code) => (this.closed = code));
  }

  /**
   * Opens a connection; rejects with UpgradeRefused when the server answers the upgrade with HTTP.
   * `localAddress` (a 127.0.0.x) makes it another client network, with throttles of its own.
   */
  static async open(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<WsClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/ws`, { headers, localAddress });
    const client = new WsClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
      });
    });
    return client;
  }

  reply(id: number): Record<string, unknown> | undefined {
    return this.messages.find((m) => m.id === id);
  }

  /** Sends an op and waits for its reply. */
  async op(body: Record<string, unknown>, timeoutMs = 20_000): Promise<{ status: string; data: Record<string, unknown> }> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...body, id }));
    const deadline = Date.now() + timeoutMs;
    while (this.reply(id) === undefined) {
      if (Date.now() > deadline) throw new Error(`no reply to ${JSON.stringify(body)}`);
      if (this.closed !== null) throw new Error(`closed (${this.closed}) before the reply to ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.reply(id) as { status: string; data: Record<string, unknown> };
  }

  /** Resolves with the close code once the connection is closed. */
  whenClosed(): Promise<number> {
    if (this.closed !== null) return Promise.resolve(this.closed);
    return new Promise((resolve) => this.ws.once('close', (code: number) => resolve(code)));
  }
}

/** One SSE stream: its raw text, frame ids and last summary. */
export class SseClient {
  last: LiveData | null = null;
  ids: string[] = [];
  text = '';
  constructor(
    readonly status: number,
    /** The answer's X-Request-Id: its log line names the worker that served it. */
    readonly requestId: string | null,
    body: ReadableStream<Uint8Array> | null,
    private readonly abort: AbortController,
  ) {
    if (!body) return;
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of body) {
          const text = decoder.decode(chunk, { stream: true });
          this.text += text;
          buf += text;
          let at: number;
          while ((at = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, at);
            buf = buf.slice(at + 2);
            const data = /^data: (.*)$/m.exec(frame);
            const id = /^id: (.*)$/m.exec(frame);
            if (id) this.ids.push(id[1]!);
            if (data && /^event: summary$/m.test(frame)) this.last = JSON.parse(data[1]!) as LiveData;
          }
        }
      } catch {
        // aborted
      }
    })();
  }

  static async open(url: string, chain: string, address: string, headers: Record<string, string> = {}, query = ''): Promise<SseClient> {
    const abort = new AbortController();
    const res = await fetch(`${url}/api/v1/${chain}/address/${address}/events${query}`, { headers, signal: abort.signal });
    const client = new SseClient(res.status, res.headers.get('x-request-id'), res.status === 200 ? res.body : null, abort);
    if (res.status !== 200) client.text = await res.text();
    return client;
  }

  close(): void {
    this.abort.abort();
  }
}
