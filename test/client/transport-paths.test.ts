// The transport's two paths — node:http (one call at a time) and undici's pooled clients (once
// calls overlap) — held to the same behaviour against raw sockets that send exactly the bytes each
// case needs: answers, bytes past the announced end, stalls, cut bodies, aborts, `Connection:
// close`, keep-alive, a large body read slowly. Then the switch itself, seen on the wire.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/client/transport.js';
import type { Transport, WireRequest } from '../../src/client/transport-records.js';
import { transportError } from '../../src/client/failures.js';
import { createClient, TimeoutError, UnexpectedResponseError, type AssetgenClient } from '../../src/index.js';
import { KEY, startServer, type TestServer } from '../support/http.js';

interface RawServer {
  url: string;
  /** Sockets accepted so far. */
  accepted: () => number;
  close: () => Promise<void>;
}

/** A server that answers each request (one per data event is enough here) with `answer(index)`. */
async function rawServer(answer: (socket: net.Socket, index: number) => void): Promise<RawServer> {
  let accepted = 0;
  let index = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', () => answer(socket, index++));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/generate`,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const BODY = '{"id":"gen_1","status":"succeeded"}';
const head = (length: number, extra = ''): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

function request(url: string, extra: Partial<WireRequest> = {}): WireRequest {
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: '{"prompt":"p"}',
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    ...extra,
  };
}

/** The whole body as text, or the error that ended it. */
async function read(body: Readable): Promise<string | Error> {
  try {
    let text = '';
    for await (const chunk of body) text += (chunk as Buffer).toString('utf8');
    return text;
  } catch (error) {
    return error as Error;
  }
}

let server: RawServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  server = transport = undefined;
});

describe.each(['never', 'always'] as const)('JSON calls with pooling %s', (pooling) => {
  const open = async (answer: (socket: net.Socket, index: number) => void, connectTimeoutMs = 1_000): Promise<Transport> => {
    server = await rawServer(answer);
    transport = await createTransport({ connectTimeoutMs, pooling });
    return transport;
  };

  it('an answer: its status, lower-case headers and body; calls one after another share one connection', async () => {
    const wire = await open((socket) => socket.write(head(BODY.length, 'X-Request-Id: req_1\r\n') + BODY));
    for (let i = 0; i < 5; i++) {
      const response = await wire.send(request(server!.url));
      expect(response.status).toBe(200);
      expect(response.headers['x-request-id']).toBe('req_1');
      expect(await read(response.body)).toBe(BODY);
    }
    expect(server!.accepted()).toBe(1);
  });

  it('bytes past the announced Content-Length, in the same packet: the answer is refused, not cut', async () => {
    const wire = await open((socket) => socket.write(head(BODY.length) + BODY + 'and-then-some'));
    const response = await wire.send(request(server!.url));
    const outcome = await read(response.body);
    expect(outcome).toBeInstanceOf(UnexpectedResponseError);
    expect((outcome as Error).message).toMatch(/more bytes than the answer announced/);
  });

  it('a large body with no silence bound (a download), read slowly: every byte, in order', async () => {
    const size = 4 * 1024 * 1024;
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) bytes.writeUInt32BE(i, i);
    const wire = await open((socket) => socket.write(Buffer.concat([Buffer.from(head(size)), bytes])));
    const response = await wire.send(request(server!.url, { method: 'GET', body: undefined, bodyTimeoutMs: 0 }));
    const chunks: Buffer[] = [];
    let reads = 0;
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer);
      // A slow reader now and then: the body must wait for it, not drop or reorder bytes.
      if (++reads % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('a large body longer than its Content-Length (2 MiB announced, 3 MiB sent): refused', async () => {
    const wire = await open((socket) =>
      socket.write(Buffer.concat([Buffer.from(head(2 * 1024 * 1024)), Buffer.alloc(3 * 1024 * 1024, 7)])),
    );
    const response = await wire.send(request(server!.url, { method: 'GET', body: undefined, bodyTimeoutMs: 0 }));
    const outcome = await read(response.body);
    expect((outcome as Error).message).toMatch(/more bytes than the answer announced/);
  });

  it('`Connection: close` is a clean end, and the next call connects again', async () => {
    const wire = await open((socket) => socket.end(head(BODY.length, 'Connection: close\r\n') + BODY));
    expect(await read((await wire.send(request(server!.url))).body)).toBe(BODY);
    expect(await read((await wire.send(request(server!.url))).body)).toBe(BODY);
    expect(server!.accepted()).toBe(2);
  });

  it('a body cut short (the connection closes before Content-Length) fails the body', async () => {
    const wire = await open((socket) => socket.end(head(BODY.length) + BODY.slice(0, 10)));
    const response = await wire.send(request(server!.url)).catch((error: Error) => error);
    const outcome = response instanceof Error ? response : await read(response.body);
    expect(outcome).toBeInstanceOf(Error);
  });

  it('no headers in time: a timeout error the client maps to TimeoutError', async () => {
    const wire = await open(() => {});
    const error = await wire.send(request(server!.url, { headersTimeoutMs: 100 })).catch((e: Error) => e);
    expect(transportError(error, 'POST x')).toBeInstanceOf(TimeoutError);
  });

  it('a body that stalls mid-way: a timeout error the client maps to TimeoutError', async () => {
    const wire = await open((socket) => socket.write(head(BODY.length) + BODY.slice(0, 10)));
    const response = await wire.send(request(server!.url, { bodyTimeoutMs: 100 }));
    const outcome = await read(response.body);
    expect(transportError(outcome, 'POST x')).toBeInstanceOf(TimeoutError);
  });

  // Each abort below is sent on a signal from the other end (the request arrived, the first bytes of
  // the body came), not after a delay, and every timeout is a minute away: only the abort can end
  // the call. (With a 50 ms delay against a 2 s timeout, a worker stalled for 2 s under load saw
  // the headers timeout first.)
  const PATIENT = { headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000 };

  it('an abort before the answer, and one mid-body, end the call with an AbortError', async () => {
    let requestArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (requestArrived = resolve));
    const wire = await open((socket, index) => (index === 0 ? requestArrived() : socket.write(head(BODY.length) + BODY.slice(0, 10))));
    const early = new AbortController();
    const pending = wire.send(request(server!.url, { ...PATIENT, signal: early.signal })).catch((e: Error) => e);
    await arrived;
    early.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });

    const late = new AbortController();
    const response = await wire.send(request(server!.url, { ...PATIENT, signal: late.signal }));
    const chunks = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    expect(String((await chunks.next()).value)).toBe(BODY.slice(0, 10));
    late.abort();
    expect(await chunks.next().catch((e: Error) => e)).toMatchObject({ name: 'AbortError' });
  });

  it('an abort while the connection is still being made (a TLS handshake that never ends) ends the call at once', async () => {
    let helloArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (helloArrived = resolve));
    // The client's TLS hello reaches the server, which never answers it.
    const wire = await open(() => helloArrived(), 60_000);
    const controller = new AbortController();
    const pending = wire
      .send(request(server!.url.replace('http:', 'https:'), { ...PATIENT, signal: controller.signal }))
      .catch((e: Error) => e);
    await arrived;
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
  });

  it('an already aborted signal sends nothing', async () => {
    const wire = await open((socket) => socket.write(head(BODY.length) + BODY));
    const error = await wire.send(request(server!.url, { signal: AbortSignal.abort() })).catch((e: Error) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(server!.accepted()).toBe(0);
  });
});

