// The node:http bridge: real sockets in front of the msw handlers (msw's getResponse resolves a
// standard Request against them). Bodies are streamed chunk by chunk, so SSE events leave as they
// happen; a client that disconnects cancels its stream. Connection-level faults live here.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type HttpHandler } from 'msw';
import { MAX_BODY_BYTES, type ErrorCode } from './constants.js';
import { TRUNCATE_MARKER } from './route.js';
import { createMockService, type MockService } from './service.js';

export interface StartMockServerOptions {
  /** 0 (default) picks a free ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Starting balance (default 1000). */
  credits?: number;
  /** Seed of the mock's random choices (faults, random video outcomes). */
  seed?: string | number;
}

export interface MockServer {
  url: string;
  /** An API key issued at start (plaintext shown once; the mock keeps only its hash). */
  apiKey: string;
  /** A session cookie issued at start, as `name=value`. */
  sessionCookie: string;
  /** The service behind the socket, for in-process inspection. */
  service: MockService;
  close(): Promise<void>;
}

export async function startMockServer(options: StartMockServerOptions = {}): Promise<MockServer> {
  const service = createMockService({ credits: options.credits, seed: options.seed });
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((req, res) => {
    handle(service, req, res).catch(() => {
      // A bug in the mock must not crash the process serving other tests.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'internal_error', message: 'The mock failed to answer.' } }));
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    apiKey: service.apiKey,
    sessionCookie: service.sessionCookie,
    service,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(service: MockService, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  req.socket.setNoDelay(true);
  const body = await readBody(req);
  if (body === 'too-large') {
    sendError(res, 413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { limit: MAX_BODY_BYTES });
    return;
  }
  // The service answers origin-form targets on its own host: not `*`, not a proxy's absolute form,
  // not a Host header that makes no URL. Each is the client's mistake (400), never a 500.
  const url = requestUrl(req);
  if (!url) {
    sendError(res, 400, 'invalid_request', 'The request target or Host header is not valid for this service.');
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const request = new Request(url, {
    method: req.method,
    headers,
    body: req.method === 'GET' || req.method === 'HEAD' || body.length === 0 ? undefined : new Uint8Array(body),
    signal: controller.signal,
  });
  const response = (await getResponse(handlersFor(service, req.method ?? 'GET', req.url ?? '/'), request)) ?? notFound();
  if (response.type === 'error') {
    // Injected `reset`: drop the connection without an answer.
    req.socket.destroy();
    return;
  }
  const truncate = response.headers.get(TRUNCATE_MARKER) === 'truncate';
  response.headers.delete(TRUNCATE_MARKER);
  const outHeaders: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    outHeaders[name] = value;
  });
  if (truncate) {
    // Injected `truncate`: announce the full length, send half, hang up.
    const bytes = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...outHeaders, 'content-length': String(bytes.length) });
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
    return;
  }
  if (!response.body) {
    res.writeHead(response.status, outHeaders);
    res.end();
    return;
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // A whole body: headers and bytes leave in one write.
    const bytes = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...outHeaders, 'content-length': String(bytes.length) });
    res.end(bytes);
    return;
  }
  // A stream: each event leaves as it happens.
  res.writeHead(response.status, outHeaders);
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (res.destroyed) return;
    res.write(value);
  }
  res.end();
}

/**
 * The handlers that can answer this method and path, in their order. msw would otherwise match
 * every handler's path against every request; the behaviour is the same, only cheaper. Paths
 * that none matches (or that are malformed) go to the whole list, catch-alls included.
 */
const dispatchTables = new WeakMap<MockService, { method: string; pattern: RegExp; handler: HttpHandler }[]>();

function handlersFor(service: MockService, method: string, url: string): HttpHandler[] {
  let table = dispatchTables.get(service);
  if (!table) {
    table = service.handlers.flatMap((handler) => {
      const { path, method: handlerMethod } = handler.info;
      if (typeof path !== 'string' || typeof handlerMethod !== 'string' || handlerMethod === 'ALL') return [];
      const source = path
        .replace(/^\*/, '')
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      return [{ method: handlerMethod, pattern: new RegExp(`^${source}/?$`), handler }];
    });
    dispatchTables.set(service, table);
  }
  const pathname = url.split('?')[0] ?? '/';
  if (pathname.includes('%')) return service.handlers;
  const matches = table.filter((entry) => entry.method === method && entry.pattern.test(pathname)).map((entry) => entry.handler);
  return matches.length ? matches : service.handlers;
}

/** Reads the request body, stopping at the size limit instead of buffering an unbounded upload. */
function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `http://<host><path>` for an origin-form target and a usable Host, else undefined. */
function requestUrl(req: http.IncomingMessage): string | undefined {
  const target = req.url ?? '/';
  if (!target.startsWith('/')) return undefined;
  try {
    const base = new URL(`http://${req.headers.host ?? 'localhost'}`);
    if (base.pathname !== '/' || base.search || base.username) return undefined;
    return `${base.origin}${target}`;
  } catch {
    return undefined;
  }
}

/** An error answer written straight to the socket (before msw sees the request). */
function sendError(
  res: http.ServerResponse,
  status: 400 | 413,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  const requestId = `req_${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({ error: { code, message, requestId, ...extra } });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
  });
  res.end(body);
}

function notFound(): Response {
  const requestId = `req_${randomBytes(8).toString('hex')}`;
  return new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such route.', requestId } }), {
    status: 404,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
  });
}
