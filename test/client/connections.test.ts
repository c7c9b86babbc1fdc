// Keep-alive for real: the SDK's calls reuse their sockets — one connection for calls made one
// after another, no more connections than calls in flight — counted by the server that accepts them
// (and the first call's, before the switch to undici's pooled clients: test/client/transport-paths.test.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createClient, type AssetgenClient } from '../../src/index.js';
import { KEY } from '../support/http.js';

let server: http.Server | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering every generate with a small record; `connections()` counts accepted sockets. */
async function serve(): Promise<{ client: AssetgenClient; connections: () => number }> {
  let accepted = 0;
  let index = 0;
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const text = JSON.stringify({ id: `gen_${index++}`, status: 'succeeded', output: { url: '/files/a.png' } });
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-credits-charged': '1' });
      res.end(text);
    });
  });
  server.on('connection', () => accepted++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: KEY });
  return { client, connections: () => accepted };
}

it('makes calls one after another over one connection', async () => {
  const { client, connections } = await serve();
  for (let i = 0; i < 20; i++) expect((await client.generate({ agentId: 'a', prompt: 'p' })).id).toBe(`gen_${i}`);
  expect(connections()).toBe(1);
});

it('opens no more connections than calls in flight (and the first call’s), and reuses them', async () => {
  const { client, connections } = await serve();
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < 200) {
      started++;
      await client.generate({ agentId: 'a', prompt: 'p' });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  expect(connections()).toBeGreaterThan(0);
  // The first call goes over node:http; once calls overlap they go through undici's pooled clients
  // (src/client/transport.ts), one connection per call in flight.
  expect(connections()).toBeLessThanOrEqual(8 + 1);
});