it('a call after close() is refused, on either path', async () => {
  for (const pooling of ['never', 'always'] as const) {
    const closed = await createTransport({ connectTimeoutMs: 1_000, pooling });
    await closed.close();
    await expect(closed.send(request('http://127.0.0.1:9/x'))).rejects.toThrow(/closed/);
  }
});

describe('the switch', () => {
  let service: TestServer | undefined;
  let client: AssetgenClient | undefined;
  afterEach(async () => {
    await client?.close();
    await service?.close();
    service = client = undefined;
  });

  const generation = (req: { headers: Record<string, unknown> }): string =>
    JSON.stringify({ id: `gen_${String(req.headers['idempotency-key']).slice(0, 8)}`, status: 'succeeded', output: { url: '/f.png' } });

  // node:http sends `Host`, undici `host`: the header's case tells which client sent a request.
  const viaUndici = (request: { rawHeaders: string[] }): boolean => request.rawHeaders.includes('host');
  const serve = async (): Promise<TestServer> =>
    startServer((req, res) => {
      const text = generation(req);
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });

  it('a one-shot call goes over node:http; once calls overlap, they go through the pool (seen on the wire)', async () => {
    service = await serve();
    client = createClient({ baseUrl: service.url, apiKey: KEY });
    await client.generate({ agentId: 'a', prompt: 'p' });
    expect(viaUndici(service.requests[0]!)).toBe(false);
    await Promise.all(Array.from({ length: 16 }, () => client!.generate({ agentId: 'a', prompt: 'p' })));
    await Promise.all(Array.from({ length: 16 }, () => client!.generate({ agentId: 'a', prompt: 'p' })));
    expect(service.requests).toHaveLength(33);
    // The one-shot call and the first of the burst went over node:http; the second of the burst saw
    // one waiting, loaded undici and waited for it with the rest: every other call went through it.
    expect(service.requests.filter((seen) => !viaUndici(seen))).toHaveLength(2);
    for (const seen of service.requests) {
      expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(seen.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('connectionPool: off (what the CLI uses) keeps every call on node:http', async () => {
    service = await serve();
    client = createClient({ baseUrl: service.url, apiKey: KEY, connectionPool: 'off' });
    for (let burst = 0; burst < 2; burst++)
      await Promise.all(Array.from({ length: 16 }, () => client!.generate({ agentId: 'a', prompt: 'p' })));
    expect(service.requests).toHaveLength(32);
    expect(service.requests.filter(viaUndici)).toEqual([]);
  });
});
