// The transport's timers: a connect timeout per new socket, one timer per call for the headers
// deadline and then the body's longest silence (a body already whole needs no watch).
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, TimeoutError, type AssetgenClient } from '../../src/index.js';
import { withConnectTimeout } from '../../src/client/transport-timers.js';
import { FAST, json, KEY, startServer, type TestServer } from '../support/http.js';

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

const generation = { id: 'gen_1', status: 'succeeded', output: { url: '/files/gen_1.png' } };

/** Sends the headers and half of the body, then nothing more (the connection stays open). */
function stall(res: http.ServerResponse): void {
  const text = JSON.stringify(generation);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.write(text.slice(0, 10));
}

describe('the body’s silence', () => {
  it('a JSON body that stalls mid-way times out, and the retry (same key) is used', async () => {
    server = await startServer((_req, res, _seen, index) => (index === 0 ? stall(res) : json(res, 200, generation)));
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 150, ...FAST });
    await expect(client.generate({ agentId: 'a', prompt: 'p' })).resolves.toMatchObject({ id: 'gen_1' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers['idempotency-key']).toBe(server.requests[0]!.headers['idempotency-key']);
  });

  it('a JSON body that stalls on every attempt ends in TimeoutError', async () => {
    server = await startServer((_req, res) => stall(res));
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 100, maxRetries: 1, ...FAST });
    await expect(client.generate({ agentId: 'a', prompt: 'p' })).rejects.toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(2);
  });

  it('a body that keeps coming, slower than the timeout overall, is not cut', async () => {
    // The clock is the test's: the client's timers run on a fake one, moved 200 ms per piece, once
    // the client's socket has the piece before (no silence reaches the 300 ms timeout; 1,400 ms in
    // all). A wall clock here raced the pieces against the machine's load.
    const text = JSON.stringify(generation);
    const pieces = Array.from({ length: 8 }, (_, index) => text.slice((index * text.length) / 8, ((index + 1) * text.length) / 8));
    let answer!: (res: http.ServerResponse) => void;
    const answering = new Promise<http.ServerResponse>((resolve) => (answer = resolve));
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      answer(res);
    });
    const received = clientBytes();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 300, maxRetries: 0 });
      const generated = client.generate({ agentId: 'a', prompt: 'p' });
      const res = await answering;
      for (const [index, piece] of pieces.entries()) {
        if (index > 0) vi.advanceTimersByTime(200);
        const arrived = received.more();
        if (index === pieces.length - 1) res.end(piece);
        else res.write(piece);
        // A body cut meanwhile fails the call: the test then ends with that error.
        await Promise.race([arrived, generated]);
      }
      await expect(generated).resolves.toMatchObject({ id: 'gen_1' });
    } finally {
      received.stop();
      vi.useRealTimers();
    }
    expect(server.requests).toHaveLength(1);
  });

  it('whole answers leave no timer behind, call after call', async () => {
    server = await startServer((_req, res) => json(res, 200, generation));
    const calls = (client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 60_000 }));
    await calls.generate({ agentId: 'a', prompt: 'p' });
    // Only the client's own timers: those made while its calls run (vitest's, the server's and
    // other files' timers of this worker come and go on their own).
    const timers = await timersMadeDuring(async () => {
      for (let i = 0; i < 20; i++) await calls.generate({ agentId: 'a', prompt: 'p' });
    });
    // One per call at least (the headers deadline): the count sees the client's timers.
    expect(timers.made).toBeGreaterThanOrEqual(20);
    expect(timers.armed).toBe(0);
  });
});

/**
 * Bytes arriving on the client sockets opened from now on (node publishes each new one on the
 * `net.client.socket` channel). `more()` resolves once bytes arrive after the call, and the
 * client's own listeners on that socket have run (a turn of the event loop later).
 */
function clientBytes(): { more(): Promise<void>; stop(): void } {
  // Taken before the test fakes the clock: the bound is on real time.
  const { setTimeout: later, clearTimeout: cancel } = globalThis;
  let waiting: (() => void) | undefined;
  const onSocket = (message: unknown): void => {
    (message as { socket: net.Socket }).socket.on('data', () => {
      const resolve = waiting;
      waiting = undefined;
      if (resolve) setImmediate(resolve);
    });
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return {
    more: () =>
      new Promise<void>((resolve, reject) => {
        const bound = later(() => reject(new Error('no bytes reached the client within 10 s')), 10_000);
        waiting = () => {
          cancel(bound);
          resolve();
        };
      }),
    stop: () => diagnostics.unsubscribe('net.client.socket', onSocket),
  };
}

/**
 * Runs `work` and counts the timers made within it (in its asynchronous context, by any code it
 * calls), and how many of them are still armed once it is done.
 */
async function timersMadeDuring(work: () => Promise<void>): Promise<{ made: number; armed: number }> {
  const context = new AsyncLocalStorage<true>();
  const armed = new Set<number>();
  let made = 0;
  const hook = createHook({
    init(id, type) {
      if (type !== 'Timeout' || context.getStore() !== true) return;
      made++;
      armed.add(id);
    },
    destroy(id) {
      armed.delete(id);
    },
  }).enable();
  try {
    await context.run(true, work);
    // Node reports a cleared timer's end from a native immediate it queues then, which runs before
    // any immediate queued after it.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    hook.disable();
  }
  return { made, armed: armed.size };
}

describe('the connect timeout', () => {
  it('a socket that does not connect in time fails its request with CONNECT_TIMEOUT', async () => {
    const agent = new http.Agent({ keepAlive: true });
    // A socket that never connects (as to a host that drops the SYN).
    agent.createConnection = () => Object.assign(new net.Socket(), { connecting: true });
    withConnectTimeout(agent, 50);
    const error = await new Promise<Error>((resolve) => {
      const request = http.request({ host: '127.0.0.1', port: 9, agent });
      request.on('error', resolve);
      request.end();
    });
    expect(error).toMatchObject({ code: 'CONNECT_TIMEOUT', message: 'Could not connect within 50 ms.' });
    agent.destroy();
  });

  it('a socket that connects keeps no timer, and is reused', async () => {
    let accepted = 0;
    const plain = http.createServer((_req, res) => res.end('ok'));
    plain.on('connection', () => accepted++);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const agent = withConnectTimeout(new http.Agent({ keepAlive: true }), 100);
    const get = (): Promise<string> =>
      new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: (plain.address() as AddressInfo).port, agent }, (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
    expect(await get()).toBe('ok');
    // Past the connect timeout: a timer left armed would destroy the pooled socket.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await get()).toBe('ok');
    expect(accepted).toBe(1);
    agent.destroy();
    plain.closeAllConnections();
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });
});
