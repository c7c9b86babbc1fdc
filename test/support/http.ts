// A tiny scripted HTTP server on loopback for behaviours the mock cannot easily produce.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, beforeEach } from 'vitest';
import { tempHome } from './cli.js';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** As sent, names in their own case. */
  rawHeaders: string[];
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
        rawHeaders: req.rawHeaders,
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
export function truncated(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
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

/**
 * The harness of the hostile-server suites, written once: a temp home per test and, per call, a
 * scripted server the CLI runs against with a key (closed after the test). `run` decides how the
 * CLI runs (in-process, or spawned and measured); `env` adds to or replaces the key.
 */
export function useScriptedService<R>(run: (args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }) => Promise<R>): {
  readonly home: ReturnType<typeof tempHome>;
  /** The server of this test's last `against`. */
  readonly server: TestServer;
  against(handler: Handler, args: string[], env?: NodeJS.ProcessEnv): Promise<R>;
} {
  let home: ReturnType<typeof tempHome> | undefined;
  let server: TestServer | undefined;
  beforeEach(() => {
    home = tempHome();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    home?.remove();
  });
  return {
    get home() {
      if (!home) throw new Error('the temp home is made in beforeEach: use it inside a test');
      return home;
    },
    get server() {
      if (!server) throw new Error('no server yet: call against() first');
      return server;
    },
    async against(handler, args, env = { ASSETGEN_API_KEY: KEY }) {
      server = await startServer(handler);
      return run(args, { env: { ...home!.env, ASSETGEN_BASE_URL: server.url, ...env }, cwd: home!.cwd });
    },
  };
}

/**
 * A gzip bomb: `decodedMiB` MiB of zero bytes as gzip members of 1 MiB each, one after another (a
 * gunzip reads them as one body): ~1 KB per MiB, made in milliseconds.
 */
export function gzipBomb(decodedMiB: number): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(2 ** 20));
  return Buffer.concat(Array.from({ length: decodedMiB }, () => member));
}
