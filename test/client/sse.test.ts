import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  ConnectionError,
  createClient,
  GenerationFailedError,
  type AssetgenClient,
  type StreamEvent,
} from '../../src/index.js';
import { FAST, json, reset, startServer, type TestServer } from '../support/http.js';

const SESSION = 'ag_session=sess_0123456789abcdef';
const result = {
  id: 'gen_s',
  status: 'succeeded',
  output: { url: '/files/gen_s.png', contentType: 'image/png' },
  credits: { charged: 10, remaining: 990 },
};

function sse(res: http.ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  return (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('stream', () => {
  it('yields typed events in order, sending the session cookie and an idempotency key', async () => {
    server = await startServer((_req, res) => {
      const send = sse(res, { 'x-request-id': 'req_s' });
      send('start', { id: 'gen_s' });
      send('progress', { progress: 0.5, message: 'Sketching' });
      res.write(': a comment\n\n');
      send('progress', { progress: 75 });
      send('result', result);
      send('done', {});
      res.end();
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    const events = await collect(client.stream({ agentId: 'sprite-artist', prompt: 'p' }));
    expect(events.map((e) => e.type)).toEqual(['start', 'progress', 'progress', 'result', 'done']);
    expect(events[1]).toMatchObject({ progress: 0.5, message: 'Sketching' });
    expect(events[2]).toMatchObject({ progress: 0.75 });
    const resultEvent = events[3] as Extract<StreamEvent, { type: 'result' }>;
    expect(resultEvent.generation).toMatchObject({
      id: 'gen_s',
      assetUrl: `${server.url}/files/gen_s.png`,
      requestId: 'req_s',
      credits: { charged: 10 },
    });
    const seen = server.requests[0]!;
    expect(seen.url).toBe('/api/ai/stream');
    expect(seen.headers.cookie).toBe(SESSION);
    expect(seen.headers.accept).toBe('text/event-stream');
    expect(seen.headers['idempotency-key']).toBeTruthy();
  });

  it('throws GenerationFailedError on an error event (not a network problem)', async () => {
    server = await startServer((_req, res) => {
      const send = sse(res);
      send('start', {});
      send('error', { code: 'generation_failed', message: 'The model refused.' });
      res.end();
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    const error = await collect(client.stream({ agentId: 'a', prompt: 'p' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationFailedError);
    expect(error).toMatchObject({ code: 'generation_failed', message: 'The generation failed: The model refused.' });
  });

  it('throws ConnectionError when the stream ends without a result', async () => {
    server = await startServer((_req, res) => {
      const send = sse(res);
      send('start', {});
      send('progress', { progress: 0.1 });
      res.end();
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    await expect(collect(client.stream({ agentId: 'a', prompt: 'p' }))).rejects.toBeInstanceOf(ConnectionError);
  });

  it('retries with the same key until the first event, never after', async () => {
    server = await startServer((_req, res, _seen, i) => {
      if (i === 0) return json(res, 503, { error: { message: 'busy' } });
      if (i === 1) return reset(res);
      const send = sse(res);
      send('start', {});
      if (i === 2) return void setImmediate(() => res.socket?.destroy()); // broken after an event
      send('result', result);
      res.end();
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION, maxRetries: 5, ...FAST });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of client!.stream({ agentId: 'a', prompt: 'p' })) events.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(events.map((e) => e.type)).toEqual(['start']);
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('breaking out of the loop closes the request', async () => {
    let closed!: () => void;
    const disconnected = new Promise<void>((resolve) => (closed = resolve));
    server = await startServer((req, res) => {
      const send = sse(res);
      send('start', {});
      const timer = setInterval(() => send('progress', { progress: 0.1 }), 10);
      res.on('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    let count = 0;
    for await (const event of client.stream({ agentId: 'a', prompt: 'p' })) {
      if (event.type === 'progress' && ++count === 3) break;
    }
    await disconnected; // bounded by the test timeout
    expect(count).toBe(3);
  });

  it('aborts with the signal', async () => {
    const controller = new AbortController();
    server = await startServer((_req, res) => {
      sse(res)('start', {});
      // then silence; the abort once the stream has begun (not after a delay, which a slow machine outlasts)
      setImmediate(() => controller.abort());
    });
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    const iterate = collect(client.stream({ agentId: 'a', prompt: 'p' }, { signal: controller.signal }));
    await expect(iterate).rejects.toBeInstanceOf(AbortedError);
  });

  it('accepts a plain JSON answer as a result', async () => {
    server = await startServer((_req, res) => json(res, 200, result));
    client = createClient({ baseUrl: server.url, sessionCookie: SESSION });
    const events = await collect(client.stream({ agentId: 'a', prompt: 'p' }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'result', generation: { id: 'gen_s' } });
  });
});
