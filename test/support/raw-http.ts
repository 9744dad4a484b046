/**
 * Raw HTTP/1.x over node:net: sends bytes exactly as given (so malformed request lines, bad header
 * bytes and oversized headers reach Node's own parser) and parses the first response that comes back.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawOptions {
  /** The request was HEAD: the response has headers only, whatever Content-Length says. */
  head?: boolean;
  timeoutMs?: number;
}

export function rawRequest(port: number, bytes: Buffer | string, options: RawOptions = {}): Promise<RawResponse> {
  const head = options.head ?? false;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) return reject(err);
      const parsed = parseResponse(Buffer.concat(chunks), false, head);
      if (parsed) resolve(parsed);
      else reject(new Error(`no complete HTTP response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    };
    const timer = setTimeout(() => {
      // A complete response may already be here on a keep-alive connection.
      if (parseResponse(Buffer.concat(chunks), false, head)) finish();
      else finish(new Error('timeout waiting for a response'));
    }, options.timeoutMs ?? 5000);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parseResponse(Buffer.concat(chunks), true, head)) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // The server may answer and close before reading everything we send (EPIPE/ECONNRESET): keep what came back.
    socket.on('error', () => finish());
    socket.write(bytes);
  });
}

/** The first response in `data`, or null if incomplete. With `strict`, a body without length needs the connection end. */
export function parseResponse(data: Buffer, strict = false, head = false): RawResponse | null {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  const status = Number(m[1]);
  // Interim answers (100 Continue to `Expect: 100-continue`) precede the real one.
  if (status < 200) return parseResponse(rest, strict, head);
  // These have no body by definition; bytes after the header block belong to a next (pipelined) response.
  if (head || status === 304 || status === 204) return { status, headers, body: '' };
  const length = headers['content-length'];
  if (length !== undefined) {
    const n = Number(length);
    if (rest.length < n) return null;
    return { status, headers, body: rest.subarray(0, n).toString('utf8') };
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const body = dechunk(rest);
    return body === null ? null : { status, headers, body };
  }
  if (strict) return null;
  return { status, headers, body: rest.toString('utf8') };
}

function dechunk(data: Buffer): string | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    if (data.length < lineEnd + 2 + size + 2) return null;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
