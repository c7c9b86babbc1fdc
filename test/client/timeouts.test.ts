// The transport's timers: a connect timeout per new socket, one timer per call for the headers
// deadline and then the body's longest silence (a body already whole needs no watch).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
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
    const started = Date.now();
    await expect(client.generate({ agentId: 'a', prompt: 'p' })).rejects.toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a body that keeps coming, slower than the timeout overall, is not cut', async () => {
    const text = JSON.stringify(generation);
    const pieces = 8;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      const size = Math.ceil(text.length / pieces);
      let sent = 0;
      const next = (): void => {
        const piece = text.slice(sent, sent + size);
        sent += piece.length;
        if (sent >= text.length) res.end(piece);
        else {
          res.write(piece);
          setTimeout(next, 60);
        }
      };
      next();
    });
    // 8 pieces 60 ms apart: ~420 ms in all, never 300 ms without a byte.
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 300, maxRetries: 0 });
    const started = Date.now();
    await expect(client.generate({ agentId: 'a', prompt: 'p' })).resolves.toMatchObject({ id: 'gen_1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(server.requests).toHaveLength(1);
  });

  it('whole answers leave no timer behind, call after call', async () => {
    server = await startServer((_req, res) => json(res, 200, generation));
    client = createClient({ baseUrl: server.url, apiKey: KEY, responseTimeoutMs: 60_000 });
    const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    await client.generate({ agentId: 'a', prompt: 'p' });
    const before = timers();
    for (let i = 0; i < 20; i++) await client.generate({ agentId: 'a', prompt: 'p' });
    expect(timers()).toBe(before);
  });
});

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
