// The node:http transport: real sockets in front of the mock's dispatch. Whole bodies leave in one
// write; streams event by event, and a client that disconnects stops its stream. The connection
// faults a route asks for (`reset`, `truncate`) are acted out here.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, type ErrorCode } from './constants.js';
import { isStream, type MockRequest, type MockResponse } from './exchange.js';
import { newRequestId } from './ids.js';
import { createService, type MockService } from './service.js';

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
  const service = createService({ credits: options.credits, seed: options.seed });
  const host = options.host ?? '127.0.0.1';
  // noDelay: answers leave at once instead of waiting on Nagle's algorithm (node's default; said
  // here because SSE events depend on it).
  const server = http.createServer({ noDelay: true }, (req, res) => {
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
  const body = await readBody(req);
  if (body === 'too-large') {
    sendError(res, 413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { limit: MAX_BODY_BYTES });
    return;
  }
  // The service answers origin-form targets on its own host: not `*`, not a proxy's absolute form,
  // not a Host header that makes no URL. Each is the client's mistake (400), never a 500.
  const origin = originOf(req);
  const target = req.url ?? '/';
  if (!origin || !target.startsWith('/')) {
    sendError(res, 400, 'invalid_request', 'The request target or Host header is not valid for this service.');
    return;
  }
  const query = target.indexOf('?');
  let text: Promise<string> | undefined;
  const request: MockRequest = {
    method: req.method ?? 'GET',
    origin,
    path: query < 0 ? target : target.slice(0, query),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    // Decoded once: the idempotency layer and the endpoint both read it.
    text: () => (text ??= Promise.resolve(body.toString('utf8'))),
  };
  const response = (await service.dispatch(request)) ?? notFound();
  send(req, res, response);
}

function send(req: http.IncomingMessage, res: http.ServerResponse, response: MockResponse): void {
  if (response.fault === 'reset') {
    // Injected `reset`: drop the connection without an answer.
    req.socket.destroy();
    return;
  }
  const { body } = response;
  if (isStream(body)) {
    // A stream: each event leaves as it happens.
    res.writeHead(response.status, response.headers);
    res.flushHeaders();
    let ended = false;
    const stop = body.start(
      (chunk) => {
        if (!res.destroyed) res.write(chunk);
      },
      () => {
        ended = true;
        res.end();
      },
    );
    res.on('close', () => {
      if (!ended) stop();
    });
    return;
  }
  const whole = body ?? '';
  const length = typeof whole === 'string' ? Buffer.byteLength(whole) : whole.length;
  response.headers['content-length'] = String(length);
  res.writeHead(response.status, response.headers);
  if (response.fault === 'truncate') {
    // Injected `truncate`: announce the full length, send half, hang up.
    const bytes = typeof whole === 'string' ? Buffer.from(whole) : whole;
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
    return;
  }
  // A whole body: node sends a string body in the same write as the headers.
  res.end(whole);
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

/** `http://<host>` from a Host header that is a host (no path, query or userinfo), else undefined. */
const origins = new Map<string, string | undefined>();
function originOf(req: http.IncomingMessage): string | undefined {
  const host = req.headers.host ?? 'localhost';
  if (origins.has(host)) return origins.get(host);
  let origin: string | undefined;
  try {
    const base = new URL(`http://${host}`);
    if (base.pathname === '/' && !base.search && !base.hash && !base.username) origin = base.origin;
  } catch {
    origin = undefined;
  }
  // Clients send one or two distinct Host values; the cap keeps a hostile one from growing it.
  if (origins.size < 64) origins.set(host, origin);
  return origin;
}

/** An error answer written straight to the socket (before msw sees the request). */
function sendError(
  res: http.ServerResponse,
  status: 400 | 413,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  const requestId = newRequestId();
  const body = JSON.stringify({ error: { code, message, requestId, ...extra } });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
  });
  res.end(body);
}

function notFound(): MockResponse {
  const requestId = newRequestId();
  return {
    status: 404,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ error: { code: 'not_found', message: 'No such route.', requestId } }),
  };
}
