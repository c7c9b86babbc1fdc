// A tiny scripted HTTP server on loopback for behaviours the mock cannot easily produce.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen, index: number) => unknown;

export interface TestServer {
  url: string;
  origin: string;
  requests: Seen[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      Promise.resolve(handler(req, res, seen, requests.length - 1)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Declares the full length, sends half, then drops the connection. */
export function truncated(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.write(text.slice(0, Math.floor(text.length / 2)));
  setImmediate(() => res.socket?.destroy());
}

/** Drops the connection without any answer. */
export function reset(res: http.ServerResponse): void {
  res.socket?.destroy();
}

export const KEY = 'agk_test_0123456789abcdef0123456789abcdef';

/** Client options that keep retries fast in tests. */
export const FAST = { retryBaseDelayMs: 5, retryMaxDelayMs: 20 } as const;

/**
 * Writes `piece` again and again, honouring backpressure (so the server holds one piece, never the
 * whole body), until the client goes away or `maxBytes` are sent; resolves with the bytes sent.
 */
export function flood(res: http.ServerResponse, piece: Buffer | string, maxBytes: number): Promise<number> {
  const chunk = Buffer.from(piece);
  let sent = 0;
  return new Promise((resolve) => {
    const done = (): void => resolve(sent);
    res.once('close', done);
    const pump = (): void => {
      while (sent < maxBytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
}
